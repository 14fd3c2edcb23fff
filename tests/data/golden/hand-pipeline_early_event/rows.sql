-- hand-pipeline_early_event: one process, one thread (tid 100), two GPUs; an event recorded on
-- GPU 0's stream (4096, CUPTI stream 8) before GPU 1 has done anything, a device sync, then GPU 1's
-- stream (8192, CUPTI stream 9) waits for that event and runs a 5 ms kernel, while GPU 0's next
-- kernel, launched at 8 ms, starts only at 13 ms.  The wait across the GPUs is made at 7 ms, the
-- only one: from then on one GPU's queued work idle beside the other's is the pipeline's
-- (gpu.pipeline_bubble), not a stall.  Read a window at a time (cut at the sync),
-- the first window holds GPU 0's work alone and the record of the event waited for in the second:
-- the wait must still be found at 7 ms (report_windows.sh).  Times in ns; one clock.
INSERT INTO run VALUES('hand:pipeline_early_event', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:pipeline_early_event', 'host', 1000, 0, 0, 1, 0, 'hand GPU', 'pipeline_early_event', 'active', 'tsc',
  1700000000000000000, 100000, 30000000, 0, 'exit', 0, 0, 'no Python', 'active', 'off');
INSERT INTO string VALUES(1, 1, 'stage0'), (1, 2, 'stage1');
INSERT INTO module VALUES(1, 1, 'pipeline_early_event', 'pipeline_early_event', '00');
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 200000, 200000, 4096, 0, 0, 0, 0, 0, 0, 1, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 300000, 300000, 8192, 0, 0, 0, 0, 0, 0, 2, 0);
-- GPU 0's first kernel, and the event recorded after it
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 1000000, 1005000, 4096, 0, 0, 0, 0, 0, 0, 10, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 1000100, 1005000, 10, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 1, 1010000, 6010000, 0, 0, 0, 0, 10, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaEventRecord'), 1020000, 1020000, 4096, 77, 0, 0, 0, 0, 0, 11, 0);
-- the device sync: a moment with nothing in flight
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaDeviceSynchronize'), 6500000, 6520000, 0, 0, 0, 0, 0, 0, 0, 12, 0);
-- GPU 1 waits for the event and runs; GPU 0's next kernel, queued at 8.2 ms, starts at 13 ms
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamWaitEvent'), 7000000, 7000000, 8192, 77, 0, 0, 0, 0, 0, 20, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 7010000, 7015000, 8192, 0, 0, 0, 0, 0, 0, 21, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 7010100, 7015000, 21, 0);
INSERT INTO gpu_op VALUES(1, 1, 1, 2, 9, 2, 7020000, 12020000, 0, 0, 0, 0, 21, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 8000000, 8005000, 4096, 0, 0, 0, 0, 0, 0, 24, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 8000100, 8005000, 24, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 1, 13010000, 18010000, 0, 0, 0, 0, 24, 0, 0);
-- the end waited for
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaDeviceSynchronize'), 8100000, 18030000, 0, 0, 0, 0, 0, 0, 0, 25, 0);
