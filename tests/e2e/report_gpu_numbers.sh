#!/bin/sh
# report_gpu_numbers.sh: a process's GPUs told apart whatever their
# numbers.  gpu.idle and gpu.stalled of one of several GPUs are keyed by
# the GPU and the host's range (analysis_gpu.c's idle_key), and a GPU's
# ledger takes that GPU's claims (charge_device); of 6 bits once, GPU 64's
# and GPU 128's findings were GPU 0's (one key), and each of those GPUs'
# ledgers took the others' claims for its own: here gpu.idle (GPU 0) and
# (GPU 64) cost nothing, and gpu.pipeline_bubble took their time (89.94 ms
# against 44.30, GPU 0's host-paced gaps in it).  Input: the
# golden fixture hand-pipeline_three (GPUs 0, 1 and 2) with GPUs 1 and 2
# numbered 64 and 128: the JSON report, --charges included, is the one of
# GPUs 0, 1 and 2 but for the numbers.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
g="$s/tests/data/golden"
for n in 1 64; do
  cat "$g/hand-schema.sql" "$g/hand-pipeline_three/rows.sql" | sqlite3 "$tmp/g$n.db" || skip_all "the fixture does not load"
done
sqlite3 "$tmp/g64.db" "UPDATE gpu_op SET device = CASE device WHEN 1 THEN 64 WHEN 2 THEN 128 ELSE device END"
for n in 1 64; do
  "$b/gputrace-report" --format json --charges --no-whatif "$tmp/g$n.db" > "$tmp/g$n.json" 2> /dev/null
done
expect "GPUs 0, 64 and 128: the report of GPUs 0, 1 and 2 but for the numbers" "$(python3 - "$tmp/g1.json" "$tmp/g64.json" <<'PY'
import json, re, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
num = {64: 1, 128: 2}
def renumber(x, key=None):
    if isinstance(x, dict):
        return {k: renumber(v, k) for k, v in x.items()}
    if isinstance(x, list):
        if key == "charged":
            return [c[:3] + [num.get(c[3], c[3])] if len(c) == 4 else c for c in x]
        return [renumber(v, key) for v in x]
    if isinstance(x, str):
        return re.sub(r"GPU (64|128)\b", lambda m: "GPU %d" % num[int(m.group(1))], x)
    if key == "device" and isinstance(x, int):
        return num.get(x, x)
    return x
b = renumber(b)
idle = sorted((f["callsite"], f["cost_ns"], len(f.get("charged", []))) for f in b["findings"] if f["kind"] == "gpu.idle")
print(a == b, idle)
PY
)" "True [('(GPU 0)', 33000000, 6), ('(GPU 1)', 15704700, 3)]"
finish
