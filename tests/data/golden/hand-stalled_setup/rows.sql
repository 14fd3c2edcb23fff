-- hand-stalled_setup: one process, one thread (tid 100), one GPU, streams A (handle 4096, CUPTI
-- stream 8) and B (handle 8192, CUPTI stream 9): a kernel's first launch that loads its module
-- while work queued on the other stream waits (CUDA's lazy loading may hold the context).
-- Times in ns; one clock.
--    1.00 ms  K1 on A (1.01-2.00);  1.10 ms K2 on B, queued from 1.30, runs 32.00-32.50
--    1.20 ms  K3's first launch on A, its CUPTI record to 31.99 ms (module loading), K3 runs
--             32.01-33.00; then a stream sync of A, 32.10-33.10
-- The GPU idles 2.00-32.00 with K2 queued, inside the set-up call: host.setup's (29.99 ms, the
-- launch's held time less the GPU's work), claimed before gpu.stalled, which keeps what follows
-- the call (31.99-32.00, 0.01 ms); the sync after K3, sync.no_consumer 0.10 ms.  Ranked the other
-- way, gpu.stalled took 30.00 ms and host.setup's cost was 0.
INSERT INTO run VALUES('hand:stalled_setup', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:stalled_setup', 'host', 1000, 0, 0, 1, 0, 'hand GPU', 'stalled_setup', 'active', 'tsc',
  1700000000000000000, 100000, 40000000, 0, 'exit', 0, 0, 'no Python', 'active', 'off');
INSERT INTO string VALUES(1, 1, 'K1'), (1, 2, 'K2'), (1, 3, 'K3_first_launch');
INSERT INTO module VALUES(1, 1, 'stalled_setup', 'stalled_setup', '00');
INSERT INTO callsite VALUES(1, 1, 'k1_site+0x10 (stalled_setup+0x1010)'), (1, 2, 'k2_site+0x10 (stalled_setup+0x2010)'), (1, 3, 'k3_site+0x10 (stalled_setup+0x3010)');
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 200000, 200000, 4096, 0, 0, 0, 0, 0, 0, 1, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 300000, 300000, 8192, 0, 0, 0, 0, 0, 0, 2, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 1000000, 1000000, 4096, 0, 0, 0, 0, 0, 1, 10, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 1000100, 1005000, 10, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 1, 1010000, 2000000, 0, 0, 0, 0, 10, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 1100000, 1100000, 8192, 0, 0, 0, 0, 0, 2, 11, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 1100100, 1105000, 11, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 9, 2, 32000000, 32500000, 0, 0, 0, 0, 11, 0, 0);
-- the first launch of K3: the driver loads its module lazily, 30.8 ms, the context synchronised
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 1200000, 1200000, 4096, 0, 0, 0, 0, 0, 3, 12, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 1200100, 31990000, 12, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 3, 32010000, 33000000, 0, 0, 0, 0, 12, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 32100000, 33100000, 4096, 0, 0, 0, 0, 0, 1, 13, 0);
INSERT INTO cupti_api VALUES(1, 1, 131, 100, 32100100, 33099900, 13, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 13, 13);
