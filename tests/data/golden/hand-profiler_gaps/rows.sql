-- hand-profiler_gaps: one process, one thread (tid 100), one GPU, one stream (handle 4096, CUPTI
-- stream 8), whose program's own profiler (torch.profiler) held CUPTI twice: 4.00-9.00 ms, given
-- back, and from 14.00 ms to the end (16.00 ms), never (table gpu_gap, as a tracer that takes
-- CUPTI back writes it; process.cupti_status says when the first began).  Times in ns; one clock.
--    1.00 ms  K1 launched (runs 1.01-2.00); 1.10 ms K2 (2.00-3.00)
--    1.20 ms  a stream sync, 1.20-3.05, of no consumer: the GPU idles from 3.00 to K3 (9.50),
--             but 4.00-9.00 is not known: the sync costs 3.00-4.00 and 9.00-9.50 (1.50 ms)
--    5.00 ms  a launch and a sync (5.10-7.00) in the first stretch: no GPU records of theirs,
--             left out of the analyses
--    9.40 ms  K3 launched (9.50-10.50); 10.60 ms K4 (10.60-12.00); 12.10 ms a device sync,
--             12.10-12.20
--   13.50 ms  a stream sync to 15.00 ms, across the second stretch's start: whatever it waited
--             for has no records (work in flight at a hand-over loses them), left out: no
--             sync.redundant "remove it"
--   14.50 ms  a launch in the second stretch, left out
-- The ledger: not_recorded 5.00 ms in the span and 2.00 ms after it (14.00-16.00), none of it
-- idle; after_gpu 12.00-14.00.
CREATE TABLE gpu_gap(process_id INTEGER, idx INTEGER, from_ns INTEGER, to_ns INTEGER,
  PRIMARY KEY(process_id, idx));
INSERT INTO run VALUES('hand:profiler_gaps', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:profiler_gaps', 'host', 1000, 0, 0, 1, 0, 'hand GPU', 'profiler_gaps',
  'active until 4000000 (the program''s own profiler took CUPTI)', 'tsc',
  1700000000000000000, 100000, 16000000, 0, 'exit', 0, 0, 'no Python', 'active', 'off');
INSERT INTO gpu_gap VALUES(1, 0, 4000000, 9000000), (1, 1, 14000000, NULL);
INSERT INTO string VALUES(1, 1, 'K1'), (1, 2, 'K2'), (1, 3, 'K3'), (1, 4, 'K4');
INSERT INTO module VALUES(1, 1, 'profiler_gaps', 'profiler_gaps', '00');
INSERT INTO callsite VALUES(1, 1, 'sync_site+0x10 (profiler_gaps+0x1010)'),
  (1, 2, 'gap_site+0x10 (profiler_gaps+0x2010)'), (1, 3, 'end_site+0x10 (profiler_gaps+0x3010)');

-- api_call(process_id, tid, api, start_ns, end_ns, stream, event, bytes, copy_kind, mem_kind, result,
--          callsite, call_id, pystack); a launch's end is its start (the tracer does not read it)
-- cupti_api(process_id, domain, cbid, tid, start_ns, end_ns, correlation, result)
-- gpu_op(process_id, kind, device, context, stream_id, name_id, start_ns, end_ns, bytes, copy_kind,
--        src_kind, dst_kind, correlation, sync_type, event_id)
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 200000, 200000, 4096, 0, 0, 0, 0, 0, 0, 1, 0);

INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 1000000, 1000000, 4096, 0, 0, 0, 0, 0, 0, 10, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 1000100, 1005000, 10, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 1, 1010000, 2000000, 0, 0, 0, 0, 10, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 1100000, 1100000, 4096, 0, 0, 0, 0, 0, 0, 11, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 1100100, 1105000, 11, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 2, 2000000, 3000000, 0, 0, 0, 0, 11, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 1200000, 3050000, 4096, 0, 0, 0, 0, 0, 1, 12, 0);
INSERT INTO cupti_api VALUES(1, 1, 131, 100, 1200100, 3049900, 12, 0);

-- the first stretch: calls only
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 5000000, 5000000, 4096, 0, 0, 0, 0, 0, 0, 13, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 5100000, 7000000, 4096, 0, 0, 0, 0, 0, 2, 14, 0);

INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 9400000, 9400000, 4096, 0, 0, 0, 0, 0, 0, 15, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 9400100, 9405000, 15, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 3, 9500000, 10500000, 0, 0, 0, 0, 15, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 10590000, 10590000, 4096, 0, 0, 0, 0, 0, 0, 16, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 10590100, 10595000, 16, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 4, 10600000, 12000000, 0, 0, 0, 0, 16, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaDeviceSynchronize'), 12100000, 12200000, 0, 0, 0, 0, 0, 0, 3, 17, 0);
INSERT INTO cupti_api VALUES(1, 1, 165, 100, 12100100, 12199900, 17, 0);

INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 13500000, 15000000, 4096, 0, 0, 0, 0, 0, 2, 19, 0);

-- the second stretch, to the end: a launch only
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 14500000, 14500000, 4096, 0, 0, 0, 0, 0, 0, 18, 0);
