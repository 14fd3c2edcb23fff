-- hand-pipeline_three: one process, one thread (tid 100), three GPUs.  First GPU 0 alone runs
-- 4 warm-up kernels (5 ms each, 1 ms apart) and the host waits for them, then a pipeline of 4 steps, one every 15 ms from
-- 30 ms: stage0 on GPU 0 (stream 4096, CUPTI stream 8), stage1 on GPU 1 (8192, 9) waiting for
-- it through event 77, stage2 on GPU 2 (12288, 10) waiting for stage1 through event 78; each
-- stage 5 ms, each step's calls at its start, no sync.  GPU 1 and GPU 2 sit idle with their
-- stage queued while the stage before runs (gpu.pipeline_bubble, GPU 2's beside GPU 1's: their
-- pieces of the process's time given once); GPU 0 idles 10 ms a step, its next stage not yet
-- launched (gpu.idle).  Read a window at a time (tests/e2e/report_windows.sh), the first windows
-- hold GPU 0's work alone.  Times in ns; one clock.
INSERT INTO run VALUES('hand:pipeline_three', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:pipeline_three', 'host', 1000, 0, 0, 1, 0, 'hand GPU', 'pipeline_three', 'active', 'tsc',
  1700000000000000000, 100000, 100000000, 0, 'exit', 0, 0, 'no Python', 'active', 'off');
INSERT INTO string VALUES(1, 1, 'stage0'), (1, 2, 'stage1'), (1, 3, 'stage2'), (1, 4, 'warmup');
INSERT INTO module VALUES(1, 1, 'pipeline_three', 'pipeline_three', '00');
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 200000, 200000, 4096, 0, 0, 0, 0, 0, 0, 1, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 300000, 300000, 8192, 0, 0, 0, 0, 0, 0, 2, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 400000, 400000, 12288, 0, 0, 0, 0, 0, 0, 3, 0);
-- the warm-up, GPU 0 alone
CREATE TEMP TABLE wu AS WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 3)
  SELECT i, 1000000 + 6000000 * i AS t FROM k;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), t, t, 4096, 0, 0, 0, 0, 0, 0, 4 + i, 0 FROM wu;
INSERT INTO cupti_api SELECT 1, 1, 211, 100, t + 100, t + 5000, 4 + i, 0 FROM wu;
INSERT INTO gpu_op SELECT 1, 1, 0, 4, 8, 1, t + 10000, t + 5010000, 0, 0, 0, 0, 4 + i, 0, 0 FROM wu;
-- the warm-up waited for (a moment with nothing in flight: the report may cut the rank there)
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaDeviceSynchronize'), 24000000, 24020000, 0, 0, 0, 0, 0, 0, 0, 8, 0);
-- the pipeline
CREATE TEMP TABLE it AS WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 3)
  SELECT i, 30000000 + 15000000 * i AS t, 10 + 8 * i AS c FROM k;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), t, t, 4096, 0, 0, 0, 0, 0, 0, c, 0 FROM it;
INSERT INTO cupti_api SELECT 1, 1, 211, 100, t + 100, t + 5000, c, 0 FROM it;
INSERT INTO gpu_op SELECT 1, 1, 0, 1, 8, 1, t + 10000, t + 5010000, 0, 0, 0, 0, c, 0, 0 FROM it;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaEventRecord'), t + 10000, t + 10000, 4096, 77, 0, 0, 0, 0, 0, c + 1, 0 FROM it;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaStreamWaitEvent'), t + 20000, t + 20000, 8192, 77, 0, 0, 0, 0, 0, c + 2, 0 FROM it;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), t + 30000, t + 30000, 8192, 0, 0, 0, 0, 0, 0, c + 3, 0 FROM it;
INSERT INTO cupti_api SELECT 1, 1, 211, 100, t + 30100, t + 35000, c + 3, 0 FROM it;
INSERT INTO gpu_op SELECT 1, 1, 1, 2, 9, 2, t + 5010000, t + 10000000, 0, 0, 0, 0, c + 3, 0, 0 FROM it;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaEventRecord'), t + 40000, t + 40000, 8192, 78, 0, 0, 0, 0, 0, c + 4, 0 FROM it;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaStreamWaitEvent'), t + 45000, t + 45000, 12288, 78, 0, 0, 0, 0, 0, c + 5, 0 FROM it;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), t + 50000, t + 50000, 12288, 0, 0, 0, 0, 0, 0, c + 6, 0 FROM it;
INSERT INTO cupti_api SELECT 1, 1, 211, 100, t + 50100, t + 55000, c + 6, 0 FROM it;
INSERT INTO gpu_op SELECT 1, 1, 2, 3, 10, 3, t + 10000000, t + 15000000, 0, 0, 0, 0, c + 6, 0, 0 FROM it;
