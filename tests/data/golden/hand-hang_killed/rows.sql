-- hand-hang_killed: hand-hang_heartbeat with rank 1 killed (SIGKILL: no end, no signal recorded)
-- before rank 0 called all-reduce 1: two ranks (processes 1 and 2, pids 3000 and 3001), one
-- communicator (777 of 2).  Both call all-reduce 0 at 1.00 ms.  Rank 1's last call, a
-- cudaStreamQuery, ends at 9.01 ms; its writer's last heartbeat is at 9.20 ms (it was killed
-- then).  Rank 0 calls all-reduce 1 at 11.00 ms (its kernel never ends) and blocks in a stream
-- sync; its writer beats on to 6011.00 ms, 6 s later.  Pins down a killed rank against one read
-- while it ran: rank 1's heartbeat stopped 6 s before rank 0's (more than the 3 s a writer beating
-- every 200 ms can lag), so it is no rank read too soon to tell whether it entered all-reduce 1,
-- but a missing one: comm.hang names rank 1, rank 0's wait 6000.00 ms to its heartbeat.  Read as
-- running, no hang was found.  Times in ns; both hosts' clocks agree.
CREATE TABLE heartbeat(process_id INTEGER PRIMARY KEY, at_ns INTEGER);
INSERT INTO run VALUES('hand:hang_killed', 1700000000000500000, 'hand');

-- rank 0
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:hang_killed', 'host', 3000, 0, 0, 2, 0, 'hand GPU 0', 'hang_killed', 'active', 'tsc',
  1700000000000000000, 500000, NULL, NULL, NULL, 0, 0, 'no Python', 'no NVTX calls seen', 'off');
INSERT INTO string VALUES(1, 1, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL');
INSERT INTO module VALUES(1, 1, 'hang_killed', 'hang_killed', '00');
INSERT INTO callsite VALUES(1, 1, 'init_site+0x10 (hang_killed+0x1010)'), (1, 2, 'allreduce_site+0x10 (hang_killed+0x2010)'),
  (1, 3, 'sync_site+0x10 (hang_killed+0x3010)');
INSERT INTO api_call VALUES(1, 300, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 600000, 600000, 24576, 0, 0, 0, 0, 0, 0, 1, 0);
INSERT INTO api_call VALUES(1, 300, (SELECT id FROM api WHERE name = 'ncclCommInitRank'), 700000, 800000, 0, 0, 0, 0, 0, 0, 1, 2, 0);
INSERT INTO comm VALUES(1, 20480, 777, 0, 2, 0, 700000);
-- all-reduce 0: called at 1.00 ms, its kernel 1.03-1.20 ms
INSERT INTO api_call VALUES(1, 300, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 1000000, 1050000, 24576, 0, 262144, 0, 0, 0, 2, 10, 0);
INSERT INTO collective VALUES(1, 10, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 777, 0, 65536, 7, 262144, 0, -1, 0, 2, 24576, 1000000, 1050000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 300, 1020000, 1030000, 1, 0);
INSERT INTO ext_corr VALUES(1, 10, 1);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 13, 1, 1030000, 1200000, 0, 0, 0, 0, 1, 0, 0);
INSERT INTO api_call VALUES(1, 300, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 1060000, 1205000, 24576, 0, 0, 0, 0, 0, 3, 11, 0);
INSERT INTO cupti_api VALUES(1, 1, 131, 300, 1060100, 1204900, 2, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 11, 2);
-- all-reduce 1: called at 11.00 ms; its kernel never ends; the sync after it is in flight
INSERT INTO api_call VALUES(1, 300, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 11000000, 11050000, 24576, 0, 262144, 0, 0, 0, 2, 12, 0);
INSERT INTO collective VALUES(1, 12, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 777, 1, 65536, 7, 262144, 0, -1, 0, 2, 24576, 11000000, 11050000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 300, 11020000, 11030000, 3, 0);
INSERT INTO ext_corr VALUES(1, 12, 3);
INSERT INTO inflight VALUES(1, 300, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 11060000, 13, 3, 0);
INSERT INTO heartbeat VALUES(1, 6011000000);

-- rank 1
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(2, 'hand:hang_killed', 'host', 3001, 1, 1, 2, 1, 'hand GPU 1', 'hang_killed', 'active', 'tsc',
  1700000000000000000, 500000, NULL, NULL, NULL, 0, 0, 'no Python', 'no NVTX calls seen', 'off');
INSERT INTO string VALUES(2, 1, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL');
INSERT INTO module VALUES(2, 1, 'hang_killed', 'hang_killed', '00');
INSERT INTO callsite VALUES(2, 1, 'init_site+0x10 (hang_killed+0x1010)'), (2, 2, 'allreduce_site+0x10 (hang_killed+0x2010)'),
  (2, 3, 'sync_site+0x10 (hang_killed+0x3010)'), (2, 4, 'poll_site+0x10 (hang_killed+0x4010)');
INSERT INTO api_call VALUES(2, 301, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 600000, 600000, 24576, 0, 0, 0, 0, 0, 0, 1, 0);
INSERT INTO api_call VALUES(2, 301, (SELECT id FROM api WHERE name = 'ncclCommInitRank'), 700000, 800000, 0, 0, 0, 0, 0, 0, 1, 2, 0);
INSERT INTO comm VALUES(2, 20480, 777, 1, 2, 0, 700000);
-- all-reduce 0: called at 1.00 ms, its kernel 1.03-1.20 ms
INSERT INTO api_call VALUES(2, 301, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 1000000, 1050000, 24576, 0, 262144, 0, 0, 0, 2, 10, 0);
INSERT INTO collective VALUES(2, 10, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 777, 0, 65536, 7, 262144, 0, -1, 1, 2, 24576, 1000000, 1050000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(2, 1, 211, 301, 1020000, 1030000, 1, 0);
INSERT INTO ext_corr VALUES(2, 10, 1);
INSERT INTO gpu_op VALUES(2, 1, 0, 1, 13, 1, 1030000, 1200000, 0, 0, 0, 0, 1, 0, 0);
INSERT INTO api_call VALUES(2, 301, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 1060000, 1205000, 24576, 0, 0, 0, 0, 0, 3, 11, 0);
INSERT INTO cupti_api VALUES(2, 1, 131, 301, 1060100, 1204900, 2, 0);
INSERT INTO ext_corr VALUES(2, 4611686018427387904 + 11, 2);
-- its last call: a stream query, 9.00-9.01 ms; then host code, no call in flight
INSERT INTO api_call VALUES(2, 301, (SELECT id FROM api WHERE name = 'cudaStreamQuery'), 9000000, 9010000, 24576, 0, 0, 0, 0, 0, 4, 12, 0);
INSERT INTO heartbeat VALUES(2, 9200000);
