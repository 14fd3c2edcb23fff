#!/bin/sh
# report_join.sh: the join of each wrapped call to CUPTI's API record of it
# (docs/loading.md, "One record per call") on an NCCL workload
# (tests/apps/overlapped, 2 ranks), with the recording edited as a loaded
# machine and a quick NCCL launch make it: every call keeps its CUPTI
# correlation (the Kineto export's cuda_runtime events), every cuda_sync
# (the SYNCHRONIZATION records, of the stream waits here) lies in its call,
# no record becomes a second call, the findings stay the unedited run's.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
"$b/gputrace" record -o "$tmp/run" -- "$b/tests/sim/gpusim-run" -n 2 "$b/tests/apps/overlapped" > /dev/null 2>&1
for f in "$tmp/run"/*.db; do "$b/gputrace" expand "$f" > /dev/null; done # rows, for the SQL below
# calls, those with a correlation, launches without one, cuda_syncs, those inside their call
joined() { rm -rf "$tmp/k"; "$b/gputrace-report" --kineto "$tmp/k" "$1" > /dev/null && python3 -c '
import glob, json, sys
n = [0] * 5
for f in glob.glob(sys.argv[1] + "/*.json"):
    ev = json.load(open(f))["traceEvents"]
    rt = [e for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver")]
    calls = {e["args"]["correlation"]: e for e in rt if "correlation" in e["args"]}
    syncs = [e for e in ev if e.get("cat") == "cuda_sync"]
    n[0] += len(rt); n[1] += len(calls)
    n[2] += sum(e["name"] == "cudaLaunchKernel" and "correlation" not in e["args"] for e in rt)
    n[3] += len(syncs)
    n[4] += sum(e["args"]["correlation"] in calls and calls[e["args"]["correlation"]]["tid"] == e["tid"] and
                float(e["ts"]) >= float(calls[e["args"]["correlation"]]["ts"]) for e in syncs)
print("calls %d, with their correlation %d, launches without %d, syncs %d, in their calls %d" % tuple(n))' "$tmp/k"; }
report() { "$b/gputrace-report" --format json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join("ok" if r["cupti_only_calls"] <= r["api_calls"] // 100 + 1 else str(r["cupti_only_calls"]) for r in d["ranks"]),
      sorted(f["kind"] + ":" + str(f["count"]) for f in d["findings"]))'; }
# moved RUN SQL: a copy of the run with SQL run on each of its files
moved() { rm -rf "$tmp/$1"; cp -r "$tmp/run" "$tmp/$1"; for f in "$tmp/$1"/*.db; do q "$f" "$2"; done; }
# as unedited: the same syncs, and the calls, the syncs in their calls and
# the correlations but for one in a hundred at most (4 of 754 calls, and 1
# of 146 syncs, once in a clean CI run) (a loaded machine adds
# its own drift to the edit's; the join before lost most of them)
as_unedited() { echo "$1|$2" | awk -F'[ ,|]+' 'function near(a, b) { return a - b <= int(b / 100 + 1) && b - a <= int(b / 100 + 1) }
  near($2, $17) && $11 == $26 && near($15, $11) && near($30, $26) &&
  $6 >= $21 - int($21 / 100 + 1) && $9 <= $24 + int($21 / 100 + 1) {print "as unedited"; next} {print}'; }
unmoved=$(joined "$tmp/run")
# (a launch in a hundred at most left without its record, and a sync in a
# hundred (and one) outside its call: under the full suite's load one of
# 754 launches once was, in the recording itself, so every variant below
# had it too; and once (CI, 2026-12-06) a stream wait's call was one of 5
# of 754 calls the time join left without their record, its
# SYNCHRONIZATION record then on the GPU's row: 145 of 146 syncs in their
# calls.  A call that does not block is joined by time, and a thread
# preempted between its clock read and the real call can pass the slack
# (docs/loading.md); the edits are compared with this run)
expect "unedited: every launch joined to its record, every sync in its call" \
  "$(echo "$unmoved" | awk -F'[ ,]+' '$9 <= int($2 / 100) && $11 - $15 <= int($11 / 100 + 1) && $11 > 0 {print "ok"}')" ok

# NCCL launches its kernel right at the call's start: the driver record
# begins within the slack after the stream wait before it ended.  It is the
# NCCL call's (it began inside it), not the wait's; claimed by the wait, it
# left the NCCL call to take the next launch's record, and so on down the
# run of launches.
# launches API AT FROM TO: SQL that moves each driver record made inside a
# call of API to the call's AT (start_ns or end_ns) plus FROM..TO ns
launches() {
  local of="select c.$2 from api_call c join api a on a.id = c.api where a.name = '$1'
    and c.tid = cupti_api.tid and cupti_api.start_ns >= c.start_ns and cupti_api.end_ns <= c.end_ns"
  echo "update cupti_api set start_ns = ($of) + $3, end_ns = ($of) + $4 where domain = 2 and exists ($of)"
}
moved quick "$(launches ncclAllReduce start_ns 300 600)"
expect "NCCL's launch right at its call's start: every call joined as unedited ($unmoved)" \
  "$(as_unedited "$(joined "$tmp/quick")" "$unmoved")" "as unedited"

# NCCL launches its kernel right at the call's end: moved by the clocks'
# offset, which the join knows to within some tens of ns, its driver
# record begins just after the call ended (36 ns, 1 run in 4 of
# train_demo).  The tracer pushed the call's id around it, so CUPTI tied
# the record to it: it is the NCCL call's by that id, not a call of its own
# that only CUPTI saw (which crossed the NVTX range the call ended in, and
# the Chrome trace broke Perfetto's nesting rule).
moved after "$(launches ncclAllReduce end_ns 40 160)"
expect "NCCL's launch just after its call's end: every call joined as unedited ($unmoved)" \
  "$(as_unedited "$(joined "$tmp/after")" "$unmoved")" "as unedited"
expect "NCCL's launch just after its call's end: no call only CUPTI saw, the unedited run's findings" \
  "$(report "$tmp/after")" "$(report "$tmp/run")"

# the same for a group's launch, made in its outermost ncclGroupEnd under
# the id of its ncclGroupStart (tests/apps/p2p_ring: sends and receives
# in groups, 2 ranks)
"$b/gputrace" record -o "$tmp/p2p" -- "$b/tests/sim/gpusim-run" -n 2 "$b/tests/apps/p2p_ring" > /dev/null 2>&1
for f in "$tmp/p2p"/*.db; do "$b/gputrace" expand "$f" > /dev/null; done
cp -r "$tmp/p2p" "$tmp/p2p_after"
for f in "$tmp/p2p_after"/*.db; do q "$f" "$(launches ncclGroupEnd end_ns 40 160)"; done
expect "a group's launch just after its ncclGroupEnd: the group's, by its id; no call only CUPTI saw" \
  "$(report "$tmp/p2p_after")" "$(report "$tmp/p2p")"
expect "(and the edit moved the launches: 10 a rank)" \
  "$(q "$(ls "$tmp/p2p_after"/*.db | head -n 1)" "select count(*) from cupti_api x where domain = 2 and exists (select 1 from api_call c
     join api a on a.id = c.api where a.name = 'ncclGroupEnd' and c.tid = x.tid and x.start_ns = c.end_ns + 40)")" 10

# the two clocks' conversions 8 us apart (5.8 us seen on a loaded machine),
# as an older tracer's could be (process.clock_source without "+cupti":
# with it they are one clock map, and the report takes the offset as 0)
moved late "update cupti_api set start_ns = start_ns + 8000, end_ns = end_ns + 8000;
  update process set clock_source = replace(clock_source, '+cupti', '')"
expect "CUPTI's records 8 us late: every call joined as unedited" "$(as_unedited "$(joined "$tmp/late")" "$unmoved")" "as unedited"
expect "CUPTI's records 8 us late: calls only CUPTI saw 1% at most, the unedited run's findings" \
  "$(report "$tmp/late")" "$(report "$tmp/run")"
finish
