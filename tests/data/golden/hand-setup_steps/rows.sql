-- hand-setup_steps: one process, one thread (tid 100), one GPU, one stream (handle 4096, CUPTI
-- stream 8): set-up inside the steps and before them, and what fixing each makes of the step
-- (host.setup's what-if).  Times in ns; one clock.
--   0.50 -  1.00 ms  an init kernel (site 5)
--   1.20 -  6.20 ms  a cudaMalloc at site 4 before the steps, the GPU idle: host.setup whose fix
--                    leaves the step time as it is (set-up done once is no step's)
--   6.50 ms on       8 steps, each an NVTX range "train_step" of 4.90 ms every 5.00 ms
--                    (t = 6.50 + 5 k ms): a cudaMalloc at site 2 (t to t + 3.00, the GPU idle:
--                    host.setup), a kernel launched at t + 3.01 (site 1, run t + 3.02 to
--                    t + 4.52) and a cudaFree at site 2 that waits for it (t + 3.05 to t + 4.53:
--                    an implicit sync, not set-up).  Steps of 5.00 ms; with the allocation
--                    reused, 2.00 ms (the free still waits for the kernel: removed too, 1.50)
INSERT INTO run VALUES('hand:setup_steps', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:setup_steps', 'host', 1000, 0, 0, 1, 0, 'hand GPU', 'setup_steps', 'active', 'tsc',
  1700000000000000000, 100000, 48000000, 0, 'exit', 0, 0, 'no Python', 'active', 'off');
INSERT INTO string VALUES(1, 1, 'step_kernel'), (1, 2, 'init_kernel'), (1, 3, 'train_step');
INSERT INTO module VALUES(1, 1, 'setup_steps', 'setup_steps', '00');
INSERT INTO callsite VALUES(1, 1, 'step_site+0x10 (setup_steps+0x1010)'),
  (1, 2, 'buffer_site+0x10 (setup_steps+0x2010)'), (1, 4, 'init_alloc_site+0x10 (setup_steps+0x4010)'),
  (1, 5, 'init_site+0x10 (setup_steps+0x5010)');

-- api_call(process_id, tid, api, start_ns, end_ns, stream, event, bytes, copy_kind, mem_kind, result,
--          callsite, call_id, pystack); a launch's end is its start (the tracer does not read it)
-- cupti_api(process_id, domain, cbid, tid, start_ns, end_ns, correlation, result)
-- gpu_op(process_id, kind, device, context, stream_id, name_id, start_ns, end_ns, bytes, copy_kind,
--        src_kind, dst_kind, correlation, sync_type, event_id)
-- nvtx_range(process_id, tid, kind, domain, name, category, start_ns, end_ns, depth, range_id, payload)
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreateWithFlags'), 200000, 200000, 4096, 0, 0, 0, 1, 0, 0, 1, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 500000, 500000, 4096, 0, 0, 0, 0, 0, 5, 2, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 500100, 505000, 2, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 2, 510000, 1000000, 0, 0, 0, 0, 2, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaMalloc'), 1200000, 6200000, 0, 0, 1048576, 0, 0, 0, 4, 3, 0);

-- the steps: t(k); call ids 10 + 3k (the allocation), 11 + 3k (the launch, the correlation of
-- its CUPTI record and kernel), 12 + 3k (the free)
CREATE TEMP TABLE it AS WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 7)
  SELECT i, 6500000 + 5000000 * i AS t FROM k;
INSERT INTO nvtx_range SELECT 1, 100, 1, 0, 3, 0, t, t + 4900000, 0, NULL, NULL FROM it;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaMalloc'), t, t + 3000000, 0, 0, 1048576, 0,
  0, 0, 2, 10 + 3 * i, 0 FROM it;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), t + 3010000, t + 3010000,
  4096, 0, 0, 0, 0, 0, 1, 11 + 3 * i, 0 FROM it;
INSERT INTO cupti_api SELECT 1, 1, 211, 100, t + 3011000, t + 3015000, 11 + 3 * i, 0 FROM it;
INSERT INTO gpu_op SELECT 1, 1, 0, 1, 8, 1, t + 3020000, t + 4520000, 0, 0, 0, 0, 11 + 3 * i, 0, 0 FROM it;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaFree'), t + 3050000, t + 4530000, 0, 0, 0, 0,
  0, 0, 2, 12 + 3 * i, 0 FROM it;
