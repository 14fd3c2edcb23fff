-- hand-inflight_gap: one process, one thread (tid 100), one GPU, one stream (handle 4096, CUPTI
-- stream 8), whose program's own profiler (torch.profiler) held CUPTI twice: 8.00-12.00 ms, given
-- back, and from 20.50 ms to the end (22.00 ms), never (table gpu_gap).  Work in flight at each
-- hand-over lost its records (the tracer's forced flush): the stretch begins where that work did
-- (viewer/read/gap_inflight.c), not at the hand-over.  Times in ns; one clock.
--    1.00 ms  K1 launched (runs 1.10-4.00); 1.10 ms K2 (4.00-7.00)
--    1.20 ms  K3 launched: running at the first hand-over (8.00), no record; 1.30 ms K4, queued
--             behind it, no record.  The host works in Python until 8.00 (no calls): the GPU
--             ran K3 from 7.00, not known, not idle: the first stretch begins at 7.00
--   12.50 ms  K5 launched (12.60-16.00)
--   19.00 ms  K6 launched (19.10-19.50, recorded: no pull-back for it)
--   20.00 ms  K7 launched: in flight at the second hand-over (20.50), no record.  The GPU idled
--             from 19.50 to its launch (0.50 ms, the host busy elsewhere); the second stretch
--             begins at 20.00
CREATE TABLE gpu_gap(process_id INTEGER, idx INTEGER, from_ns INTEGER, to_ns INTEGER,
  PRIMARY KEY(process_id, idx));
INSERT INTO run VALUES('hand:inflight_gap', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:inflight_gap', 'host', 1000, 0, 0, 1, 0, 'hand GPU', 'inflight_gap',
  'active until 8000000 (the program''s own profiler took CUPTI)', 'tsc',
  1700000000000000000, 100000, 22000000, 0, 'exit', 0, 0, 'no Python', 'active', 'off');
INSERT INTO gpu_gap VALUES(1, 0, 8000000, 12000000), (1, 1, 20500000, NULL);
INSERT INTO string VALUES(1, 1, 'K1'), (1, 2, 'K2'), (1, 5, 'K5'), (1, 6, 'K6');
INSERT INTO module VALUES(1, 1, 'inflight_gap', 'inflight_gap', '00');

-- api_call(process_id, tid, api, start_ns, end_ns, stream, event, bytes, copy_kind, mem_kind, result,
--          callsite, call_id, pystack); a launch's end is its start (the tracer does not read it)
-- cupti_api(process_id, domain, cbid, tid, start_ns, end_ns, correlation, result)
-- gpu_op(process_id, kind, device, context, stream_id, name_id, start_ns, end_ns, bytes, copy_kind,
--        src_kind, dst_kind, correlation, sync_type, event_id)
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 200000, 200000, 4096, 0, 0, 0, 0, 0, 0, 1, 0);

INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 1000000, 1000000, 4096, 0, 0, 0, 0, 0, 0, 10, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 1000100, 1005000, 10, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 1, 1100000, 4000000, 0, 0, 0, 0, 10, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 1100000, 1100000, 4096, 0, 0, 0, 0, 0, 0, 11, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 1100100, 1105000, 11, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 2, 4000000, 7000000, 0, 0, 0, 0, 11, 0, 0);
-- in flight at the first hand-over: calls and API records, no operations
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 1200000, 1200000, 4096, 0, 0, 0, 0, 0, 0, 12, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 1200100, 1205000, 12, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 1300000, 1300000, 4096, 0, 0, 0, 0, 0, 0, 13, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 1300100, 1305000, 13, 0);

INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 12500000, 12500000, 4096, 0, 0, 0, 0, 0, 0, 14, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 12500100, 12505000, 14, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 5, 12600000, 16000000, 0, 0, 0, 0, 14, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 19000000, 19000000, 4096, 0, 0, 0, 0, 0, 0, 15, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 19000100, 19005000, 15, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 6, 19100000, 19500000, 0, 0, 0, 0, 15, 0, 0);
-- in flight at the second hand-over
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 20000000, 20000000, 4096, 0, 0, 0, 0, 0, 0, 16, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 20000100, 20005000, 16, 0);
