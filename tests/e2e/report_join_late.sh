#!/bin/sh
# report_join_late.sh: the time join of calls that do not block to CUPTI's
# records of them, where a thread was preempted between a wrapper's clock
# read and the real call and its record began late
# (tests/data/joins/late_records.sql).  Where the tracer says CUPTI stamped
# with its clock map (process.clock_source "...+cupti") the two clocks are
# one: the report takes the offset as 0, and every call keeps its record
# however late (the votes on an offset, fooled by such records, lost 6 of
# 132 launches' records in one loaded CI run of tracer_times.sh).  In an
# older tracer's file (the rows as written) the offset is voted on, and a
# call whose record moved by the next stretch's offset gets its second
# chance without it (case C); the late records of cases A and B are left
# to the vote there, as before.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
g="${top_srcdir:-.}/tests/data/golden"
cat "$g/hand-schema.sql" "${top_srcdir:-.}/tests/data/joins/late_records.sql" | sqlite3 "$tmp/old.db"
cp "$tmp/old.db" "$tmp/one.db"
qw "$tmp/one.db" "update process set clock_source = 'tsc+cupti'"
# joins DB FROM TO: "call_id:correlation" of each launch and event record
# with call_id in [FROM, TO], in time order (the correlation from the
# report's Kineto export, by time; late_records.sql gives each record its
# call's id)
joins() {
  rm -rf "$tmp/k"
  "$b/gputrace-report" --kineto "$tmp/k" "$1" > /dev/null || { echo "no report"; return; }
  python3 - "$tmp/k" "$(q "$1" "select group_concat(call_id, ' ') from (select call_id from api_call_named
    where api_name in ('cudaLaunchKernel', 'cudaEventRecord') order by start_ns)")" "$2" "$3" <<'PY'
import glob, json, sys
from decimal import Decimal
ev = json.load(open(glob.glob(sys.argv[1] + "/*.json")[0]))["traceEvents"]
calls = sorted((e for e in ev if e.get("cat") == "cuda_runtime" and e["name"] in ("cudaLaunchKernel", "cudaEventRecord")),
               key=lambda e: Decimal(str(e["ts"])))
ids, lo, hi = sys.argv[2].split(), int(sys.argv[3]), int(sys.argv[4])
print(" ".join("%s:%s" % (i, e["args"].get("correlation", "none")) for i, e in zip(ids, calls) if lo <= int(i) <= hi))
PY
}
# own FROM TO: what joins prints when each call has its own record
own() { q "$tmp/one.db" "select group_concat(call_id || ':' || call_id, ' ') from (select call_id from api_call_named
  where api_name in ('cudaLaunchKernel', 'cudaEventRecord') and call_id between $1 and $2 order by start_ns)"; }
expect "one clock: a lone late call and its stretch's calls (A) keep their records" "$(joins "$tmp/one.db" 10 21)" "$(own 10 21)"
expect "one clock: a steady run with a late record (B) keeps its records" "$(joins "$tmp/one.db" 30 48)" "$(own 30 48)"
expect "one clock: every kernel's launch known (A, B)" "$(python3 - "$tmp/k" <<'PY'
import glob, json, sys
ev = json.load(open(glob.glob(sys.argv[1] + "/*.json")[0]))["traceEvents"]
launch = {e["args"].get("correlation") for e in ev if e.get("cat") == "cuda_runtime" and e["name"] == "cudaLaunchKernel"}
kern = [e["args"].get("correlation") for e in ev if e.get("cat") == "kernel" and e["args"].get("correlation") < 50]
print(len(kern), sum(k in launch for k in kern))
PY
)" "29 29"
expect "older tracer: a call whose record moved by the next stretch's offset (C) gets its second chance" \
  "$(joins "$tmp/old.db" 50 61)" "$(own 50 61)"
finish
