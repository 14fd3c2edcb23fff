#!/bin/sh
# report_stream_halves.sh: two GPUs' streams of one CUPTI id told apart
# however the report reads the GPU records.  A table of 256 rows or more
# is read in two halves (rowruns_each_split), the second into a process
# of its own; its streams were keyed against an empty map there, so that
# the context first seen in the second half took the id's own key: GPU 1's
# kernels on GPU 0's track and GPU 0's on GPU 1's.  The golden fixture
# sim-model_parallel (41 GPU rows, read whole) with 300 kernels of each GPU
# added, GPU 1's first: each GPU's kernels on a track of their own.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
db="$tmp/mp.db"
sqlite3 "$db" < "$s/tests/data/golden/sim-model_parallel/input.sql" && sqlite3 "$db" "
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 299)
INSERT INTO gpu_op SELECT 1, 1, 1, 2, 8, 2, 57779600000000 + i * 1000000, 57779600000000 + i * 1000000 + 500000,
  0, 0, 0, 0, 0, 0, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 299)
INSERT INTO gpu_op SELECT 1, 1, 0, 1, 8, 1, 57779600000000 + i * 1000000 + 500000, 57779600000000 + i * 1000000 + 900000,
  0, 0, 0, 0, 0, 0, 0 FROM k;" || skip_all "the fixture does not load"
for threads in 1 2; do
  GPUTRACE_REPORT_THREADS=$threads "$b/gputrace-report" --chrome-trace "$tmp/c$threads.json" "$db" > /dev/null 2>&1
  got=$(python3 - "$tmp/c$threads.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "thread_name"}
tracks = {}
for e in ev:
    if e.get("ph") == "X" and e.get("cat") == "kernel":
        tracks.setdefault(names.get((e["pid"], e["tid"]), "?"), set()).add((e["name"], e["args"]["device"]))
print("; ".join("%s: %s" % (k, " ".join("%s@%d" % x for x in sorted(v))) for k, v in sorted(tracks.items())))
PY
)
  expect "threads=$threads: each GPU's kernels on its own track" "$got" \
    "GPU 0 stream 8 (compute): mp_layer0_kernel@0; GPU 1 stream 8 (compute): mp_layer1_kernel@1"
done
finish
