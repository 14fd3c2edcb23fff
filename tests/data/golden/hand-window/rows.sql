-- hand-window: a monitor's window set of a run of four ranks (world_size 4) of which only ranks 0
-- and 1 are here (processes 1 and 2, pids 5000 and 5001): ranks 2 and 3 ran on a host whose run
-- directory was not read.  Each file holds the records of its process from 5000.50 ms on (the
-- window's from_ns) to 20000.50 ms, when the monitor wrote it for a hang (request hang-0001; rank
-- 1's window let go of 1200 records early).  The processes started at 0.50 ms and still run: no
-- end_ns; their writers' heartbeats are at 20000.00 ms.  One communicator (comm_id 999) of the
-- four ranks: both call all-reduce 7 at 5001.00 ms (kernels 5001.03-5001.20 ms); rank 0 calls
-- all-reduce 8 at 5011.00 ms and blocks in cudaStreamSynchronize after it (in flight); rank 1
-- never calls it: its last call, a cudaStreamQuery, ends at 5009.01 ms.  Pins down the report's
-- header of windows (each one's span, 5000.00-20000.00 ms into the run, reason, request and
-- detail, the detail's markup escaped where it is shown), the missing ranks 2 and 3, and
-- comm.hang in a window: its wait to the heartbeat, 14989.00 ms, and rank 1's place, host code
-- since 5008.51 ms into the run.  Times in ns; one clock.
CREATE TABLE heartbeat(process_id INTEGER PRIMARY KEY, at_ns INTEGER);
CREATE TABLE window(process_id INTEGER, request TEXT, reason TEXT, at_ns INTEGER,
  from_ns INTEGER, cut_rows INTEGER, detail TEXT);
INSERT INTO run VALUES('hand:window', 1700000000000500000, 'hand');

-- rank 0
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:window', 'host', 5000, 0, 0, 4, 0, 'hand GPU 0', 'window', 'active', 'tsc',
  1700000000000000000, 500000, NULL, NULL, NULL, 0, 0, 'no Python', 'no NVTX calls seen', 'off');
INSERT INTO window VALUES(1, 'hang-0001', 'hang', 20000500000, 5000500000, 0,
  'cudaStreamSynchronize in flight for 14.99 s <script>alert(1)</script>');
INSERT INTO string VALUES(1, 1, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL');
INSERT INTO module VALUES(1, 1, 'window', 'window', '00');
INSERT INTO callsite VALUES(1, 2, 'allreduce_site+0x10 (window+0x2010)'), (1, 3, 'sync_site+0x10 (window+0x3010)');
INSERT INTO comm VALUES(1, 20480, 999, 0, 4, 0, 700000);
-- all-reduce 7: called at 5001.00 ms, its kernel 5001.03-5001.20 ms
INSERT INTO api_call VALUES(1, 500, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 5001000000, 5001050000, 24576, 0, 262144, 0, 0, 0, 2, 10, 0);
INSERT INTO collective VALUES(1, 10, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 999, 7, 65536, 7, 262144, 0, -1, 0, 4, 24576, 5001000000, 5001050000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 500, 5001020000, 5001030000, 1, 0);
INSERT INTO ext_corr VALUES(1, 10, 1);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 13, 1, 5001030000, 5001200000, 0, 0, 0, 0, 1, 0, 0);
INSERT INTO api_call VALUES(1, 500, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 5001060000, 5001205000, 24576, 0, 0, 0, 0, 0, 3, 11, 0);
INSERT INTO cupti_api VALUES(1, 1, 131, 500, 5001060100, 5001204900, 2, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 11, 2);
-- all-reduce 8: called at 5011.00 ms, its kernel never ends; the sync after it in flight
INSERT INTO api_call VALUES(1, 500, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 5011000000, 5011050000, 24576, 0, 262144, 0, 0, 0, 2, 12, 0);
INSERT INTO collective VALUES(1, 12, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 999, 8, 65536, 7, 262144, 0, -1, 0, 4, 24576, 5011000000, 5011050000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 500, 5011020000, 5011030000, 3, 0);
INSERT INTO ext_corr VALUES(1, 12, 3);
INSERT INTO inflight VALUES(1, 500, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 5011060000, 13, 3, 0);
INSERT INTO heartbeat VALUES(1, 20000000000);

-- rank 1
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(2, 'hand:window', 'host', 5001, 1, 1, 4, 1, 'hand GPU 1', 'window', 'active', 'tsc',
  1700000000000000000, 500000, NULL, NULL, NULL, 0, 0, 'no Python', 'no NVTX calls seen', 'off');
INSERT INTO window VALUES(2, 'hang-0001', 'hang', 20000500000, 5000500000, 1200, 'a peer''s hang (request of rank 0)');
INSERT INTO string VALUES(2, 1, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL');
INSERT INTO module VALUES(2, 1, 'window', 'window', '00');
INSERT INTO callsite VALUES(2, 2, 'allreduce_site+0x10 (window+0x2010)'), (2, 3, 'sync_site+0x10 (window+0x3010)'),
  (2, 4, 'poll_site+0x10 (window+0x4010)');
INSERT INTO comm VALUES(2, 20480, 999, 1, 4, 0, 700000);
-- all-reduce 7: called at 5001.00 ms, its kernel 5001.03-5001.20 ms
INSERT INTO api_call VALUES(2, 501, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 5001000000, 5001050000, 24576, 0, 262144, 0, 0, 0, 2, 10, 0);
INSERT INTO collective VALUES(2, 10, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 999, 7, 65536, 7, 262144, 0, -1, 1, 4, 24576, 5001000000, 5001050000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(2, 1, 211, 501, 5001020000, 5001030000, 1, 0);
INSERT INTO ext_corr VALUES(2, 10, 1);
INSERT INTO gpu_op VALUES(2, 1, 0, 1, 13, 1, 5001030000, 5001200000, 0, 0, 0, 0, 1, 0, 0);
INSERT INTO api_call VALUES(2, 501, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 5001060000, 5001205000, 24576, 0, 0, 0, 0, 0, 3, 11, 0);
INSERT INTO cupti_api VALUES(2, 1, 131, 501, 5001060100, 5001204900, 2, 0);
INSERT INTO ext_corr VALUES(2, 4611686018427387904 + 11, 2);
-- its last call: a stream query, 5009.00-5009.01 ms; then host code
INSERT INTO api_call VALUES(2, 501, (SELECT id FROM api WHERE name = 'cudaStreamQuery'), 5009000000, 5009010000, 24576, 0, 0, 0, 0, 0, 4, 12, 0);
INSERT INTO heartbeat VALUES(2, 20000000000);
