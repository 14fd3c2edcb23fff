-- hand-sync_site: one process, one thread (tid 100), on one GPU: one call
-- site's cudaDeviceSynchronize after a 64 KiB copy to the host on stream
-- A (handle 4096, CUPTI stream 8) while a 2 ms kernel runs on stream B
-- (8192, stream 9), three times (times in ns; the two clocks agree;
-- blocking calls joined to their CUPTI record by ext_corr, their call_id
-- with bit 62 set):
--   1. 2.0 ms  the copy ends at 2.30 ms, before the sync begins (2.40 ms):
--      alone, the sync waited for B only and fed no read (sync.no_consumer)
--   2. 5.0 ms and 8.0 ms  the sync begins (at +0.02 ms) while the copy
--      runs to +0.30 ms: it fed the read, and waited beyond it for B
--      (sync.device_wide)
-- The site is one finding with one fix (analysis_sync.c, "one verdict per
-- call site"): sync.device_wide x3, its cost the three calls' claims
-- together: the first call's GPU idle after it (4.01 to 5.01 ms: 1.00 ms)
-- and the second and third's wait beyond the copy (5.30 to 7.012 ms and
-- 8.30 to 10.012 ms: 2 x 1.712 ms), 4.424 ms.
INSERT INTO run VALUES('hand:sync_site', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:sync_site', 'host', 1000, 0, 0, 1, 0, 'hand GPU', 'sync_site', 'active', 'tsc',
  1700000000000000000, 1000000, 12000000, 0, 'exit', 0, 0, 'no Python', 'no NVTX calls seen', 'off');
INSERT INTO string VALUES(1, 1, 'compute_kernel'), (1, 2, 'decode_kernel');
INSERT INTO module VALUES(1, 1, 'sync_site', 'sync_site', '00');
INSERT INTO callsite VALUES(1, 1, 'log_metrics+0x10 (sync_site+0x1010)');

-- api_call(process_id, tid, api, start_ns, end_ns, stream, event, bytes, copy_kind, mem_kind, result,
--          callsite, call_id, pystack); a launch's end is its start (the tracer does not read it)
-- cupti_api(process_id, domain, cbid, tid, start_ns, end_ns, correlation, result)
-- gpu_op(process_id, kind, device, context, stream_id, name_id, start_ns, end_ns, bytes, copy_kind,
--        src_kind, dst_kind, correlation, sync_type, event_id)

-- the streams, made blocking (flags 0)
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 1100000, 1100000, 4096, 0, 0, 0, 0, 0, 0, 1, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 1200000, 1200000, 8192, 0, 0, 0, 0, 0, 0, 2, 0);

-- 1. at 2.0 ms: decode on B 2.01-4.01 ms, compute on A 2.02-2.22 ms, the copy 2.22-2.30 ms, the sync 2.40-4.012 ms
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 2000000, 2000000, 8192, 2, 0, 0, 0, 0, 0, 3, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 2000100, 2005000, 3, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 9, 2, 2010000, 4010000, 0, 0, 0, 0, 3, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 2006000, 2006000, 4096, 1, 0, 0, 0, 0, 0, 4, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 2006100, 2009000, 4, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 1, 2020000, 2220000, 0, 0, 0, 0, 4, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaMemcpyAsync'), 2010000, 2012000, 4096, 0, 65536, 2, 2, 0, 0, 5, 0);
INSERT INTO cupti_api VALUES(1, 1, 41, 100, 2010100, 2011900, 5, 0);
INSERT INTO gpu_op VALUES(1, 2, 0, 1, 8, 0, 2220000, 2300000, 65536, 2, 3, 2, 5, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaDeviceSynchronize'), 2400000, 4012000, 0, 0, 0, 0, 0, 0, 1, 6, 0);
INSERT INTO cupti_api VALUES(1, 1, 165, 100, 2400100, 4011900, 6, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 6, 6);

-- 2. at 5.0 ms: the same, the sync 5.02-7.012 ms while the copy runs 5.22-5.30 ms
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 5000000, 5000000, 8192, 2, 0, 0, 0, 0, 0, 7, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 5000100, 5005000, 7, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 9, 2, 5010000, 7010000, 0, 0, 0, 0, 7, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 5006000, 5006000, 4096, 1, 0, 0, 0, 0, 0, 8, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 5006100, 5009000, 8, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 1, 5020000, 5220000, 0, 0, 0, 0, 8, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaMemcpyAsync'), 5010000, 5012000, 4096, 0, 65536, 2, 2, 0, 0, 9, 0);
INSERT INTO cupti_api VALUES(1, 1, 41, 100, 5010100, 5011900, 9, 0);
INSERT INTO gpu_op VALUES(1, 2, 0, 1, 8, 0, 5220000, 5300000, 65536, 2, 3, 2, 9, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaDeviceSynchronize'), 5020000, 7012000, 0, 0, 0, 0, 0, 0, 1, 10, 0);
INSERT INTO cupti_api VALUES(1, 1, 165, 100, 5020100, 7011900, 10, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 10, 10);

-- 3. at 8.0 ms: as at 5.0 ms
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 8000000, 8000000, 8192, 2, 0, 0, 0, 0, 0, 11, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 8000100, 8005000, 11, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 9, 2, 8010000, 10010000, 0, 0, 0, 0, 11, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 8006000, 8006000, 4096, 1, 0, 0, 0, 0, 0, 12, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 8006100, 8009000, 12, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 1, 8020000, 8220000, 0, 0, 0, 0, 12, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaMemcpyAsync'), 8010000, 8012000, 4096, 0, 65536, 2, 2, 0, 0, 13, 0);
INSERT INTO cupti_api VALUES(1, 1, 41, 100, 8010100, 8011900, 13, 0);
INSERT INTO gpu_op VALUES(1, 2, 0, 1, 8, 0, 8220000, 8300000, 65536, 2, 3, 2, 13, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaDeviceSynchronize'), 8020000, 10012000, 0, 0, 0, 0, 0, 0, 1, 14, 0);
INSERT INTO cupti_api VALUES(1, 1, 165, 100, 8020100, 10011900, 14, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 14, 14);
