#!/usr/bin/env bash
# gen_run.sh OUT.db RECORDS [RANKS]: a synthetic traced run of about RECORDS
# rows (calls, CUPTI API records, GPU operations, collectives), for the
# report's benchmark.  The schema comes from a real (tiny) traced run, so
# it is the one the tracer writes; the rows are made by SQL in bulk.
# Per step of each rank: a kernel launch, a 4-byte device-to-host copy and a
# stream sync (a scalar read), and every 4th step an all-reduce on a second
# stream.  The ranks' rows are interleaved in runs of 512 steps, as the
# transactions of several processes writing one file interleave them.
# GEN_STEPS=1 marks each step with an NVTX range "train_step" (what the
# report's steps and its what-if replay take; bench/whatif_cost.sh).
set -euo pipefail
out=$1 records=$2 ranks=${3:-4}
top=$(cd "$(dirname "$0")/.." && pwd)
b=$top/build
rm -f "$out" "$out-wal" "$out-shm"
# one file as named (GPUTRACE_ONE_FILE), not a run directory: it is filled by SQL below
GPUTRACE_ONE_FILE=1 GPUTRACE_OUTPUT="$out" GPUTRACE_QUIET=1 LD_PRELOAD="$b/.libs/libgputrace.so" "$b/tests/apps/threads" 1 1 > /dev/null
steps=$(( records / ranks * 4 / 37 )) # 9.25 rows per step
sqlite3 "$out" <<SQL
PRAGMA synchronous=OFF;
DELETE FROM process; DELETE FROM api_call; DELETE FROM gpu_op; DELETE FROM cupti_api; DELETE FROM callsite; DELETE FROM string;
WITH RECURSIVE r(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM r WHERE k < $ranks - 1)
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline, cupti_status,
                    clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason)
SELECT k + 1, 'synthetic', 'host', 1000 + k, k, k, $ranks, k, 'synthetic GPU', 'gen_run', 'active', 'tsc', 0,
       0, $steps * 10000 + 100000, 0, 'exit' FROM r;
INSERT INTO string VALUES (1, 1, 'gemm_kernel'), (1, 2, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL');
INSERT INTO string SELECT p.id, s.id, s.value FROM process p, string s WHERE p.id > 1 AND s.process_id = 1;
INSERT INTO callsite SELECT id, 1, 'train_step+0x10 (app+0x1010)' FROM process;
INSERT INTO callsite SELECT id, 2, 'read_loss+0x20 (app+0x2020)' FROM process;
CREATE TEMP TABLE ids AS SELECT
  (SELECT id FROM api WHERE name = 'cudaLaunchKernel') AS launch,
  (SELECT id FROM api WHERE name = 'cudaMemcpyAsync') AS copy,
  (SELECT id FROM api WHERE name = 'cudaStreamSynchronize') AS sync,
  (SELECT id FROM api WHERE name = 'ncclAllReduce') AS ar;
CREATE TEMP TABLE steps AS WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < $steps - 1) SELECT i FROM s;
-- per step, from t = i * 10000: launch [t, t+2000), kernel [t+3000, t+6000) on stream 7;
-- copy [t+2100, t+2600) and its memcpy [t+6000, t+6200); sync [t+2700, t+6300)
INSERT INTO api_call SELECT p.id, 1000 + p.rank, ids.launch, i * 10000, i * 10000 + 2000, 11, 0, 0, 0, 0, 0, 0, i * 3 + 1, 0
  FROM process p, steps, ids ORDER BY i / 512, p.id;
INSERT INTO api_call SELECT p.id, 1000 + p.rank, ids.copy, i * 10000 + 2100, i * 10000 + 2600, 11, 0, 4, 2, 2, 0, 2, i * 3 + 2, 0
  FROM process p, steps, ids ORDER BY i / 512, p.id;
INSERT INTO api_call SELECT p.id, 1000 + p.rank, ids.sync, i * 10000 + 2700, i * 10000 + 6300, 11, 0, 0, 0, 0, 0, 2, i * 3 + 3, 0
  FROM process p, steps, ids ORDER BY i / 512, p.id;
INSERT INTO cupti_api SELECT p.id, 1, 211, 1000 + p.rank, i * 10000 + 100, i * 10000 + 1900, i * 4 + 1, 0 FROM process p, steps ORDER BY i / 512, p.id;
INSERT INTO cupti_api SELECT p.id, 1, 41, 1000 + p.rank, i * 10000 + 2200, i * 10000 + 2500, i * 4 + 2, 0 FROM process p, steps ORDER BY i / 512, p.id;
INSERT INTO cupti_api SELECT p.id, 1, 131, 1000 + p.rank, i * 10000 + 2800, i * 10000 + 6200, i * 4 + 3, 0 FROM process p, steps ORDER BY i / 512, p.id;
INSERT INTO gpu_op SELECT p.id, 1, p.rank, 1, 7, 1, i * 10000 + 3000, i * 10000 + 6000, 0, 0, 0, 0, i * 4 + 1, 0, 0 FROM process p, steps ORDER BY i / 512, p.id;
INSERT INTO gpu_op SELECT p.id, 2, p.rank, 1, 7, 0, i * 10000 + 6000, i * 10000 + 6200, 4, 2, 3, 2, i * 4 + 2, 0, 0 FROM process p, steps ORDER BY i / 512, p.id;
-- every 4th step an all-reduce on stream 8, overlapping the next kernel
INSERT INTO api_call SELECT p.id, 1000 + p.rank, ids.ar, i * 10000 + 6400, i * 10000 + 6900, 12, 0, 1048576, 0, 0, 0, 1, (1 << 40) + i, 0
  FROM process p, steps, ids WHERE i % 4 = 0 ORDER BY i / 512, p.id;
INSERT INTO collective SELECT p.id, (1 << 40) + i, ids.ar, 4242, i / 4, 262144, 7, 1048576, 0, -1, p.rank, $ranks, 12,
  i * 10000 + 6400, i * 10000 + 6900, 1, 0, 0, 0 FROM process p, steps, ids WHERE i % 4 = 0 ORDER BY i / 512, p.id;
INSERT INTO cupti_api SELECT p.id, 2, 652, 1000 + p.rank, i * 10000 + 6500, i * 10000 + 6800, i * 4 + 4, 0 FROM process p, steps WHERE i % 4 = 0 ORDER BY i / 512, p.id;
INSERT INTO ext_corr SELECT p.id, (1 << 40) + i, i * 4 + 4 FROM process p, steps WHERE i % 4 = 0 ORDER BY i / 512, p.id;
INSERT INTO gpu_op SELECT p.id, 1, p.rank, 1, 8, 2, i * 10000 + 7000 + p.rank * 100, i * 10000 + 12000, 0, 0, 0, 0, i * 4 + 4, 0, 0
  FROM process p, steps WHERE i % 4 = 0 ORDER BY i / 512, p.id;
SQL
if [ "${GEN_STEPS:-0}" = 1 ]; then
  sqlite3 "$out" <<SQL
PRAGMA synchronous=OFF;
INSERT OR REPLACE INTO label SELECT id, 1, 'train_step' FROM process;
WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < $steps - 1)
INSERT INTO nvtx_range SELECT p.id, 1000 + p.rank, 1, 0, 1, 0, i * 10000, i * 10000 + 9000, 0, 0, NULL
  FROM process p, s ORDER BY i / 512, p.id;
SQL
fi
sqlite3 "$out" "PRAGMA journal_mode=WAL; SELECT (SELECT count(*) FROM api_call) + (SELECT count(*) FROM cupti_api) + (SELECT count(*) FROM gpu_op) + (SELECT count(*) FROM collective) + (SELECT count(*) FROM ext_corr);" | tail -1
