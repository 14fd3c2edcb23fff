-- late_records: rows (loaded after tests/data/golden/hand-schema.sql) of one thread (tid 100)
-- whose calls that do not block are each joined by time to CUPTI's record of them, where the
-- thread was preempted between a wrapper's clock read and the real call (its record begins late)
-- in the two ways that moved the join's voted clock offset off 0 (A, B: one clock, as our tracer
-- records it now, process.clock_source "tsc+cupti", which report_join_late.sh makes of a copy), and
-- an offset that changed (C: a file of an older tracer, as the rows are written).  Every
-- call's record has the call's call_id as its correlation; each record begins 100 ns into its
-- call and lasts 10 us unless said.  Times in ns.
--
-- A, a lone pair: 6 launches 20 us apart from 1.000 ms, an event record at 1.120 ms, launches at
-- 1.180, 1.200 and 1.220 ms; an event record at 1.260 ms whose record begins at 1.600 ms (340 us
-- late: out of the join's 250 us reach), and a launch at 1.620 ms.  The call at 1.260 ms is alone
-- in its 250 us stretch, and its one candidate is the event record at 1.120 ms's: that pair alone
-- put the offset at -140 us, and the records from 1.120 ms on (four calls') left their calls.
--
-- B, one pair off outvoting the true pairs: a launch at 2.740 ms (a stretch begins), launches every
-- 31 us from 2.783 ms to 2.969 ms, then one at 3.000 ms whose record begins at 3.164 ms (164 us
-- late), one at 3.195 ms (record 40 ns in) and one at 3.226 ms (record 441 ns in), then launches
-- every 31 us from 3.257 ms.  In the
-- stretch from 3.000 ms the three calls each pair with the record before their own at about -31
-- us, and only the last two with their own near 0 (the first's is 164 us away): 3 votes to 2.
--
-- C, an offset that changed (a file of a tracer whose two clocks' conversions could differ): launches
-- 50 us apart from 4.000 ms, an event record at 4.240 ms (record 5 us long), then from 4.250 ms,
-- a new stretch, launches 50 us apart whose records are stamped 20 us early (CUPTI's conversion
-- moved back by 20 us).  The stretch's offset, -20 us, moves the records that CUPTI stamped from
-- 4.230 ms on, the event record's among them, out of its call; its second chance, without the
-- offset, was skipped as the one its stretch had already tried, when its record had not moved by
-- that one but by the next stretch's.
INSERT INTO run VALUES('hand:late_records', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:late_records', 'host', 1000, 0, 0, 1, 0, 'hand GPU', 'late_records', 'active', 'tsc',
  1700000000000000000, 500000, 5000000, 0, 'exit', 0, 0, 'no Python', 'off', 'off');
INSERT INTO string VALUES(1, 1, 'step_kernel');

-- the calls: (call_id, API, start, the record's start and length)
CREATE TEMP TABLE c(id INTEGER, api TEXT, cbid INTEGER, start INTEGER, rstart INTEGER, rlen INTEGER);
INSERT INTO c VALUES(1, 'cudaStreamCreateWithFlags', 0, 600000, NULL, NULL);
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 5)
INSERT INTO c SELECT 10 + i, 'cudaLaunchKernel', 211, 1000000 + 20000 * i, NULL, NULL FROM k;
INSERT INTO c VALUES(16, 'cudaEventRecord', 135, 1120000, NULL, NULL),
  (17, 'cudaLaunchKernel', 211, 1180000, NULL, NULL), (18, 'cudaLaunchKernel', 211, 1200000, NULL, NULL),
  (19, 'cudaLaunchKernel', 211, 1220000, NULL, NULL), (20, 'cudaEventRecord', 135, 1260000, 1600000, NULL),
  (21, 'cudaLaunchKernel', 211, 1620000, NULL, NULL);
INSERT INTO c VALUES(30, 'cudaLaunchKernel', 211, 2740000, NULL, NULL);
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 6)
INSERT INTO c SELECT 31 + i, 'cudaLaunchKernel', 211, 2783000 + 31000 * i, NULL, NULL FROM k;
INSERT INTO c VALUES(38, 'cudaLaunchKernel', 211, 3000000, 3164000, NULL),
  (39, 'cudaLaunchKernel', 211, 3195000, 3195040, NULL), (40, 'cudaLaunchKernel', 211, 3226000, 3226441, NULL);
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 7)
INSERT INTO c SELECT 41 + i, 'cudaLaunchKernel', 211, 3257000 + 31000 * i, NULL, NULL FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 4)
INSERT INTO c SELECT 50 + i, 'cudaLaunchKernel', 211, 4000000 + 50000 * i, NULL, NULL FROM k;
INSERT INTO c VALUES(55, 'cudaEventRecord', 135, 4240000, NULL, 5000);
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 5)
INSERT INTO c SELECT 56 + i, 'cudaLaunchKernel', 211, 4250000 + 50000 * i, 4250000 + 50000 * i - 19900, NULL FROM k;

-- api_call(process_id, tid, api, start_ns, end_ns, stream, event, bytes, copy_kind, mem_kind, result,
--          callsite, call_id, pystack): none of these calls reads its end (end = start); the
-- stream is handle 4096, non-blocking, CUPTI's stream 8; events 1, 2 and 3
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = c.api), c.start, c.start, 4096,
  CASE WHEN c.api = 'cudaEventRecord' THEN 1 + (c.id = 20) + 2 * (c.id = 55) ELSE 0 END, 0, 0, c.api = 'cudaStreamCreateWithFlags',
  0, 0, c.id, 0 FROM c;
-- cupti_api(process_id, domain, cbid, tid, start_ns, end_ns, correlation, result)
INSERT INTO cupti_api SELECT 1, 1, c.cbid, 100, coalesce(c.rstart, c.start + 100),
  coalesce(c.rstart, c.start + 100) + coalesce(c.rlen, 10000), c.id, 0 FROM c WHERE c.cbid;
-- gpu_op(process_id, kind, device, context, stream_id, name_id, start_ns, end_ns, bytes, copy_kind,
--        src_kind, dst_kind, correlation, sync_type, event_id): each launch's kernel, 5 us, 50 us on
INSERT INTO gpu_op SELECT 1, 1, 0, 1, 8, 1, c.start + 50000, c.start + 55000, 0, 0, 0, 0, c.id, 0, 0
  FROM c WHERE c.api = 'cudaLaunchKernel';
DROP TABLE c;
