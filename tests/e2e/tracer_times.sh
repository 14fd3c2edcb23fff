#!/bin/sh
# tracer_times.sh: what a wrapped call's stored times mean
# (docs/tracer-guarantees.md, "What a record's times mean"): a call that
# does not block reads the clock once, and is stored ending where it
# starts; a call that blocks, an NCCL call, an allocation and
# cudaSetDevice read their end too.  With CUPTI on, the report gives each
# call that does not block the length of its CUPTI API record (its Kineto
# slice), joined by its start and the next call's.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
export GPUTRACE_ONE_FILE=1 GPUTRACE_QUIET=1
run="$b/tests/sim/gpusim-run"
nonblocking="'cudaLaunchKernel', 'cudaEventRecord', 'cudaStreamWaitEvent', 'cudaEventQuery', 'cudaEventCreateWithFlags',
  'cudaStreamCreateWithFlags'"
timed="'cudaStreamSynchronize', 'cudaEventSynchronize', 'cudaMemcpy', 'cudaMemcpyAsync', 'cudaFree', 'cudaMalloc',
  'cudaMallocHost', 'cudaSetDevice', 'ncclAllReduce', 'ncclCommInitRank', 'ncclCommDestroy'"
# stored: calls of the APIs listed, those ending where they start, and
# those ending after they start
stored() {
  q "$1" "select count(*) || ':' || sum(end_ns = start_ns) || ':' || sum(end_ns > start_ns)
    from api_call_named where api_name in ($2)"
}
for cupti in 0 1; do
  db="$tmp/c$cupti.db"
  GPUTRACE_CUPTI=$cupti GPUTRACE_OUTPUT="$db" LD_PRELOAD="$b/.libs/libgputrace.so" \
    "$run" -n 1 "$b/tests/apps/overlapped" > /dev/null 2>&1
  "$b/gputrace" expand "$db" > /dev/null
  n=$(q "$db" "select count(*) from api_call_named where api_name in ($nonblocking)")
  expect "CUPTI $cupti: calls that do not block recorded" "$([ "$n" -gt 100 ] && echo yes)" yes
  expect "CUPTI $cupti: each stored ending where it starts (its end not read)" "$(stored "$db" "$nonblocking")" "$n:$n:0"
  n=$(q "$db" "select count(*) from api_call_named where api_name in ($timed)")
  expect "CUPTI $cupti: calls that block, NCCL's, allocations and cudaSetDevice recorded" \
    "$([ "$n" -gt 50 ] && echo yes)" yes
  expect "CUPTI $cupti: each with its end read, after its start" "$(stored "$db" "$timed")" "$n:0:$n"
  # with CUPTI, its records stamped through the tracer's clock map: the
  # report joins them at offset 0 (docs/schema.md, process.clock_source)
  expect "CUPTI $cupti: the clock source says whether CUPTI stamped with it" \
    "$(q "$db" "select count(*), sum(clock_source glob '*+cupti') from process")" "1|$cupti"
done

# The report: each launch's Kineto slice (cuda_runtime) has the CUPTI
# correlation of a record made inside it (from its start to the next call's
# on its thread), and lasts as long as that record (whatever the two
# clocks' offset), but never past the start of the next call.
db="$tmp/c1.db"
"$b/gputrace-report" --kineto "$tmp/k" "$db" > /dev/null
expect "the report's Kineto export written" "$(ls "$tmp/k" | wc -l | tr -d ' ')" 1
q "$db" "select c.start_ns, coalesce((select min(n.start_ns) from api_call n where n.process_id = c.process_id
    and n.tid = c.tid and n.start_ns > c.start_ns), 0)
  from api_call_named c where c.api_name = 'cudaLaunchKernel' order by c.start_ns" > "$tmp/launches"
q "$db" "select correlation, start_ns, end_ns from cupti_api" > "$tmp/records"
got=$(python3 - "$tmp/k" "$tmp/launches" "$tmp/records" <<'EOF'
import glob, json, sys
from decimal import Decimal
ev = json.load(open(glob.glob(sys.argv[1] + "/*.json")[0]))["traceEvents"]
launches = sorted((e for e in ev if e.get("cat") == "cuda_runtime" and e["name"] == "cudaLaunchKernel"),
                  key=lambda e: Decimal(str(e["ts"])))
calls = [tuple(int(x) for x in l.split("|")) for l in open(sys.argv[2])]
rec = {int(c): (int(s), int(e)) for c, s, e in (l.split("|") for l in open(sys.argv[3]))}
rec_len = {c: e - s for c, (s, e) in rec.items()}
if len(launches) != len(calls) or not calls:
    print("launches %d in the export, %d stored" % (len(launches), len(calls)))
    sys.exit()
bad = []
for e, (start, next_start) in zip(launches, calls):
    corr = e["args"].get("correlation")
    dur = int(Decimal(str(e["dur"])) * 1000)
    want = rec_len.get(corr, -1)
    if next_start and start + want > next_start:
        want = next_start - start
    if corr not in rec_len:
        bad.append("no correlation (call at %d, next at %d)" % (start, next_start))
    elif rec[corr][0] < start or (next_start and rec[corr][1] > next_start):
        # its own record is made inside it (one clock for both: the tracer
        # converts CUPTI's ticks with the wrappers' map)
        bad.append("record %d-%d, outside its call %d-%d" % (rec[corr] + (start, next_start)))
    elif dur != max(want, 1):
        bad.append("dur %d, its record's %d" % (dur, rec_len[corr]))
print("%d launches, %d lasting as long as their CUPTI record" % (len(calls), len(calls) - len(bad)), *bad[:3])
EOF
)
n=$(wc -l < "$tmp/launches" | tr -d ' ')
expect "each launch joined, lasting as long as its CUPTI record, within its thread's next call's start" "$got" \
  "$n launches, $n lasting as long as their CUPTI record"
finish
