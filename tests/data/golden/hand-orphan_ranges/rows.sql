-- hand-orphan_ranges: one process, one thread (tid 100), one stream (handle 24576, CUPTI stream 13).
-- 8 steps, NVTX ranges "train_step" (names in label) every 10 ms from 1 ms (t = 1 + 10 k ms, 9 ms
-- long), each holding a "forward" range (t + 0.5 ms, 6 ms) and a 4 ms kernel launched at t + 1 ms;
-- then two "forward" ranges at top level (81.5 and 91.5 ms), as a monitor's window leaves the
-- children of a step whose own range it lacks (collector/monitor.c: the step ended in its thread's
-- buffer as the window was written), with a kernel each.  Pins down the steps: the 8 train_step
-- ones.  The two forwards, numbered by their occurrence as the steps are, made iteration 1 span
-- from 1 ms to 87.5 ms, and the ledger's steps 86.5, 10 and six of 0 ms (viewer/model/ranges.c,
-- number_thread).
-- Times in ns.
INSERT INTO run VALUES('hand:orphan_ranges', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:orphan_ranges', 'host', 1001, 0, 0, 1, 0, 'hand GPU', 'orphan_ranges', 'active', 'tsc',
  1700000000000000000, 100000, 110000000, 0, 'exit', 0, 0, 'no Python', 'active', 'off');
INSERT INTO string VALUES(1, 1, 'compute');
INSERT INTO label VALUES(1, 3, 'train_step'), (1, 4, 'forward');
INSERT INTO module VALUES(1, 1, 'orphan_ranges', 'orphan_ranges', '00');
INSERT INTO callsite VALUES(1, 1, 'fwd_site+0x10 (orphan_ranges+0x1010)');
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreateWithFlags'), 600000, 600000,
  24576, 0, 0, 0, 1, 0, 0, 1, 0);

-- the steps (i = 0..7) and the two forwards alone (i = 8, 9); the launch's call id 10 + i
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 7), s(i, t) AS (SELECT i, 1000000 + 10000000 * i FROM k)
INSERT INTO nvtx_range SELECT 1, 100, 1, 0, 3, 0, t, t + 9000000, 0, NULL, NULL FROM s;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9), s(i, t) AS (SELECT i, 1000000 + 10000000 * i FROM k)
INSERT INTO nvtx_range SELECT 1, 100, 1, 0, 4, 0, t + 500000, t + 6500000, CASE WHEN i < 8 THEN 1 ELSE 0 END, NULL, NULL
  FROM s;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9), s(i, t) AS (SELECT i, 1000000 + 10000000 * i FROM k)
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), t + 1000000, t + 1000000,
  24576, 0, 0, 0, 0, 0, 1, 10 + i, 0 FROM s;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9), s(i, t) AS (SELECT i, 1000000 + 10000000 * i FROM k)
INSERT INTO cupti_api SELECT 1, 1, 211, 100, t + 1000100, t + 1005000, 10 + i, 0 FROM s;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9), s(i, t) AS (SELECT i, 1000000 + 10000000 * i FROM k)
INSERT INTO gpu_op SELECT 1, 1, 0, 1, 13, 1, t + 1020000, t + 5020000, 0, 0, 0, 0, 10 + i, 0, 0 FROM s;
