-- hand-syncs: one process, one thread (tid 100), on one GPU: the host syncs
-- of DESIGN.md's "The analyses", each placed by hand (times in ns; every
-- CUPTI record where its call is: the two clocks agree).  Stream A is
-- handle 4096 (CUPTI stream 8), B 8192 (stream 9); the legacy default
-- stream is handle 0 (stream 7).  Blocking calls are joined to their
-- CUPTI record by ext_corr (their call_id with bit 62 set), the others by
-- time.  What each part pins down:
--   1. 1.00 ms  a stream sync with pending work (a 2 ms kernel) and no
--      device-to-host copy: sync.no_consumer
--   2. 3.10 ms  a stream sync with nothing pending: sync.redundant
--   3. 4.00 ms and 7.00 ms  a 4-byte device-to-host copy after a kernel,
--      then a stream sync, twice at one call site: sync.scalar_read, its
--      cost the GPU idle time after each (the host spins 1 ms)
--   4. 10.0 ms and 13.0 ms  a blocking 1 MiB cudaMemcpy from the device
--      into pinned memory on the legacy stream behind a 1 ms kernel,
--      twice at one call site: sync.implicit
--   5. 16.0 ms  a device sync while a 3 ms kernel runs on B and a 64 KiB
--      copy to the host ends on A at 16.6 ms: sync.device_wide, the wait
--      beyond A's last pending operation
--   6. 20.0 ms  a blocking 1 MiB copy from pageable memory: copy.pageable
INSERT INTO run VALUES('hand:syncs', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:syncs', 'host', 1000, 0, 0, 1, 0, 'hand GPU', 'syncs', 'active', 'tsc',
  1700000000000000000, 1000000, 23000000, 0, 'exit', 0, 0, 'no Python', 'no NVTX calls seen', 'off');
INSERT INTO string VALUES(1, 1, 'compute_kernel'), (1, 2, 'loss_kernel'), (1, 3, 'decode_kernel');
INSERT INTO module VALUES(1, 1, 'syncs', 'syncs', '00');
INSERT INTO callsite VALUES(1, 1, 'no_consumer_site+0x10 (syncs+0x1010)'),
  (1, 2, 'redundant_site+0x10 (syncs+0x2010)'), (1, 3, 'scalar_read_site+0x10 (syncs+0x3010)'),
  (1, 4, 'implicit_site+0x10 (syncs+0x4010)'), (1, 5, 'device_wide_site+0x10 (syncs+0x5010)'),
  (1, 6, 'pageable_site+0x10 (syncs+0x6010)');

-- api_call(process_id, tid, api, start_ns, end_ns, stream, event, bytes, copy_kind, mem_kind, result,
--          callsite, call_id, pystack); a launch's end is its start (the tracer does not read it)
-- cupti_api(process_id, domain, cbid, tid, start_ns, end_ns, correlation, result)
-- gpu_op(process_id, kind, device, context, stream_id, name_id, start_ns, end_ns, bytes, copy_kind,
--        src_kind, dst_kind, correlation, sync_type, event_id)

-- the streams, made blocking (flags 0)
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 1100000, 1100000, 4096, 0, 0, 0, 0, 0, 0, 1, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 1200000, 1200000, 8192, 0, 0, 0, 0, 0, 0, 2, 0);

-- 1. no_consumer: kernel on A 1.01-3.01 ms, its stream sync 1.02-3.012 ms
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 1000000, 1000000, 4096, 1, 0, 0, 0, 0, 0, 3, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 1000100, 1005000, 3, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 1, 1010000, 3010000, 0, 0, 0, 0, 3, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 1020000, 3012000, 4096, 0, 0, 0, 0, 0, 1, 4, 0);
INSERT INTO cupti_api VALUES(1, 1, 131, 100, 1020100, 3011900, 4, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 4, 4);

-- 2. redundant: A idle since 3.01 ms
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 3100000, 3102000, 4096, 0, 0, 0, 0, 0, 2, 5, 0);
INSERT INTO cupti_api VALUES(1, 1, 131, 100, 3100100, 3101900, 5, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 5, 5);

-- 3. scalar_read, twice: a 0.5 ms kernel, a 4-byte copy to pinned memory behind it, the sync
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 4000000, 4000000, 4096, 2, 0, 0, 0, 0, 0, 6, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 4000100, 4005000, 6, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 2, 4010000, 4510000, 0, 0, 0, 0, 6, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaMemcpyAsync'), 4006000, 4008000, 4096, 0, 4, 2, 2, 0, 0, 7, 0);
INSERT INTO cupti_api VALUES(1, 1, 41, 100, 4006100, 4007900, 7, 0);
INSERT INTO gpu_op VALUES(1, 2, 0, 1, 8, 0, 4510000, 4512000, 4, 2, 3, 2, 7, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 4010000, 4513000, 4096, 0, 0, 0, 0, 0, 3, 8, 0);
INSERT INTO cupti_api VALUES(1, 1, 131, 100, 4010100, 4512900, 8, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 8, 8);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 7000000, 7000000, 4096, 2, 0, 0, 0, 0, 0, 9, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 7000100, 7005000, 9, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 2, 7010000, 7510000, 0, 0, 0, 0, 9, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaMemcpyAsync'), 7006000, 7008000, 4096, 0, 4, 2, 2, 0, 0, 10, 0);
INSERT INTO cupti_api VALUES(1, 1, 41, 100, 7006100, 7007900, 10, 0);
INSERT INTO gpu_op VALUES(1, 2, 0, 1, 8, 0, 7510000, 7512000, 4, 2, 3, 2, 10, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 7010000, 7513000, 4096, 0, 0, 0, 0, 0, 3, 11, 0);
INSERT INTO cupti_api VALUES(1, 1, 131, 100, 7010100, 7512900, 11, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 11, 11);

-- 4. implicit, twice: a 1 ms kernel on the legacy stream, a blocking 1 MiB copy to pinned memory behind it
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 10000000, 10000000, 0, 1, 0, 0, 0, 0, 0, 12, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 10000100, 10005000, 12, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 7, 1, 10010000, 11010000, 0, 0, 0, 0, 12, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaMemcpy'), 10006000, 11110000, 0, 0, 1048576, 2, 2, 0, 4, 13, 0);
INSERT INTO cupti_api VALUES(1, 1, 31, 100, 10006100, 11109900, 13, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 13, 13);
INSERT INTO gpu_op VALUES(1, 2, 0, 1, 7, 0, 11010000, 11105000, 1048576, 2, 3, 2, 13, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 13000000, 13000000, 0, 1, 0, 0, 0, 0, 0, 14, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 13000100, 13005000, 14, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 7, 1, 13010000, 14010000, 0, 0, 0, 0, 14, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaMemcpy'), 13006000, 14110000, 0, 0, 1048576, 2, 2, 0, 4, 15, 0);
INSERT INTO cupti_api VALUES(1, 1, 31, 100, 13006100, 14109900, 15, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 15, 15);
INSERT INTO gpu_op VALUES(1, 2, 0, 1, 7, 0, 14010000, 14105000, 1048576, 2, 3, 2, 15, 0, 0);

-- 5. device_wide: a 3 ms kernel on B, a 0.5 ms kernel and a 64 KiB copy to the host on A, the device sync
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 16000000, 16000000, 8192, 3, 0, 0, 0, 0, 0, 16, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 16000100, 16005000, 16, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 9, 3, 16010000, 19010000, 0, 0, 0, 0, 16, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 16006000, 16006000, 4096, 1, 0, 0, 0, 0, 0, 17, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 16006100, 16009000, 17, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 1, 16020000, 16520000, 0, 0, 0, 0, 17, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaMemcpyAsync'), 16010000, 16012000, 4096, 0, 65536, 2, 2, 0, 0, 18, 0);
INSERT INTO cupti_api VALUES(1, 1, 41, 100, 16010100, 16011900, 18, 0);
INSERT INTO gpu_op VALUES(1, 2, 0, 1, 8, 0, 16520000, 16600000, 65536, 2, 3, 2, 18, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaDeviceSynchronize'), 16020000, 19012000, 0, 0, 0, 0, 0, 0, 5, 19, 0);
INSERT INTO cupti_api VALUES(1, 1, 165, 100, 16020100, 19011900, 19, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 19, 19);

-- 6. pageable: a blocking 1 MiB copy from pageable memory to the device, nothing pending
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaMemcpy'), 20000000, 20400000, 0, 0, 1048576, 1, 1, 0, 6, 20, 0);
INSERT INTO cupti_api VALUES(1, 1, 31, 100, 20000100, 20399900, 20, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 20, 20);
INSERT INTO gpu_op VALUES(1, 2, 0, 1, 7, 0, 20010000, 20390000, 1048576, 1, 1, 3, 20, 0, 0);
