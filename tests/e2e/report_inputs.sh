#!/bin/sh
# report_inputs.sh: gputrace-report on bad and odd input: a missing file, a
# file that is not SQLite, a foreign SQLite file, another schema version (and
# the previous one, still read), an
# empty run, a run killed part-way, a damaged file (and one whose process
# table is damaged), a run directory's file with no trace in it (left out,
# said so), two runs in one directory (the latest reported, said so), ids and names the api table lacks, several kernels under
# one collective's correlation, no temporary file, GPU idle gaps a sync
# explains or not, an unknown run; options
# and exit codes;
# and that --help and docs/report.md name the same options.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
rep="$b/gputrace-report"
# one_line WHAT WANT-EXIT PATTERN args...: exit code, and exactly one stderr line matching
one_line() {
  what=$1 want=$2 pat=$3; shift 3
  "$rep" "$@" > "$tmp/out" 2> "$tmp/err"; rc=$?
  lines=$(wc -l < "$tmp/err")
  if [ $rc -eq "$want" ] && [ "$lines" -eq 1 ] && grep -q "$pat" "$tmp/err"; then ok "$what"
  else bad "$what (exit $rc, stderr: $(cat "$tmp/err"))"; fi
}

one_line "missing file" 1 "no such file" "$tmp/nope.db"
printf 'hello, this is not a database\n' > "$tmp/text.db"
one_line "not SQLite" 1 "not a gputrace database" "$tmp/text.db"
sqlite3 "$tmp/foreign.db" "create table t(x); insert into t values (1);"
one_line "foreign SQLite file" 1 "not a gputrace database" "$tmp/foreign.db"
sqlite3 "$tmp/v99.db" "create table meta(key text primary key, value text); insert into meta values ('schema_version', '99');"
one_line "another schema version" 1 "schema version 99" "$tmp/v99.db"

# a real run to derive the other cases from
"$b/gputrace" record -o "$tmp/run" -- "$b/tests/sim/gpusim-run" -n 2 "$b/tests/apps/scalar_read" > /dev/null 2>&1
# one file, to copy and change
"$b/gputrace" merge "$tmp/run.db" "$tmp/run" > /dev/null
cp "$tmp/run.db" "$tmp/empty.db"
sqlite3 "$tmp/empty.db" "delete from process;"
one_line "empty run" 1 "empty trace" "$tmp/empty.db"
one_line "unknown run" 1 "no run 'nosuchrun'" --run nosuchrun "$tmp/run.db"
# the text report fits a 100-column terminal: messages and fixes wrap
# (call sites are left whole, to be copied)
"$rep" "$tmp/run.db" > "$tmp/text"
expect "text report: no line past 100 columns but call sites" "$(awk 'length($0) > 100 && !/^    at /' "$tmp/text" | wc -l)" 0
expect "text report: a long message goes on under its label" "$(grep -c '^         [^ ]' "$tmp/text" | awk '{print ($1 > 0)}')" 1
# a file of an older schema version (2: no nvtx_range_block, cupti_api_block
# nor gpu_op_block) is still read, the same
cp "$tmp/run.db" "$tmp/v2.db"
sqlite3 "$tmp/v2.db" "update meta set value = '2' where key = 'schema_version'; drop table nvtx_range_block;
  drop table cupti_api_block; drop table gpu_op_block;"
"$rep" --format json "$tmp/run.db" > "$tmp/v4.json" && "$rep" --format json "$tmp/v2.db" > "$tmp/v2.json"
expect "schema version 2 read like version 4" "$?:$(cmp -s "$tmp/v4.json" "$tmp/v2.json" && echo same)" "0:same"
run_id=$(sqlite3 "$tmp/run.db" "select run_id from process limit 1")
"$rep" --run "$run_id" "$tmp/run.db" > /dev/null 2>&1
expect "--run with a known id" $? 0

"$rep" --fail-on sync.scalar_read "$tmp/run.db" > /dev/null 2> "$tmp/err"
expect "--fail-on a kind that is found exits 3" "$?:$(grep -c 'found sync.scalar_read' "$tmp/err")" "3:1"
"$rep" --fail-on comm.hang,copy.pageable "$tmp/run.db" > /dev/null 2>&1
expect "--fail-on kinds that are not found exits 0" $? 0
one_line "--fail-on an unknown kind" 2 "unknown finding kind" --fail-on sync.bogus "$tmp/run.db"
one_line "unknown option" 2 "unknown option" --bogus "$tmp/run.db"
one_line "bad threshold" 2 "needs a number" --exposed-fraction 7 "$tmp/run.db"
"$rep" > /dev/null 2>&1
expect "no database: usage, exit 2" $? 2
"$rep" --help | grep -q "^usage: gputrace-report"
expect "--help" $? 0
"$rep" --version | grep -q "^gputrace-report [0-9]"
expect "--version" $? 0

# a run killed part-way: a partial report that says so
GPUTRACE_FLUSH_MS=50 APP_STEPS=400 GPUTRACE_OUTPUT="$tmp/killed.db" LD_PRELOAD="$b/.libs/libgputrace.so" "$b/tests/apps/overlapped" > /dev/null 2>&1 &
pid=$!
# killed once calls are stored (a fixed second was a process not yet
# writing on a loaded machine's slow start under the sanitizers), then a
# few flushes later
for i in $(seq 600); do
  c=0
  for f in "$tmp/killed.db"/*.db; do
    [ -f "$f" ] && c=$((c + $(sqlite3 -readonly "$f" "select (select count(*) from api_call) + (select count(*) from api_call_block)" 2> /dev/null || echo 0)))
  done
  [ "${c:-0}" -gt 0 ] && break
  sleep 0.1
done
sleep 0.3
kill -KILL $pid
wait $pid 2>/dev/null
# a file without an end whose writer beat less than 3 s before it is read
# may be of a process still running (viewer/model/liveness.c): read once
# its heartbeat is older than that
sleep 4
"$rep" "$tmp/killed.db" > "$tmp/out" 2>&1
expect "killed run: a report, exit 0" $? 0
expect "killed run: the report says what is missing" "$(grep -c 'killed before they finished' "$tmp/out")" 1
"$rep" --format json "$tmp/killed.db" | python3 -c "import json,sys; d=json.load(sys.stdin); assert d['ranks'][0]['ended'] == 'killed'"
expect "killed run: JSON says the rank was killed" $? 0
# and one read while it runs: its writer's heartbeats go on, it is said
# running, not killed
# (one file: the poll below read a run directory, never a heartbeat, and
# waited its full minute; and, the tracer slower to start under the
# sanitizers, its sqlite3 made an empty live.db first, where the tracer
# then could not make its run directory: polled only once the file has
# something in it)
GPUTRACE_ONE_FILE=1 GPUTRACE_FLUSH_MS=50 APP_STEPS=100000 GPUTRACE_OUTPUT="$tmp/live.db" LD_PRELOAD="$b/.libs/libgputrace.so" "$b/tests/apps/overlapped" > /dev/null 2>&1 &
pid=$!
for i in $(seq 600); do # its writer's first heartbeat (seconds under the sanitizers)
  [ -s "$tmp/live.db" ] && [ "$(sqlite3 -readonly "$tmp/live.db" 'select count(*) from heartbeat' 2> /dev/null)" = 1 ] && break
  sleep 0.1
done
"$rep" "$tmp/live.db" > "$tmp/out" 2>&1
"$rep" --format json "$tmp/live.db" 2> /dev/null | python3 -c "import json,sys; d=json.load(sys.stdin); print(d['ranks'][0]['ended'])" > "$tmp/ended"
kill -KILL $pid
wait $pid 2>/dev/null
expect "a run read while it runs: said still running, not killed" \
  "$(grep -c 'still running when read' "$tmp/out"):$(grep -c 'killed before' "$tmp/out"):$(cat "$tmp/ended")" "1:0:running"

# an output that exists and that gputrace did not write: not replaced
# without --force (a user's page and a user's SQLite file were replaced,
# exit 0); one of ours, or an empty one, is
printf '<html>mine</html>\n' > "$tmp/mine.html"
sqlite3 "$tmp/user.sqlite" "create table t(x); insert into t values(42)"
"$rep" --html "$tmp/mine.html" "$tmp/run.db" > /dev/null 2> "$tmp/err"; rc=$?
expect "--html over a user's page: refused in one line, exit 2, the page kept" \
  "$rc:$(wc -l < "$tmp/err"):$(cat "$tmp/mine.html")" "2:1:<html>mine</html>"
ln -s "$tmp/mine.html" "$tmp/link.html"
"$rep" --html "$tmp/link.html" "$tmp/run.db" > /dev/null 2>&1
expect "--html through a link to a user's page: refused, the page kept" "$?:$(cat "$tmp/mine.html")" "2:<html>mine</html>"
"$rep" --chrome-trace "$tmp/user.sqlite" "$tmp/run.db" > /dev/null 2>&1
expect "--chrome-trace over a user's SQLite file: refused, kept" "$?:$(sqlite3 "$tmp/user.sqlite" 'select x from t')" "2:42"
"$rep" --force --html "$tmp/mine.html" "$tmp/run.db" > /dev/null 2>&1
"$rep" --html "$tmp/mine.html" "$tmp/run.db" > /dev/null 2>&1; rc=$?
expect "--force replaces it; then, a page of ours, it is replaced without" "$rc:$(head -c 15 "$tmp/mine.html")" "0:<!DOCTYPE html>"

# an output sent to standard output is all that goes there: written
# through fd 1 (reopened by name, a file redirected to was replaced under
# the report's own lines, and a pipe got both, no longer JSON)
"$rep" --chrome-trace /dev/stdout "$tmp/run.db" > "$tmp/stdout.json" 2> /dev/null; rc=$?
expect "--chrome-trace /dev/stdout > FILE: exit 0, the file the trace alone" \
  "$rc:$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["traceEvents"]) > 0)' "$tmp/stdout.json" 2>&1)" "0:True"
expect "--chrome-trace /dev/stdout into a pipe: the trace alone" \
  "$("$rep" --chrome-trace /dev/stdout "$tmp/run.db" 2> /dev/null | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["traceEvents"]) > 0)' 2>&1)" "True"
expect "--chrome-trace -: standard output, the trace alone, no file named -" \
  "$(cd "$tmp" && "$rep" --chrome-trace - "$tmp/run.db" 2> /dev/null | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["traceEvents"]) > 0)' 2>&1):$(ls "$tmp" | grep -c '^-$')" "True:0"
expect "--chrome-trace - with --html and --kineto: the trace alone on stdout, the others written" \
  "$("$rep" --chrome-trace - --html "$tmp/also.html" --kineto "$tmp/also-k" "$tmp/run.db" 2> /dev/null | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["traceEvents"]) > 0)' 2>&1):$(head -c 15 "$tmp/also.html"):$([ "$(ls "$tmp/also-k" | wc -l)" -gt 0 ] && echo some)" \
  "True:<!DOCTYPE html>:some"
expect "--html /dev/stdout into a pipe: the page alone" \
  "$("$rep" --html /dev/stdout "$tmp/run.db" 2> /dev/null | head -c 15):$("$rep" --html /dev/stdout "$tmp/run.db" 2> /dev/null | grep -c '^gputrace report')" "<!DOCTYPE html>:0"

# outputs that cannot be written: one line each, exit 1, the report still printed
one_line "unwritable --chrome-trace" 1 "cannot write .*nodir/t.json: No such file" --chrome-trace "$tmp/nodir/t.json" "$tmp/run.db"
expect "unwritable --chrome-trace: the report is still printed" "$(grep -c '^rank  pid' "$tmp/out")" 1
touch "$tmp/afile"
one_line "unmakeable --kineto directory" 1 "cannot make .*afile/k" --kineto "$tmp/afile/k" "$tmp/run.db"

# a damaged file: the root page of api_call overwritten.  What can be read
# is reported, the report says the file is damaged, and the exit is 1.
cp "$tmp/run.db" "$tmp/damaged.db"
root=$(sqlite3 "$tmp/damaged.db" "select rootpage from sqlite_master where name = 'api_call'")
psize=$(sqlite3 "$tmp/damaged.db" "pragma page_size")
printf '\377\377\377\377\377\377\377\377' | dd of="$tmp/damaged.db" bs=1 seek=$(( (root - 1) * psize )) conv=notrunc 2> /dev/null
one_line "damaged file: one line on stderr, exit 1" 1 "damaged.db is damaged (database disk image is malformed" "$tmp/damaged.db"
expect "damaged file: still a report, which says so" \
  "$(grep -c '^rank  pid' "$tmp/out"):$(grep -c '^note: .*damaged.db is damaged' "$tmp/out")" "1:1"
"$rep" --format json "$tmp/damaged.db" 2> /dev/null | python3 -c "import json,sys; d=json.load(sys.stdin); assert 'is damaged' in d['run']['damaged'] and len(d['ranks']) == 2"
expect "damaged file: JSON says so in run.damaged" $? 0

# a damaged process table: nothing to report on, one line, exit 1
cp "$tmp/run.db" "$tmp/noproc.db"
root=$(sqlite3 "$tmp/noproc.db" "select rootpage from sqlite_master where name = 'process'")
printf '\377\377\377\377\377\377\377\377' | dd of="$tmp/noproc.db" bs=1 seek=$(( (root - 1) * psize )) conv=notrunc 2> /dev/null
one_line "damaged process table: one line on stderr, exit 1" 1 "noproc.db is damaged (.* while reading process)" "$tmp/noproc.db"

# ids the api table lacks, or names it lacks, are "?" (not an index out of
# bounds: the sanitizer build catches one); control characters in the
# file's names do not reach the terminal
cp "$tmp/run.db" "$tmp/apis.db"
sqlite3 "$tmp/apis.db" "update collective set api = 4000 where rowid % 2 = 0; update collective set api = -7 where rowid % 3 = 0;
  update api set name = NULL where name = 'cudaStreamSynchronize'; update api set id = 4096 where name = 'ncclAllReduce';
  update process set gpu_name = 'GPU' || char(27) || '[2J';"
"$rep" --chrome-trace "$tmp/apis.json" "$tmp/apis.db" > "$tmp/out" 2> "$tmp/err"
expect "unknown api ids and names: a report, exit 0" "$?:$(grep -c '^rank  pid' "$tmp/out")" "0:1"
expect "no control character from the file in the text report" "$(tr -d '\n' < "$tmp/out" | LC_ALL=C grep -c '[[:cntrl:]]')" 0
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/apis.json"
expect "unknown api ids and names: the trace is valid JSON" $? 0
sqlite3 "$tmp/apis.db" "delete from api"
"$rep" --format json "$tmp/apis.db" > /dev/null 2>&1
expect "an empty api table: a report, exit 0" $? 0

# several databases: ranks of one run on different files
"$b/gputrace" record -o "$tmp/split-%r.db" -- "$b/tests/sim/gpusim-run" -n 2 "$b/tests/apps/scalar_read" > /dev/null 2>&1
"$rep" --format json "$tmp/split-0.db" "$tmp/split-1.db" | python3 -c "import json,sys; d=json.load(sys.stdin); assert sorted(r['rank'] for r in d['ranks']) == [0, 1], d['ranks']"
expect "two databases, one run: both ranks" $? 0

# a run directory's file with no trace in it (an empty <host>-<pid>.db: the
# tracer's first write failed on a full disk; or a database without a
# table): left out, with a line on stderr and a note; the other ranks
# reported as usual.  None with a trace: an error.
mkdir "$tmp/holes"
"$b/gputrace" record -o "$tmp/holes/run" -- "$b/tests/sim/gpusim-run" -n 2 "$b/tests/apps/scalar_read" > /dev/null 2>&1
first=$(ls "$tmp/holes/run" | head -n 1)
: > "$tmp/holes/run/$first"
"$rep" "$tmp/holes/run" > "$tmp/out" 2> "$tmp/err"
expect "a run directory with an empty file: a report, exit 0, one line on stderr naming it" \
  "$?:$(wc -l < "$tmp/err"):$(grep -c "warning: .*holes/run: 1 file(s) with no trace in them left out .*: $first (empty)" "$tmp/err")" "0:1:1"
expect "... the report of the other rank, with a note naming the file" \
  "$(grep -c '^gputrace report: run .*, 1 process(es)' "$tmp/out"):$(grep -c "^      first write failed?) and were left out: $first$" "$tmp/out")" "1:1"
"$rep" --format json "$tmp/holes/run" 2> /dev/null | python3 -c "import json, sys; d = json.load(sys.stdin)
assert d['run']['skipped_files'] == [sys.argv[1]] and len(d['ranks']) == 1, d['run']" "$tmp/holes/run/$first"
expect "... JSON names it in run.skipped_files" $? 0
rm "$tmp/holes/run/$first"
sqlite3 "$tmp/holes/run/$first" "pragma user_version = 1"
"$rep" "$tmp/holes/run" > /dev/null 2> "$tmp/err"
expect "a run directory with a database of no table: left out too" "$?:$(grep -c "$first (no table in it)" "$tmp/err")" "0:1"
mkdir "$tmp/holes/none"
: > "$tmp/holes/none/h-1.db"
cp "$tmp/holes/run/$first" "$tmp/holes/none/h-2.db"
one_line "a run directory of no file with a trace: refused" 1 \
  "none: no file of this run directory holds a trace: h-1.db (empty), h-2.db (no table in it)" "$tmp/holes/none"
one_line "an empty file named as the input: still refused" 1 "h-1.db" "$tmp/holes/none/h-1.db"

# two runs recorded into one directory: the latest reported, the other
# named, on stderr and in a note; --run chooses
mkdir "$tmp/two"
for r in a b; do
  "$b/gputrace" record -o "$tmp/two-$r" -- "$b/tests/sim/gpusim-run" -n 2 "$b/tests/apps/scalar_read" > /dev/null 2>&1
  for f in "$tmp/two-$r"/*.db; do cp "$f" "$tmp/two/$r-${f##*/}"; done
done
ra=$(sqlite3 "$(ls "$tmp/two-a"/*.db | head -n 1)" "select run_id from process")
rb=$(sqlite3 "$(ls "$tmp/two-b"/*.db | head -n 1)" "select run_id from process")
"$rep" "$tmp/two" > "$tmp/out" 2> "$tmp/err"
expect "two runs in one directory: exit 0, one line on stderr naming both, which is reported" \
  "$?:$(wc -l < "$tmp/err"):$(grep -c "warning: the inputs hold 2 runs: this report is of the latest, $rb; not of $ra (--run ID" "$tmp/err")" "0:1:1"
expect "... the report of the latest, with a note naming both" \
  "$(grep -c "^gputrace report: run $rb, 2 process(es)" "$tmp/out"):$(grep -A 1 '^note: the inputs hold 2 runs' "$tmp/out" | grep -c "$rb; not of $ra")" "1:1"
"$rep" --format json "$tmp/two" 2> /dev/null | python3 -c "import json, sys; r = json.load(sys.stdin)['run']
assert r['id'] == sys.argv[1] and r['other_runs'] == [sys.argv[2]], r" "$rb" "$ra"
expect "... JSON: run.id the latest, run.other_runs the other" $? 0
"$rep" --run "$ra" "$tmp/two" > "$tmp/out" 2> "$tmp/err"
expect "... --run the other: its report, nothing on stderr" "$?:$(grep -c "^gputrace report: run $ra, 2 process(es)" "$tmp/out"):$(cat "$tmp/err")" "0:1:"
# ... and one of the files damaged (the fuzzer's case: a damaged byte of a
# run id made a second run, the damage found while reading): still one
# line on stderr, the damage's, exit 1 (the warning came first, a second
# line); the report's note names the runs
mkdir "$tmp/two-damaged"
cp "$tmp/two"/*.db "$tmp/two-damaged/"
dmg=$(ls "$tmp/two-damaged"/b-*.db | head -n 1)
root=$(sqlite3 "$dmg" "select rootpage from sqlite_master where name = 'collective'")
psize=$(sqlite3 "$dmg" "pragma page_size")
printf '\377\377\377\377\377\377\377\377' | dd of="$dmg" bs=1 seek=$(( (root - 1) * psize )) conv=notrunc 2> /dev/null
one_line "two runs, a file damaged: one line on stderr, the damage's, exit 1" 1 "is damaged (database disk image is malformed" \
  "$tmp/two-damaged"
expect "... the report's note names both runs" "$(grep -A 1 '^note: the inputs hold 2 runs' "$tmp/out" | grep -c "$rb; not of $ra")" 1

# several kernels under one collective's correlation (a file's duplicates,
# or a launch that ran more than one): its GPU time is the earliest one's
"$b/gputrace" record -o "$tmp/coll" -- "$b/tests/sim/gpusim-run" -n 2 "$b/tests/apps/overlapped" > /dev/null 2>&1
"$b/gputrace" merge "$tmp/coll.db" "$tmp/coll" > /dev/null
# coll_ns DB [NS]: the collectives' total GPU time (or NS times their count)
coll_ns() { "$rep" --format json "$1" | python3 -c "import json,sys; c = json.load(sys.stdin)['collectives']
print(sum(x['total_ns'] for x in c) if len(sys.argv) < 2 else sum(x['count'] for x in c) * int(sys.argv[1]))" ${2:+"$2"}; }
before=$(coll_ns "$tmp/coll.db")
expect "collectives with GPU time to match" "$([ "$before" -gt 0 ] && echo yes)" yes
nccl="kind = 1 and correlation in (select correlation from ext_corr)"
sqlite3 "$tmp/coll.db" "insert into gpu_op select process_id, kind, device, context, stream_id, name_id, start_ns + 5000000,
  end_ns + 6000000, bytes, copy_kind, src_kind, dst_kind, correlation, sync_type, event_id from gpu_op where $nccl;"
expect "a later kernel of a collective's correlation: its time stays the first one's" "$(coll_ns "$tmp/coll.db")" "$before"
sqlite3 "$tmp/coll.db" "insert into gpu_op select process_id, kind, device, context, stream_id, name_id, min(start_ns) - 1000,
  min(start_ns) - 500, bytes, copy_kind, src_kind, dst_kind, correlation, sync_type, event_id from gpu_op where $nccl
  group by process_id, correlation;"
expect "an earlier kernel of a collective's correlation: its time is that one's" "$(coll_ns "$tmp/coll.db")" "$(coll_ns "$tmp/coll.db" 500)"

# every rank's collectives go through a temporary file: with none to be
# had ($TMPDIR missing) they stay in memory, and the report is the same
"$rep" --format json --chrome-trace "$tmp/coll1.trace" "$tmp/coll.db" > "$tmp/coll1.json" 2>&1
TMPDIR=/nonexistent/gputrace-test "$rep" --format json --chrome-trace "$tmp/coll2.trace" "$tmp/coll.db" > "$tmp/coll2.json" 2>&1
cmp -s "$tmp/coll1.json" "$tmp/coll2.json" && cmp -s "$tmp/coll1.trace" "$tmp/coll2.trace"
expect "no temporary file to be had: the same report and trace" $? 0

# gpu.idle claims each gap between GPU operations but for the host's
# blocking calls in it (docs/report.md): the sync's part is the sync's, or
# the host blocked in a needed one (the ledger's idle.host_blocked, no
# finding).  A made-up rank: a 3 us kernel every 10 us (7 us gaps, counted
# from 5 us), and a 0.2 us stream sync per step: first inside each gap,
# then ending before it; without the syncs, every gap counts whole.  A gap
# a sync touched was once dropped whole, and with it the data loading that
# a small upload at a step's end did not explain.
cp "$tmp/run.db" "$tmp/idle.db"
sqlite3 "$tmp/idle.db" "delete from api_call; delete from api_call_block; delete from gpu_op; delete from gpu_op_block;
  delete from cupti_api; delete from cupti_api_block; delete from collective; delete from ext_corr; delete from inflight;
  delete from nvtx_range; delete from nvtx_range_block;
  with recursive s(i) as (select 0 union all select i + 1 from s where i < 49)
  insert into gpu_op(process_id, kind, device, context, stream_id, name_id, start_ns, end_ns, bytes, correlation)
    select p.id, 1, 0, 1, 7, 0, p.start_ns + i * 10000 + 3000, p.start_ns + i * 10000 + 6000, 0, 0
    from s, (select id, start_ns from process order by id limit 1) p;
  with recursive s(i) as (select 0 union all select i + 1 from s where i < 49)
  insert into api_call(process_id, tid, api, start_ns, end_ns, stream, event, bytes, copy_kind, mem_kind, result,
                       callsite, call_id, pystack)
    select p.id, 1, (select id from api where name = 'cudaStreamSynchronize'), p.start_ns + i * 10000 + 6100,
           p.start_ns + i * 10000 + 6300, 11, 0, 0, 0, 0, 0, 0, i + 1, 0
    from s, (select id, start_ns from process order by id limit 1) p;"
# gpu.idle's gaps and cost; the ledger's idle by cause
idle_count() { "$rep" --format json --idle-gap-us 5 "$1" | python3 -c "import json,sys
r = json.load(sys.stdin)
f = [f for f in r['findings'] if f['kind'] == 'gpu.idle']
b = {c['bucket']: c['ns'] for c in r['ledger'][0]['causes'] if not c['finding']}
print(sum(x['count'] for x in f), sum(x['cost_ns'] for x in f), b.get('idle.host_blocked', 0))"; }
expect "gpu.idle: gaps with a sync inside: all but the syncs' 0.2 us" "$(idle_count "$tmp/idle.db")" "49 333200 9800"
sqlite3 "$tmp/idle.db" "update api_call set start_ns = start_ns - 2100, end_ns = end_ns - 1300"
expect "gpu.idle: gaps just after a sync count whole" "$(idle_count "$tmp/idle.db")" "49 343000 0"
sqlite3 "$tmp/idle.db" "delete from api_call"
expect "gpu.idle: the same gaps with no sync all count" "$(idle_count "$tmp/idle.db")" "49 343000 0"

# strict escaping: control characters and invalid UTF-8 in a kernel name
cp "$tmp/run.db" "$tmp/odd.db"
sqlite3 "$tmp/odd.db" "update string set value = 'bad' || char(1) || char(10) || cast(x'ff' as text) || 'name' where id = 1;"
"$rep" --format json --chrome-trace "$tmp/odd.json" "$tmp/odd.db" | python3 -c "import json,sys; json.load(sys.stdin)" &&
  python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/odd.json"
expect "control characters and invalid UTF-8 are escaped" $? 0

# --help and the documentation name the same options
undocumented=""
for opt in $("$rep" --help | grep -o -- '--[a-z-]*' | sort -u); do
  grep -q -- "$opt" "$s/docs/report.md" || undocumented="$undocumented $opt"
done
expect "every --help option is in docs/report.md" "$undocumented" ""

finish
