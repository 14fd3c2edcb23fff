-- hand-late_rank_steps: two ranks (processes 1 and 2), one thread each (tid 100), one stream each
-- (handle 24576, CUPTI stream 13), one communicator (777).  6 steps, NVTX ranges "train_step" every
-- 5.825 ms from 1.00 ms (t = 1.00 + 5.825 k ms), each: host code, then a 2 ms kernel launched at
-- t + 0.10 ms on rank 0 and t + 3.10 ms on rank 1 (a straggler: 3 ms more host code a step), an
-- all-reduce called 0.03 ms after it, its kernel from the rank's compute's end to t + 5.62 ms (rank
-- 0's waits for rank 1's), and a stream sync to t + 5.625 ms.  comm.straggler names rank 1; each
-- rank's sync waits for the all-reduce with no copy behind it (sync.no_consumer).  Pins down the
-- job's what-if read a window at a time (report_windows.sh): the straggler's cut is its extra host
-- time a step over its host time a step in the range, both summed over the same steps.  Read in
-- windows the host time was summed over all 6 steps and divided by the 5 the replay counts: the
-- cut 0.84 where read whole it is 1.00, and all fixed 2.561 ms a step against 2.504.  Times in ns.
INSERT INTO run VALUES('hand:late_rank_steps', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:late_rank_steps', 'host', 1001, 0, 0, 2, 0, 'hand GPU', 'late_rank_steps', 'active', 'tsc',
  1700000000000000000, 100000, 40000000, 0, 'exit', 0, 0, 'no Python', 'active', 'off'),
  (2, 'hand:late_rank_steps', 'host', 1002, 1, 1, 2, 1, 'hand GPU', 'late_rank_steps', 'active', 'tsc',
  1700000000000000000, 100000, 40000000, 0, 'exit', 0, 0, 'no Python', 'active', 'off');
INSERT INTO string VALUES(1, 1, 'compute'), (1, 2, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL'), (1, 3, 'train_step'),
  (2, 1, 'compute'), (2, 2, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL'), (2, 3, 'train_step');
INSERT INTO module VALUES(1, 1, 'late_rank_steps', 'late_rank_steps', '00'), (2, 1, 'late_rank_steps', 'late_rank_steps', '00');
INSERT INTO callsite SELECT p, 1, 'fwd_site+0x10 (late_rank_steps+0x1010)' FROM (SELECT 1 p UNION SELECT 2)
  UNION ALL SELECT p, 2, 'allreduce_site+0x10 (late_rank_steps+0x2010)' FROM (SELECT 1 p UNION SELECT 2)
  UNION ALL SELECT p, 3, 'sync_site+0x10 (late_rank_steps+0x3010)' FROM (SELECT 1 p UNION SELECT 2);

-- api_call(process_id, tid, api, start_ns, end_ns, stream, event, bytes, copy_kind, mem_kind, result,
--          callsite, call_id, pystack); a launch's end is its start (the tracer does not read it)
-- cupti_api(process_id, domain, cbid, tid, start_ns, end_ns, correlation, result)
-- gpu_op(process_id, kind, device, context, stream_id, name_id, start_ns, end_ns, bytes, copy_kind,
--        src_kind, dst_kind, correlation, sync_type, event_id)
-- collective(process_id, call_id, api, comm_id, seq, count, datatype, bytes, op, peer, rank, nranks,
--            stream, start_ns, end_ns, callsite, group_id, result, pystack)

-- each rank: its communicator, the NCCL init and its stream
INSERT INTO comm VALUES(1, 20480, 777, 0, 2, 0, 700000), (2, 20480, 777, 1, 2, 0, 700000);
INSERT INTO api_call SELECT p, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreateWithFlags'), 600000, 600000,
  24576, 0, 0, 0, 1, 0, 0, 1, 0 FROM (SELECT 1 p UNION SELECT 2);
INSERT INTO api_call SELECT p, 100, (SELECT id FROM api WHERE name = 'ncclCommInitRank'), 700000, 800000,
  0, 0, 0, 0, 0, 0, 0, 2, 0 FROM (SELECT 1 p UNION SELECT 2);

-- the steps (i = 0..5) of each rank (p 1: rank 0, e = 0; p 2: rank 1, e = 3 ms); call ids 10 + i
-- (the launch), 1000 + i (the all-reduce; its kernel's correlation 2000 + i), 3000 + i (the sync)
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 5), r(p, e) AS (VALUES (1, 0), (2, 3000000)),
  s(p, e, i, t) AS (SELECT p, e, i, 1000000 + 5825000 * i FROM k, r)
INSERT INTO nvtx_range SELECT p, 100, 1, 0, 3, 0, t, t + 5824000, 0, NULL, NULL FROM s;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 5), r(p, e) AS (VALUES (1, 0), (2, 3000000)),
  s(p, e, i, t) AS (SELECT p, e, i, 1000000 + 5825000 * i FROM k, r)
INSERT INTO api_call SELECT p, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), t + 100000 + e, t + 100000 + e,
  24576, 0, 0, 0, 0, 0, 1, 10 + i, 0 FROM s
  UNION ALL SELECT p, 100, (SELECT id FROM api WHERE name = 'ncclAllReduce'), t + 130000 + e, t + 180000 + e,
  24576, 0, 262144, 0, 0, 0, 2, 1000 + i, 0 FROM s
  UNION ALL SELECT p, 100, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), t + 190000 + e, t + 5625000,
  24576, 0, 0, 0, 0, 0, 3, 3000 + i, 0 FROM s;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 5), r(p, e) AS (VALUES (1, 0), (2, 3000000)),
  s(p, e, i, t) AS (SELECT p, e, i, 1000000 + 5825000 * i FROM k, r)
INSERT INTO cupti_api SELECT p, 1, 211, 100, t + 100100 + e, t + 105000 + e, 10 + i, 0 FROM s
  UNION ALL SELECT p, 1, 211, 100, t + 130010 + e, t + 179990 + e, 2000 + i, 0 FROM s
  UNION ALL SELECT p, 1, 131, 100, t + 190100 + e, t + 5624900, 3000 + i, 0 FROM s;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 5), r(p, e) AS (VALUES (1, 0), (2, 3000000))
INSERT INTO ext_corr SELECT p, 1000 + i, 2000 + i FROM k, r
  UNION ALL SELECT p, 4611686018427387904 + 3000 + i, 3000 + i FROM k, r;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 5), r(p, e) AS (VALUES (1, 0), (2, 3000000)),
  s(p, e, i, t) AS (SELECT p, e, i, 1000000 + 5825000 * i FROM k, r)
INSERT INTO gpu_op SELECT p, 1, 0, 1, 13, 1, t + 120000 + e, t + 2120000 + e, 0, 0, 0, 0, 10 + i, 0, 0 FROM s
  UNION ALL SELECT p, 1, 0, 1, 13, 2, t + 2120000 + e, t + 5620000, 0, 0, 0, 0, 2000 + i, 0, 0 FROM s;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 5), r(p, e) AS (VALUES (1, 0), (2, 3000000)),
  s(p, e, i, t) AS (SELECT p, e, i, 1000000 + 5825000 * i FROM k, r)
INSERT INTO collective SELECT p, 1000 + i, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 777, i, 65536, 7, 262144,
  0, -1, p - 1, 2, 24576, t + 130000 + e, t + 180000 + e, 2, 0, 0, 0 FROM s;
-- hand-first_step_host: hand-late_rank_steps with the first step's GPU
-- work, its launch and its collective taken away: a first step of host
-- time alone, the steps timed from its end (6 steps: the first starts the
-- clock).  Its host time after its last call went into the second step's
-- gaps and cut the collectives to before the steps' start.
DELETE FROM gpu_op WHERE correlation IN (10, 2000);
DELETE FROM api_call WHERE call_id IN (10, 1000, 3000);
DELETE FROM cupti_api WHERE correlation IN (10, 2000, 3000);
DELETE FROM collective WHERE call_id = 1000;
DELETE FROM ext_corr WHERE external_id = 1000 OR correlation IN (2000, 3000);
