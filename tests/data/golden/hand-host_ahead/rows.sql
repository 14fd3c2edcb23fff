-- hand-host_ahead: one process, one thread (tid 100), one GPU, a loop whose host runs ahead of
-- its GPU from the start.  A 10 ms kernel (init_kernel) is launched at 1.00 ms (it runs
-- 1.01-11.01 ms); then 8 steps, each an NVTX range "train_step" of 0.05 ms starting every
-- 0.10 ms from 2.00 ms, each launching a 1 ms kernel (step_kernel) on the same stream: they run
-- back to back behind the init kernel, 11.01-19.01 ms; a stream sync from 2.80 ms waits for
-- them.  The steps' time is from the later of the first step's start and the end of the GPU
-- work enqueued before it (11.01 ms) to the end of the last step's work: 1.00 ms a step.  Counted
-- from the first step's start instead, the init kernel's 9 ms in the loop made it 2.13 ms.
-- Times in ns; one clock.  Stream A is handle 4096 (CUPTI stream 8).
INSERT INTO run VALUES('hand:host_ahead', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:host_ahead', 'host', 1000, 0, 0, 1, 0, 'hand GPU', 'host_ahead', 'active', 'tsc',
  1700000000000000000, 500000, 20000000, 0, 'exit', 0, 0, 'no Python', 'active', 'off');
INSERT INTO string VALUES(1, 1, 'init_kernel'), (1, 2, 'step_kernel'), (1, 3, 'train_step');
INSERT INTO module VALUES(1, 1, 'host_ahead', 'host_ahead', '00');
INSERT INTO callsite VALUES(1, 1, 'init_site+0x10 (host_ahead+0x1010)'),
  (1, 2, 'step_site+0x10 (host_ahead+0x2010)'), (1, 3, 'drain_site+0x10 (host_ahead+0x3010)');

-- api_call(process_id, tid, api, start_ns, end_ns, stream, event, bytes, copy_kind, mem_kind, result,
--          callsite, call_id, pystack); a launch's end is its start (the tracer does not read it)
-- cupti_api(process_id, domain, cbid, tid, start_ns, end_ns, correlation, result)
-- gpu_op(process_id, kind, device, context, stream_id, name_id, start_ns, end_ns, bytes, copy_kind,
--        src_kind, dst_kind, correlation, sync_type, event_id)
-- nvtx_range(process_id, tid, kind, domain, name, category, start_ns, end_ns, depth, range_id, payload)

-- the stream, non-blocking (flags 1)
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreateWithFlags'), 600000, 600000, 4096, 0, 0, 0, 1, 0, 0, 1, 0);

-- the init kernel: 1.01-11.01 ms
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 1000000, 1000000, 4096, 1, 0, 0, 0, 0, 1, 2, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 1000100, 1005000, 2, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 1, 1010000, 11010000, 0, 0, 0, 0, 2, 0, 0);

-- the 8 steps (k = 0..7): a range at 2.00 + 0.10 k ms, its launch 0.01 ms in, its kernel
-- 11.01 + k to 12.01 + k ms
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 7)
INSERT INTO nvtx_range SELECT 1, 100, 1, 0, 3, 0, 2000000 + 100000 * i, 2050000 + 100000 * i, 0, NULL, NULL FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 7)
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 2010000 + 100000 * i,
  2010000 + 100000 * i, 4096, 2, 0, 0, 0, 0, 2, 10 + i, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 7)
INSERT INTO cupti_api SELECT 1, 1, 211, 100, 2010100 + 100000 * i, 2015000 + 100000 * i, 10 + i, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 7)
INSERT INTO gpu_op SELECT 1, 1, 0, 1, 8, 2, 11010000 + 1000000 * i, 12010000 + 1000000 * i, 0, 0, 0, 0, 10 + i, 0, 0 FROM k;

-- the drain: a stream sync 2.80-19.012 ms
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 2800000, 19012000, 4096, 0, 0, 0, 0, 0, 3, 20, 0);
INSERT INTO cupti_api VALUES(1, 1, 131, 100, 2800100, 19011900, 20, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 20, 20);
