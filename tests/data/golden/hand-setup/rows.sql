-- hand-setup: one process, one thread (tid 100), one GPU, one stream (handle 4096, CUPTI stream
-- 8): CUDA set-up holding the host while the GPU idles (host.setup), and what is no GPU time lost.
-- 40 iterations of a 0.5 ms kernel (launched at t, run t + 0.01 to t + 0.51 ms) and a stream sync
-- with nothing pending (t + 0.60 to t + 0.61: sync.redundant; where a rank read a window at a
-- time may be cut).  Times in ns; one clock.
--   0.30 -  5.30 ms  cudaFree at set-up site 5, before the first GPU work: none lost
--   6.00 - 15.61 ms  iterations 0-9, t = 6.00 + k ms
--  16.10 - 58.10 ms  six set-up calls at site 6, the GPU idle: cudaMalloc 10 ms, cudaHostAlloc 9,
--                    cudaMallocHost 8, cudaHostRegister 7, cudaMallocManaged 6, cudaSetDevice 2:
--                    host.setup, the five longest by API (cudaSetDevice in the totals only)
--  59.00 - 78.61 ms  iterations 10-29, t = 59.00 + (k - 10) ms
--  79.00 - 83.00 ms  a cudaMalloc at site 7, the GPU idle: host.setup, 4 ms (also read a window
--                    at a time, with a cut between it and the next GPU work)
--  84.00 - 93.61 ms  iterations 30-39, t = 84.00 + (k - 30) ms
--  94.00 - 99.00 ms  cudaFree at site 8, after the last GPU work: none lost
--  17.00 - 20.00 ms  on another thread (tid 200, site 9), a cudaEventQuery blocked behind the
--                    cudaMalloc (the driver's lock, as PyTorch's NCCL watchdog's is): no finding
INSERT INTO run VALUES('hand:setup', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:setup', 'host', 1000, 0, 0, 1, 0, 'hand GPU', 'setup', 'active', 'tsc',
  1700000000000000000, 100000, 100000000, 0, 'exit', 0, 0, 'no Python', 'active', 'off');
INSERT INTO string VALUES(1, 1, 'fwd');
INSERT INTO module VALUES(1, 1, 'setup', 'setup', '00');
INSERT INTO callsite VALUES(1, 1, 'step_site+0x10 (setup+0x1010)'), (1, 2, 'sync_site+0x10 (setup+0x2010)'),
  (1, 5, 'init_site+0x10 (setup+0x5010)'), (1, 6, 'alloc_site+0x10 (setup+0x6010)'),
  (1, 7, 'grow_site+0x10 (setup+0x7010)'), (1, 8, 'exit_site+0x10 (setup+0x8010)'),
  (1, 9, 'watchdog_site+0x10 (setup+0x9010)');

-- api_call(process_id, tid, api, start_ns, end_ns, stream, event, bytes, copy_kind, mem_kind, result,
--          callsite, call_id, pystack); a launch's end is its start (the tracer does not read it)
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreateWithFlags'), 200000, 200000, 4096, 0, 0, 0, 1, 0, 0, 1, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaFree'), 300000, 5300000, 0, 0, 0, 0, 0, 0, 5, 2, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaMalloc'), 16100000, 26100000, 0, 0, 1048576, 0, 0, 0, 6, 3, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaHostAlloc'), 26100000, 35100000, 0, 0, 1048576, 0, 0, 0, 6, 4, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaMallocHost'), 35100000, 43100000, 0, 0, 1048576, 0, 0, 0, 6, 5, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaHostRegister'), 43100000, 50100000, 0, 0, 1048576, 0, 0, 0, 6, 6, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaMallocManaged'), 50100000, 56100000, 0, 0, 1048576, 0, 0, 0, 6, 7, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaSetDevice'), 56100000, 58100000, 0, 0, 0, 0, 0, 0, 6, 8, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaMalloc'), 79000000, 83000000, 0, 0, 1048576, 0, 0, 0, 7, 9, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaFree'), 94000000, 99000000, 0, 0, 0, 0, 0, 0, 8, 10, 0);
INSERT INTO api_call VALUES(1, 200, (SELECT id FROM api WHERE name = 'cudaEventQuery'), 17000000, 20000000, 0, 0, 0, 0, 0, 600, 9, 11, 0);

-- the iterations: t(k); call ids 100 + 2k (the launch, the correlation of its CUPTI record and
-- kernel), 101 + 2k (the sync, joined to its CUPTI record by ext_corr)
CREATE TEMP TABLE it AS WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 39)
  SELECT i, CASE WHEN i < 10 THEN 6000000 + 1000000 * i WHEN i < 30 THEN 59000000 + 1000000 * (i - 10)
                 ELSE 84000000 + 1000000 * (i - 30) END AS t FROM k;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), t, t, 4096, 0, 0, 0, 0, 0,
  1, 100 + 2 * i, 0 FROM it;
INSERT INTO cupti_api SELECT 1, 1, 211, 100, t + 1000, t + 5000, 100 + 2 * i, 0 FROM it;
INSERT INTO gpu_op SELECT 1, 1, 0, 1, 8, 1, t + 10000, t + 510000, 0, 0, 0, 0, 100 + 2 * i, 0, 0 FROM it;
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), t + 600000, t + 610000,
  4096, 0, 0, 0, 0, 0, 2, 101 + 2 * i, 0 FROM it;
INSERT INTO cupti_api SELECT 1, 1, 131, 100, t + 601000, t + 609000, 101 + 2 * i, 0 FROM it;
INSERT INTO ext_corr SELECT 1, 4611686018427387904 + 101 + 2 * i, 101 + 2 * i FROM it;
