#!/bin/sh
# report_join_late.sh: the time join of calls that do not block to CUPTI's
# records of them, where a thread was preempted between a wrapper's clock
# read and the real call (tests/data/joins/late_records.sql: a call alone in
# its stretch with its record out of reach; a stretch where the pairs one
# call off outvote the true ones).  Each moved the clocks' offset off 0, and
# with it the records of the calls around them out of their calls: 6 of 132
# launches of tracer_times.sh's recording lost their record in one run of a
# loaded CI machine, and as many in 1 run in 10 of that recording with its
# thread's time stretched at random points as preemption does.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
g="${top_srcdir:-.}/tests/data/golden"
cat "$g/hand-schema.sql" "${top_srcdir:-.}/tests/data/joins/late_records.sql" | sqlite3 "$tmp/late.db"
"$b/gputrace-report" --kineto "$tmp/k" "$tmp/late.db" > /dev/null
expect "the Kineto export written" "$(ls "$tmp/k" | wc -l | tr -d ' ')" 1
# each call's correlation in the export, in time order, against its own
# (its call_id: late_records.sql gives each record its call's)
want=$(q "$tmp/late.db" "select group_concat(call_id, ' ') from (select call_id from api_call_named
  where api_name in ('cudaLaunchKernel', 'cudaEventRecord') order by start_ns)")
got=$(python3 - "$tmp/k" <<'PY'
import glob, json, sys
from decimal import Decimal
ev = json.load(open(glob.glob(sys.argv[1] + "/*.json")[0]))["traceEvents"]
calls = sorted((e for e in ev if e.get("cat") == "cuda_runtime" and e["name"] in ("cudaLaunchKernel", "cudaEventRecord")),
               key=lambda e: Decimal(str(e["ts"])))
print(" ".join(str(e["args"].get("correlation", "none")) for e in calls))
PY
)
expect "each launch and event record joined to its own record" "$got" "$want"
# and each kernel to its launch: every launch's flow to a kernel
expect "every kernel's launch known" "$(python3 - "$tmp/k" <<'PY'
import glob, json, sys
ev = json.load(open(glob.glob(sys.argv[1] + "/*.json")[0]))["traceEvents"]
launch = {e["args"].get("correlation") for e in ev if e.get("cat") == "cuda_runtime" and e["name"] == "cudaLaunchKernel"}
kern = [e["args"].get("correlation") for e in ev if e.get("cat") == "kernel"]
print(len(kern), sum(k in launch for k in kern))
PY
)" "40 40"
finish
