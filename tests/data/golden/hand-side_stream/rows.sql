-- hand-side_stream: one process, one thread (tid 100), one GPU, two streams: A (handle 4096, CUPTI
-- stream 8) runs the loop, B (8192, stream 9) work of its own.  Before the loop a side kernel is
-- launched on B at 1.00 ms; it runs 1.01-9.50 ms, through most of the loop, which never waits
-- for it.  Then 8 steps, NVTX ranges "train_step" of 0.95 ms every 1.00 ms from 2.00 ms, each a
-- 0.88 ms kernel on A and a stream sync of A.  After the loop, a device sync at 12.00 ms, then an
-- eval kernel launched on B at 12.50 ms that starts at 17.00 ms (the GPU held by what the graph
-- does not see) and a device sync that waits for it.  Pins down the what-if's steps' time: the
-- work before the loop on a stream the steps never use holds no step back (0.994 ms a step, the
-- loop's own; counted from the side kernel's end it was 0.056, and all fixed 0.882 "slower"),
-- and the GPU starts the replay cannot explain are those of the steps only (none: the eval
-- kernel's 4.3 ms after the loop made it 0.537 ms a step).  Times in ns; one clock.
INSERT INTO run VALUES('hand:side_stream', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:side_stream', 'host', 1000, 0, 0, 1, 0, 'hand GPU', 'side_stream', 'active', 'tsc',
  1700000000000000000, 500000, 20000000, 0, 'exit', 0, 0, 'no Python', 'active', 'off');
INSERT INTO string VALUES(1, 1, 'side_kernel'), (1, 2, 'step_kernel'), (1, 3, 'train_step');
INSERT INTO module VALUES(1, 1, 'side_stream', 'side_stream', '00');
INSERT INTO callsite VALUES(1, 1, 'init_site+0x10 (side_stream+0x1010)'),
  (1, 2, 'step_site+0x10 (side_stream+0x2010)'), (1, 3, 'drain_site+0x10 (side_stream+0x3010)');
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreateWithFlags'), 600000, 600000, 4096, 0, 0, 0, 1, 0, 0, 1, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreateWithFlags'), 610000, 610000, 8192, 0, 0, 0, 1, 0, 0, 3, 0);
-- the side kernel on stream B: 1.01-9.50 ms
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 1000000, 1000000, 8192, 1, 0, 0, 0, 0, 1, 2, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 1000100, 1005000, 2, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 9, 1, 1010000, 9500000, 0, 0, 0, 0, 2, 0, 0);
-- 8 steps at 2.00 + 1.0k ms, 0.95 ms long; kernel 0.02-0.90 in; a sync 0.01..0.92 in
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 7)
INSERT INTO nvtx_range SELECT 1, 100, 1, 0, 3, 0, 2000000 + 1000000 * i, 2950000 + 1000000 * i, 0, NULL, NULL FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 7)
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 2010000 + 1000000 * i,
  2010000 + 1000000 * i, 4096, 2, 0, 0, 0, 0, 2, 10 + i, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 7)
INSERT INTO cupti_api SELECT 1, 1, 211, 100, 2010100 + 1000000 * i, 2015000 + 1000000 * i, 10 + i, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 7)
INSERT INTO gpu_op SELECT 1, 1, 0, 1, 8, 2, 2020000 + 1000000 * i, 2900000 + 1000000 * i, 0, 0, 0, 0, 10 + i, 0, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 7)
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 2020000 + 1000000 * i,
  2910000 + 1000000 * i, 4096, 0, 0, 0, 0, 0, 3, 100 + i, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 7)
INSERT INTO cupti_api SELECT 1, 1, 131, 100, 2020100 + 1000000 * i, 2909900 + 1000000 * i, 100 + i, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 7)
INSERT INTO ext_corr SELECT 1, 4611686018427387904 + 100 + i, 100 + i FROM k;
-- a final call after the loop
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaDeviceSynchronize'), 12000000, 12000100, 0, 0, 0, 0, 0, 0, 3, 200, 0);
INSERT INTO cupti_api VALUES(1, 1, 165, 100, 12000010, 12000090, 200, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 200, 200);
-- after the loop: an eval kernel launched at 12.5 ms on stream B that starts at 17 ms (GPU held by another process)
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 12500000, 12500000, 8192, 1, 0, 0, 0, 0, 1, 300, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 12500100, 12505000, 300, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 9, 1, 17000000, 18000000, 0, 0, 0, 0, 300, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaDeviceSynchronize'), 12600000, 18000100, 0, 0, 0, 0, 0, 0, 3, 301, 0);
INSERT INTO cupti_api VALUES(1, 1, 165, 100, 12600010, 18000090, 301, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 301, 301);
