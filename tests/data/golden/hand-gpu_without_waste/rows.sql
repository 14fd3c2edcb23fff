-- hand-gpu_without_waste: hand-stalled_gpus with GPU 1's four stage1 kernels made one that runs
-- from the first step to the end: one process, two GPUs, GPU 0 idle 5 ms a step (gpu.idle), GPU 1
-- never idle, so no finding charges it a piece of its time.  Its ledger's pieces were then none
-- (a NULL array) and their sort copied 0 bytes into it: undefined behaviour the sanitizers stop
-- the report for (seen in a live multi_gpu run under them).  Times in ns; one clock.
INSERT INTO run VALUES('hand:gpu_without_waste', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:gpu_without_waste', 'host', 1000, 0, 0, 1, 0, 'hand GPU', 'stalled_gpus', 'active', 'tsc',
  1700000000000000000, 100000, 40000000, 0, 'exit', 0, 0, 'no Python', 'active', 'off');
INSERT INTO string VALUES(1, 1, 'stage0'), (1, 2, 'stage1');
INSERT INTO module VALUES(1, 1, 'stalled_gpus', 'stalled_gpus', '00');
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 200000, 200000, 4096, 0, 0, 0, 0, 0, 0, 1, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 300000, 300000, 8192, 0, 0, 0, 0, 0, 0, 2, 0);
CREATE TEMP TABLE it AS WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 3)
  SELECT i, 1000000 + 10000000 * i AS t FROM k;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), t, t, 4096, 0, 0, 0, 0, 0, 0, 10 + 4 * i, 0 FROM it;
INSERT INTO cupti_api SELECT 1, 1, 211, 100, t + 100, t + 5000, 10 + 4 * i, 0 FROM it;
INSERT INTO gpu_op SELECT 1, 1, 0, 1, 8, 1, t + 10000, t + 5010000, 0, 0, 0, 0, 10 + 4 * i, 0, 0 FROM it;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaEventRecord'), t + 10000, t + 10000, 4096, 77, 0, 0, 0, 0, 0, 11 + 4 * i, 0 FROM it;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaStreamWaitEvent'), t + 20000, t + 20000, 8192, 77, 0, 0, 0, 0, 0, 12 + 4 * i, 0 FROM it;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), t + 30000, t + 30000, 8192, 0, 0, 0, 0, 0, 0, 13 + 4 * i, 0 FROM it;
INSERT INTO cupti_api SELECT 1, 1, 211, 100, t + 30100, t + 35000, 13 + 4 * i, 0 FROM it;
INSERT INTO gpu_op VALUES(1, 1, 1, 2, 9, 2, 1040000, 39990000, 0, 0, 0, 0, 13, 0, 0);
