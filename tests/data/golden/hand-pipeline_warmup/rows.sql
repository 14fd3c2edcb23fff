-- hand-pipeline_warmup: one process, one thread (tid 100), two GPUs: a warm-up of each GPU's own
-- kernels, no event between them, then a pipeline through an event.  The warm-up's 8 kernels
-- (2 ms each; GPU 0's, stream 4096, CUPTI stream 8, at 1, 7, 13, 19 ms; GPU 1's, stream 8192,
-- CUPTI stream 9, at 4, 10, 16, 22 ms) are all launched from 0.50 ms, 10 us apart: each GPU
-- idles 4 ms between its own with work queued (gpu.stalled), 1 ms of it while the other GPU
-- works.  A device sync (24.00-24.02), then 3 steps from 26 ms, one every 12 ms: stage0 on GPU 0,
-- stage1 on GPU 1 waiting for it through event 77 (the process's first wait across its GPUs),
-- 5 ms each.  A GPU's queued work beside another's is a pipeline's bubble only from that wait
-- on: the warm-up's stalls were gpu.pipeline_bubble read whole (the wait seen first), and
-- gpu.stalled read a window at a time (tests/e2e/report_windows.sh: cut after the sync).
-- Times in ns; one clock.
INSERT INTO run VALUES('hand:pipeline_warmup', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:pipeline_warmup', 'host', 1000, 0, 0, 1, 0, 'hand GPU', 'pipeline_warmup', 'active', 'tsc',
  1700000000000000000, 100000, 62000000, 0, 'exit', 0, 0, 'no Python', 'active', 'off');
INSERT INTO string VALUES(1, 1, 'stage0'), (1, 2, 'stage1'), (1, 3, 'warmup');
INSERT INTO module VALUES(1, 1, 'pipeline_warmup', 'pipeline_warmup', '00');
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 200000, 200000, 4096, 0, 0, 0, 0, 0, 0, 1, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 300000, 300000, 8192, 0, 0, 0, 0, 0, 0, 2, 0);
-- the warm-up: kernel k (0-7) on GPU k % 2, launched at 0.50 ms + 10 us k, call id 10 + k
CREATE TEMP TABLE wu AS WITH RECURSIVE n(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM n WHERE k < 7)
  SELECT k, k % 2 AS dev, 500000 + 10000 * k AS t, 1000000 + 6000000 * (k / 2) + 3000000 * (k % 2) AS s,
  10 + k AS c FROM n;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), t, t, 4096 * (dev + 1), 0, 0, 0, 0, 0, 0, c, 0 FROM wu;
INSERT INTO cupti_api SELECT 1, 1, 211, 100, t + 100, t + 5000, c, 0 FROM wu;
INSERT INTO gpu_op SELECT 1, 1, dev, dev + 1, 8 + dev, 3, s, s + 2000000, 0, 0, 0, 0, c, 0, 0 FROM wu;
-- the warm-up waited for (nothing in flight after it: the report may cut the rank there)
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaDeviceSynchronize'), 24000000, 24020000, 0, 0, 0, 0, 0, 0, 0, 30, 0);
-- the pipeline: step i at t(i), call ids 100 + 10 i on
CREATE TEMP TABLE it AS WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 2)
  SELECT i, 26000000 + 12000000 * i AS t, 100 + 10 * i AS c FROM n;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), t, t, 4096, 0, 0, 0, 0, 0, 0, c, 0 FROM it;
INSERT INTO cupti_api SELECT 1, 1, 211, 100, t + 100, t + 5000, c, 0 FROM it;
INSERT INTO gpu_op SELECT 1, 1, 0, 1, 8, 1, t + 10000, t + 5010000, 0, 0, 0, 0, c, 0, 0 FROM it;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaEventRecord'), t + 10000, t + 10000, 4096, 77, 0, 0, 0, 0, 0, c + 1, 0 FROM it;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaStreamWaitEvent'), t + 20000, t + 20000, 8192, 77, 0, 0, 0, 0, 0, c + 2, 0 FROM it;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), t + 30000, t + 30000, 8192, 0, 0, 0, 0, 0, 0, c + 3, 0 FROM it;
INSERT INTO cupti_api SELECT 1, 1, 211, 100, t + 30100, t + 35000, c + 3, 0 FROM it;
INSERT INTO gpu_op SELECT 1, 1, 1, 2, 9, 2, t + 5010000, t + 10000000, 0, 0, 0, 0, c + 3, 0, 0 FROM it;
