-- hand-pipeline_phases: one process, one thread (tid 100), two GPUs, a pipeline read whole and a
-- window at a time alike (tests/e2e/report_windows.sh): stage0 on GPU 0 (stream 4096, CUPTI
-- stream 8), stage1 on GPU 1 (8192, 9) waiting for it through event 77, 5 ms each, a step every
-- 12 ms; two steps from 1 ms and a device sync (22.00-23.02), then GPU 1 alone runs three 2 ms
-- kernels from 25 ms, 4 ms apart, each launched 0.25 ms before it starts (queued from 0.05 ms
-- before: a launch's 0.2 ms), then a device sync (35.50-35.52), and two more steps from 37 ms.
-- Read in windows the report may cut the rank after each sync: GPU 1's phase alone in a window
-- was read as a process's one GPU, its gaps gpu.idle's to their end, where read whole they are
-- gpu.idle's up to when their work was queued (a GPU of several that wait for each other).
-- Times in ns; one clock.
INSERT INTO run VALUES('hand:pipeline_phases', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:pipeline_phases', 'host', 1000, 0, 0, 1, 0, 'hand GPU', 'pipeline_phases', 'active', 'tsc',
  1700000000000000000, 100000, 60000000, 0, 'exit', 0, 0, 'no Python', 'active', 'off');
INSERT INTO string VALUES(1, 1, 'stage0'), (1, 2, 'stage1'), (1, 3, 'eval');
INSERT INTO module VALUES(1, 1, 'pipeline_phases', 'pipeline_phases', '00');
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 200000, 200000, 4096, 0, 0, 0, 0, 0, 0, 1, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 300000, 300000, 8192, 0, 0, 0, 0, 0, 0, 2, 0);
-- the pipeline's steps: t(i), call ids c(i) on (CUPTI's ids grow with the calls' order)
CREATE TEMP TABLE it AS WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 3)
  SELECT i, CASE WHEN i < 2 THEN 1000000 + 12000000 * i ELSE 37000000 + 12000000 * (i - 2) END AS t,
  CASE WHEN i < 2 THEN 100 + 10 * i ELSE 200 + 10 * (i - 2) END AS c FROM k;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), t, t, 4096, 0, 0, 0, 0, 0, 0, c, 0 FROM it;
INSERT INTO cupti_api SELECT 1, 1, 211, 100, t + 100, t + 5000, c, 0 FROM it;
INSERT INTO gpu_op SELECT 1, 1, 0, 1, 8, 1, t + 10000, t + 5010000, 0, 0, 0, 0, c, 0, 0 FROM it;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaEventRecord'), t + 10000, t + 10000, 4096, 77, 0, 0, 0, 0, 0, c + 1, 0 FROM it;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaStreamWaitEvent'), t + 20000, t + 20000, 8192, 77, 0, 0, 0, 0, 0, c + 2, 0 FROM it;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), t + 30000, t + 30000, 8192, 0, 0, 0, 0, 0, 0, c + 3, 0 FROM it;
INSERT INTO cupti_api SELECT 1, 1, 211, 100, t + 30100, t + 35000, c + 3, 0 FROM it;
INSERT INTO gpu_op SELECT 1, 1, 1, 2, 9, 2, t + 5010000, t + 10000000, 0, 0, 0, 0, c + 3, 0, 0 FROM it;
-- the device syncs: nothing in flight after them (the report may cut the rank there)
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaDeviceSynchronize'), 22000000, 23020000, 0, 0, 0, 0, 0, 0, 0, 140, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaDeviceSynchronize'), 35500000, 35520000, 0, 0, 0, 0, 0, 0, 0, 160, 0);
-- GPU 1 alone: three kernels, each launched 0.25 ms before it starts
CREATE TEMP TABLE ev AS WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 2)
  SELECT i, 25000000 + 4000000 * i AS s, 150 + i AS c FROM k;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), s - 250000, s - 250000, 8192, 0, 0, 0, 0, 0, 0, c, 0 FROM ev;
INSERT INTO cupti_api SELECT 1, 1, 211, 100, s - 249900, s - 245000, c, 0 FROM ev;
INSERT INTO gpu_op SELECT 1, 1, 1, 2, 9, 3, s, s + 2000000, 0, 0, 0, 0, c, 0, 0 FROM ev;
