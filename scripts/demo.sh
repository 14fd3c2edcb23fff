#!/usr/bin/env bash
# demo.sh: builds gputrace and traces the demo: a simulated 4-rank training
# run with planted problems (tests/apps/train_demo.c) on the GPU simulator,
# under `gputrace record`, then prints what was recorded per rank.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$("$top/scripts/build.sh" | tail -n 1)
out="$top/demo-out"
mkdir -p "$out"
cd "$dir"
echo "== tracing the simulated 4-rank training job (tests/apps/train_demo) into $out/run.db"
./gputrace record -f -o "$out/run.db" -- tests/sim/gpusim-run -n 4 --timeout 120 tests/apps/train_demo
echo
echo "== what each rank recorded (query it yourself: sqlite3 $out/run.db; schema in docs/schema.md)"
sqlite3 -header -column "$out/run.db" "
  SELECT p.rank, p.pid, p.gpu_name AS gpu, p.cupti_status AS cupti,
         (SELECT count(*) FROM api_call c WHERE c.process_id = p.id) AS api_calls,
         (SELECT count(*) FROM gpu_op g WHERE g.process_id = p.id) AS gpu_ops,
         (SELECT count(*) FROM collective c WHERE c.process_id = p.id) AS collectives,
         printf('%.1f', (SELECT sum(end_ns - start_ns) FROM api_call_named c
                         WHERE c.process_id = p.id AND c.api_class = 'sync') / 1e6) AS sync_ms,
         printf('%.1f', (p.end_ns - p.start_ns) / 1e6) AS wall_ms
  FROM process p ORDER BY p.rank;"
echo
echo "== host time blocked per call site (top 5)"
sqlite3 -header -column "$out/run.db" "
  SELECT c.api_name AS api, count(*) AS calls, printf('%.2f', sum(c.end_ns - c.start_ns) / 1e6) AS blocked_ms,
         substr(replace(s.frames, char(10), ' <- '), 1, 70) AS call_site
  FROM api_call_named c LEFT JOIN callsite s ON s.process_id = c.process_id AND s.id = c.callsite
  WHERE c.api_class IN ('sync', 'copy') GROUP BY c.api_name, s.frames ORDER BY sum(c.end_ns - c.start_ns) DESC LIMIT 5;"
