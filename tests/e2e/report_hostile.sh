#!/bin/sh
# report_hostile.sh: gputrace-report and `gputrace expand` on hostile input,
# which they must treat as untrusted: a FIFO or a directory given as a
# database, a database whose tables are views (one of them endless),
# one that plants a trigger for `gputrace expand` to run; and outputs that
# would overwrite an input or each other (--chrome-trace, --html, --kineto
# files; any file the report reads: of a run directory, of a directory of
# Kineto traces, an nsys export), refused before anything is written.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
# each traced process below writes the one file named (docs/schema.md): the
# checks modify and copy databases as files
export GPUTRACE_ONE_FILE=1
rep="$b/gputrace-report"
# one_line WHAT WANT-EXIT PATTERN cmd args...: exit code, and exactly one
# stderr line matching; never more than 20 s (a hang is a failure)
one_line() {
  what=$1 want=$2 pat=$3; shift 3
  timeout 20 "$@" > "$tmp/out" 2> "$tmp/err"; rc=$?
  lines=$(wc -l < "$tmp/err")
  if [ $rc -eq "$want" ] && [ "$lines" -eq 1 ] && grep -q -- "$pat" "$tmp/err"; then ok "$what"
  else bad "$what (exit $rc, stderr: $(head -c 300 "$tmp/err"))"; fi
}

GPUTRACE_BULK_AFTER=0 "$b/gputrace" record -o "$tmp/run.db" -- "$b/tests/sim/gpusim-run" -n 2 "$b/tests/apps/scalar_read" > /dev/null 2>&1
expect "a run to derive the cases from" "$(q "$tmp/run.db" "select count(*) from process")" 2

# ---- ids at the edge of their type -----------------------------------------
# an NVTX range named by label id 2**31 - 1 (no label has it): the findings
# in it are reported without a range name, no arithmetic past the id's type
# (UBSan's signed overflow once, in the range a finding is said to be in)
sqlite3 "$tmp/maxid.db" < "$s/tests/data/golden/sim-train_demo/input.sql"
q "$tmp/maxid.db" "update nvtx_range set name = 2147483647 where name in
    (select id from label where label.process_id = nvtx_range.process_id and value = 'forward')"
"$rep" --format json "$tmp/maxid.db" > "$tmp/maxid.json" 2> "$tmp/err"
expect "a range named by id 2**31 - 1: a report, the straggler's finding in no named range" "$?:$(python3 -c "
import json, sys
print(sorted({f.get('range', '') for f in json.load(open(sys.argv[1]))['findings'] if f['kind'] == 'comm.straggler'}))" \
  "$tmp/maxid.json")" "0:['']"

# counts, ranks and times at the edges of 64 bits, each from a golden
# fixture (tests/data/golden), each once an overflow UBSan stopped the
# report on (a rank list's next rank, summed drop counts, a card's wall
# time, the what-if's NCCL time and replayed ends, the joint replay's
# paths, a lazy connect's threshold): every output made, exit 0
g=$s/tests/data/golden
edge() { # edge WHAT FIXTURE SQL: the fixture with SQL applied, reported every way
  if [ -f "$g/$2/input.sql" ]; then sqlite3 "$tmp/edge.db" < "$g/$2/input.sql"
  else cat "$g/hand-schema.sql" "$g/$2/rows.sql" | sqlite3 "$tmp/edge.db"; fi
  q "$tmp/edge.db" "$3"
  rcs=""
  for how in text json charges html windows; do
    case $how in
    text) "$rep" "$tmp/edge.db" ;;
    json) "$rep" --format json "$tmp/edge.db" ;;
    charges) "$rep" --format json --charges "$tmp/edge.db" ;;
    html) "$rep" --html "$tmp/edge.html" --chrome-trace "$tmp/edge.trace" "$tmp/edge.db" ;;
    windows) GPUTRACE_REPORT_WINDOW_ROWS=20 "$rep" --format json "$tmp/edge.db" ;;
    esac > /dev/null 2> "$tmp/edge.err"
    rcs="$rcs$?"
  done
  expect "$1: every output made, exit 0$(grep -v " windows$" "$tmp/edge.err" | head -c 200 | sed "s/^/: /")" "$rcs" 00000
  rm -f "$tmp/edge.db"
}
edge "a rank of 2**31 - 1 beside another" hand-window "update process set rank = 2147483647"
edge "records dropped: 2**63 - 1 in each process" hand-window \
  "update process set dropped_host = 9223372036854775807, dropped_cupti = 9223372036854775807"
edge "records dropped: 2**63 - 1 and 1 in one process" hand-syncs \
  "update process set dropped_host = 9223372036854775807, dropped_cupti = 1"
edge "processes spanning all of 64 bits" hand-hang_places \
  "update process set start_ns = -9223372036854775808, end_ns = 9223372036854775807"
edge "GPU operations spanning all of 64 bits" sim-train_demo \
  "update gpu_op set start_ns = -9223372036854775808, end_ns = 9223372036854775807"
edge "a third of the GPU operations ending at 2**63 - 1" sim-train_demo \
  "update gpu_op set end_ns = 9223372036854775807 where rowid % 3 = 1"
edge "collectives spanning all of 64 bits" sim-pipeline \
  "update collective set start_ns = -9223372036854775808, end_ns = 9223372036854775807"
"$rep" "$tmp/maxid.db" > /dev/null 2>&1 # (the label case above, in text too)
expect "a range named by id 2**31 - 1: the text report too" $? 0

# ---- not a regular file -------------------------------------------------
mkfifo "$tmp/fifo.db"
one_line "a FIFO as the database: refused, no hang" 1 "fifo.db: not a regular file" "$rep" "$tmp/fifo.db"
mkdir "$tmp/dir.db"
one_line "a directory with no database in it: refused" 1 "dir.db: a directory without a database" "$rep" "$tmp/dir.db"
mkfifo "$tmp/dir.db/h-1.db"
one_line "a run directory holding only a FIFO: refused, no hang" 1 "dir.db: a directory without a database" "$rep" "$tmp/dir.db"

# ---- views where our tables belong ----------------------------------------
cols="process_id, tid, api, start_ns, end_ns, stream, event, bytes, copy_kind, mem_kind, result, callsite, call_id, pystack"
cp "$tmp/run.db" "$tmp/endless.db"
qw "$tmp/endless.db" "drop table api_call; create view api_call($cols) as
  with recursive r(x) as (select 1 union all select x + 1 from r) select 1, 1, 1, x, x, 0, 0, 0, 0, 0, 0, 0, x, 0 from r;"
one_line "api_call an endless recursive view: refused, no hang" 1 "endless.db: not a gputrace database (api_call is a view" "$rep" "$tmp/endless.db"
cp "$tmp/run.db" "$tmp/view.db"
qw "$tmp/view.db" "alter table process rename to process_t; create view process as select * from process_t;"
one_line "process a view: refused" 1 "view.db: not a gputrace database (process is a view" "$rep" "$tmp/view.db"
# a view of the user's own, or ours (api_call_named), is no table we read: fine
cp "$tmp/run.db" "$tmp/ownview.db"
qw "$tmp/ownview.db" "create view my_calls as select * from api_call;"
timeout 20 "$rep" "$tmp/ownview.db" > /dev/null 2>&1
expect "a view of the user's own beside our tables: read as usual" $? 0

# ---- gputrace expand and triggers ----------------------------------------
cp "$tmp/run.db" "$tmp/trig.db"
qw "$tmp/trig.db" "create table planted(x); create trigger t_planted after insert on api_call begin insert into planted values (new.call_id); end;"
before=$(q "$tmp/trig.db" "select count(*) from api_call_block")
one_line "expand: a database with a trigger is refused" 1 "trig.db: it has a trigger (t_planted)" "$b/gputrace" expand "$tmp/trig.db"
expect "expand: the planted trigger wrote nothing, the blocks are still there" \
  "$(q "$tmp/trig.db" "select count(*) from planted"):$(q "$tmp/trig.db" "select count(*) from api_call_block")" "0:$before"
cp "$tmp/run.db" "$tmp/trigview.db"
qw "$tmp/trigview.db" "create table planted(x); alter table api_call rename to api_call_t;
  create view api_call as select * from api_call_t;"
one_line "expand: api_call a view is refused" 1 "trigview.db: not a gputrace database (api_call is a view" "$b/gputrace" expand "$tmp/trigview.db"
cp "$tmp/run.db" "$tmp/plain.db"
"$b/gputrace" expand "$tmp/plain.db" > /dev/null 2>&1
expect "expand: a database of ours is expanded" "$?:$(q "$tmp/plain.db" "select count(*) > 0 from api_call"):$(q "$tmp/plain.db" "select count(*) from api_call_block")" "0:1:0"

# ---- outputs that would overwrite an input or each other ------------------
# refused_write WHAT PATTERN args...: exit 2, one line, and no file changed
refused_write() {
  what=$1 pat=$2; shift 2
  cp "$tmp/run.db" "$tmp/keep.db"
  one_line "$what" 2 "$pat" "$rep" "$@"
  cmp -s "$tmp/run.db" "$tmp/keep.db"
  expect "$what: the database is unchanged" $? 0
}
refused_write "--chrome-trace the input database" "chrome-trace .*run.db is the input database" \
  --chrome-trace "$tmp/run.db" "$tmp/run.db"
mkdir "$tmp/sub"
refused_write "--chrome-trace the input by another spelling" "is the input database" \
  --chrome-trace "$tmp/sub/../run.db" "$tmp/run.db"
ln -s "$tmp/run.db" "$tmp/link.db"
refused_write "--chrome-trace a symbolic link to the input" "is the input database" \
  --chrome-trace "$tmp/link.db" "$tmp/run.db"
ln "$tmp/run.db" "$tmp/hard.db"
refused_write "--chrome-trace a hard link to the input" "is the input database" \
  --chrome-trace "$tmp/hard.db" "$tmp/run.db"
refused_write "--chrome-trace the input's -wal" "the input database's SQLite file .*run.db-wal" \
  --chrome-trace "$tmp/run.db-wal" "$tmp/run.db"
refused_write "--chrome-trace a Kineto file" "k1/rank-0.json is also --chrome-trace" \
  --chrome-trace "$tmp/k1/rank-0.json" --kineto "$tmp/k1" "$tmp/run.db"
expect "--chrome-trace a Kineto file: nothing written (not even the directory)" "$(ls -d "$tmp/k1" 2> /dev/null)" ""
mkdir "$tmp/k2"
cp "$tmp/run.db" "$tmp/k2/rank-1.json"
one_line "--kineto over an input database" 2 "Kineto trace of rank 1 .* is the input database" \
  "$rep" --kineto "$tmp/k2" "$tmp/k2/rank-1.json"
# (SQLite's own -wal and -shm, made by reading, aside)
expect "--kineto over an input database: nothing written" "$(ls "$tmp/k2" | grep -v -e '-wal$' -e '-shm$')" "rank-1.json"
timeout 20 "$rep" --chrome-trace "$tmp/t.json" --kineto "$tmp/k3" "$tmp/run.db" > /dev/null 2>&1
expect "outputs of their own: written" "$?:$(ls "$tmp/k3" | wc -l):$([ -s "$tmp/t.json" ] && echo yes)" "0:2:yes"

# every file the report reads, whatever it is: an nsys export, a trace of a
# directory of Kineto traces (and a hard link to one), a run directory's
# database and what SQLite keeps beside it; refused before the import
# writes anything in TMPDIR.  Each was overwritten, exit 0.
# refused_over FILE WHAT PATTERN args...: exit 2, one line, FILE unchanged, TMPDIR untouched
refused_over() {
  file=$1 what=$2 pat=$3; shift 3
  cp "$file" "$tmp/before"
  mkdir -p "$tmp/imptmp"
  TMPDIR="$tmp/imptmp" one_line "$what" 2 "$pat" "$rep" "$@"
  expect "$what: unchanged, nothing in TMPDIR" "$(cmp -s "$file" "$tmp/before" && echo same):$(ls -A "$tmp/imptmp")" "same:"
}
cp "$s/tests/data/traces/pipit-nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite" "$tmp/prof.sqlite"
refused_over "$tmp/prof.sqlite" "--html over the nsys export read" "html .*prof.sqlite is the input trace" \
  --html "$tmp/prof.sqlite" "$tmp/prof.sqlite"
refused_over "$tmp/prof.sqlite" "--chrome-trace over the nsys export read" "chrome-trace .*prof.sqlite is the input trace" \
  --chrome-trace "$tmp/prof.sqlite" "$tmp/prof.sqlite"
cp -r "$s/tests/data/traces/hta-sampled-128" "$tmp/sampled"
for o in --html --chrome-trace; do
  refused_over "$tmp/sampled/sampled_rank-1.json.gz" "$o over a trace of the directory read" \
    "${o#--} .*sampled_rank-1.json.gz is the input trace .*sampled/sampled_rank-1.json.gz" \
    $o "$tmp/sampled/sampled_rank-1.json.gz" "$tmp/sampled"
done
ln "$tmp/sampled/sampled_rank-0.json.gz" "$tmp/hard.json.gz"
refused_over "$tmp/sampled/sampled_rank-0.json.gz" "--html over a hard link to a trace of the directory read" \
  "hard.json.gz is the input trace .*sampled/sampled_rank-0.json.gz" --html "$tmp/hard.json.gz" "$tmp/sampled"
env -u GPUTRACE_ONE_FILE "$b/gputrace" record -o "$tmp/rundir" -- "$b/tests/sim/gpusim-run" -n 2 "$b/tests/apps/scalar_read" \
  > /dev/null 2>&1
member=$(ls "$tmp/rundir"/*.db | head -n 1)
refused_over "$member" "--chrome-trace over a database of the run directory read" "is the input database .*$member" \
  --chrome-trace "$member" "$tmp/rundir"
refused_over "$member" "--html over the -journal of a database of the run directory read" \
  "is the input database's SQLite file $member-journal" --html "$member-journal" "$tmp/rundir"
expect "... no -journal made" "$(ls "$tmp/rundir" | grep -c journal)" 0

# ---- strings from the file: escaped for the terminal, exact in JSON -------
# every kind of string the report prints: run id (GPUTRACE_RUN_ID or
# SLURM_JOB_ID can set it), host, API and kernel names, call-site frames
odd="char(27) || ']0;title' || char(7) || char(27) || '[31m' || char(1) || cast(x'ff' as text) || char(155)"
cp "$tmp/run.db" "$tmp/odd.db"
qw "$tmp/odd.db" "update process set run_id = 'run' || $odd, host = 'host' || $odd, gpu_name = 'GPU' || $odd;
  update api set name = name || $odd where name like 'cuda%';
  update string set value = value || $odd; update callsite set frames = replace(frames, char(10), $odd || char(10)) || $odd;"
timeout 20 "$rep" --chrome-trace "$tmp/odd.trace" --kineto "$tmp/oddk" "$tmp/odd.db" > "$tmp/odd.txt" 2> "$tmp/err"
expect "odd strings: a report, exit 0" "$?:$(grep -c '^rank  pid' "$tmp/odd.txt")" "0:1"
expect "odd strings: no control character reaches the terminal" "$(tr -d '\n' < "$tmp/odd.txt" | LC_ALL=C grep -c '[[:cntrl:]]')" 0
python3 -c "import sys; t = open(sys.argv[1], 'rb').read(); t.decode('utf-8'); assert b'\\xc2\\x9b' not in t" "$tmp/odd.txt"
expect "odd strings: the text report is valid UTF-8, without C1 controls" $? 0
expect "odd strings: each shown escaped (run id, host... : run\\x1b]0;title\\x07\\x1b[31m\\x01\\xff\\u009b)" \
  "$(grep -c -F 'run\x1b]0;title\x07\x1b[31m\x01\xff\u009b' "$tmp/odd.txt")" 1
expect "odd strings: kernel names and call sites shown escaped" \
  "$(grep -c -F '\x1b[31m' "$tmp/odd.txt" | awk '{print ($1 >= 4)}')" 1
"$rep" --run "run$(printf '\033]0;title\007\033[31m\001')nope" "$tmp/odd.db" > /dev/null 2> "$tmp/err"
expect "odd strings: stderr lines escaped too" "$?:$(LC_ALL=C grep -c '[[:cntrl:]]' "$tmp/err"):$(grep -c -F 'no run' "$tmp/err")" "1:0:1"
"$rep" --format json "$tmp/odd.db" > "$tmp/odd.json" 2> /dev/null
python3 - "$tmp/odd.json" "$tmp/odd.trace" "$tmp/oddk" <<'PY'
import json, os, sys
odd = "\x1b]0;title\x07\x1b[31m\x01\ufffd\u009b"  # invalid UTF-8 can only be U+FFFD in JSON
r = json.load(open(sys.argv[1]))
assert r["run"]["id"] == "run" + odd, repr(r["run"]["id"])
assert all(x["host"] == "host" + odd and x["gpu"] == "GPU" + odd for x in r["ranks"]), r["ranks"]
assert r["kernels"] and all(k["name"].endswith(odd) for k in r["kernels"]), [k["name"] for k in r["kernels"]]
t = json.load(open(sys.argv[2]))
names = [e.get("name", "") for e in t["traceEvents"]]
assert any(n.endswith(odd) and n.startswith("cuda") for n in names), "no API name kept in the Chrome trace"
kern = [e["name"] for e in t["traceEvents"] if e.get("cat") == "kernel"]
assert kern and all(n.endswith(odd) for n in kern), kern[:3]
for f in os.listdir(sys.argv[3]):
    k = json.load(open(os.path.join(sys.argv[3], f)))
    assert k["traceName"] == "run" + odd
    kern = [e["name"] for e in k["traceEvents"] if e.get("cat") == "kernel"]
    assert kern and all(n.endswith(odd) for n in kern), kern[:3]
PY
expect "odd strings: JSON, Chrome and Kineto outputs parse and keep every character (escaped)" $? 0

# multi-byte characters in names cut to a column: cut between characters;
# a kernel name of 1500 bytes: whole in JSON, Chrome and Kineto
cp "$tmp/run.db" "$tmp/wide.db"
e60=$(python3 -c "print('é' * 60)")
qw "$tmp/wide.db" "update process set gpu_name = '$e60'; update string set value = '$e60' || id;"
timeout 20 "$rep" "$tmp/wide.db" > "$tmp/wide.txt" 2>&1
python3 -c "import sys; open(sys.argv[1], 'rb').read().decode('utf-8')" "$tmp/wide.txt"
expect "names cut to a column: the text report is valid UTF-8" $? 0
expect "names cut to a column: a GPU name keeps 18 characters" "$(grep -c "^0     [0-9]* *$(python3 -c "print('é' * 18)") " "$tmp/wide.txt")" 1
expect "names cut to a column: a kernel name keeps 49 characters and ..." \
  "$(grep -c "^$(python3 -c "print('é' * 49)")\.\.\. " "$tmp/wide.txt" | awk '{print ($1 > 0)}')" 1
qw "$tmp/wide.db" "update string set value = 'void big_kernel<' || replace(hex(zeroblob(740)), '00', 'ab') || id || '>(float*)'"
timeout 20 "$rep" --format json --chrome-trace "$tmp/long.trace" --kineto "$tmp/longk" "$tmp/wide.db" > "$tmp/long.json" 2>&1
python3 - "$tmp/long.json" "$tmp/long.trace" "$tmp/longk" <<'PY'
import json, os, re, sys
whole = re.compile(r"void big_kernel<(ab){740}\d+>\(float\*\)$")
assert all(whole.match(k["name"]) for k in json.load(open(sys.argv[1]))["kernels"])
kern = [e["name"] for e in json.load(open(sys.argv[2]))["traceEvents"] if e.get("cat") == "kernel"]
assert kern and all(whole.match(n) for n in kern), kern[0][-40:]
for f in os.listdir(sys.argv[3]):
    kern = [e["name"] for e in json.load(open(os.path.join(sys.argv[3], f)))["traceEvents"] if e.get("cat") == "kernel"]
    assert kern and all(whole.match(n) for n in kern), kern[0][-40:]
PY
expect "a kernel name of 1500 bytes: whole in JSON, Chrome and Kineto" $? 0
# a call-site frame of 1500 bytes and an NVTX range name of 1000: whole in
# the findings (they were cut at 511 and 255 bytes)
e700=$(python3 -c "print('é' * 700)")
qw "$tmp/wide.db" "update callsite set frames = 'frame_$e700 (app.c:1)'; update label set value = 'log_loss$e700' where value = 'log_loss'"
timeout 20 "$rep" --format json "$tmp/wide.db" > "$tmp/long.json" 2>&1
python3 - "$tmp/long.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
at = [x["callsite"] for x in f if x["callsite"].startswith("frame_")]
assert at and all(c == "frame_" + "é" * 700 + " (app.c:1)" for c in at), [c[-20:] for c in at]
assert any(x.get("range") == "log_loss" + "é" * 700 for x in f), [x.get("range", "")[-20:] for x in f]
PY
expect "a call-site frame of 1500 bytes and a range name of 1000: whole in the findings" $? 0

# ---- long names through the tracer (tests/apps/long_names.c) -------------
# NVTX names of 300 bytes whole (they were cut at 255), of 5000 cut between
# characters and marked, the report counting them; a kernel name of 647
# bytes whole
# (its run id, from the environment, with an escape sequence in it)
out=$(GPUTRACE_RUN_ID="$(printf 'run\033[2J\001x')" GPUTRACE_OUTPUT="$tmp/long.db" LD_PRELOAD="$b/.libs/libgputrace.so" \
  "$b/tests/apps/long_names")
expect "long names: the program runs" "$?:$out" "0:long_names done"
python3 - "$tmp/long.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.text_factory = bytes
labels = [r[0] for r in db.execute("select value from label")]
mark = "\u2026[cut]".encode()
ew = "\u00e9w".encode()
assert b"n" * 300 in labels, "300-byte ASCII name not whole"
assert ew * 150 in labels, "300-character wide name not whole"
cut = [l for l in labels if l.endswith(mark)]
assert len(cut) == 2, [l[-12:] for l in labels]
for l in cut:
    l.decode("utf-8")  # cut between characters
    assert len(l) <= 4095 and len(l) > 4000, len(l)
    assert l.startswith(b"m" * 4000) or l.startswith(ew * 1300), l[:8]
kernels = [r[0] for r in db.execute("select value from string")]
assert b"kernel_" + b"a" * 640 in kernels, [len(k) for k in kernels]
PY
expect "long names: NVTX names whole to 4095 bytes, cut and marked past it; a long kernel name whole" $? 0
"$rep" "$tmp/long.db" > "$tmp/out" 2>&1
expect "long names: the report counts the names cut" "$(grep -c '^note: 2 name(s) longer than the tracer keeps (4095 bytes) were cut' "$tmp/out")" 1
expect "a run id from GPUTRACE_RUN_ID reaches the terminal escaped" \
  "$(grep -c -F 'gputrace report: run run\x1b[2J\x01x,' "$tmp/out"):$(LC_ALL=C grep -c '[[:cntrl:]]' "$tmp/out")" "1:0"

# ---- two processes of one rank: a Kineto trace each -----------------------
cp "$tmp/run.db" "$tmp/samerank.db"
qw "$tmp/samerank.db" "update process set rank = 0"
timeout 20 "$rep" --kineto "$tmp/k4" --chrome-trace "$tmp/samerank.trace" "$tmp/samerank.db" > "$tmp/out" 2> "$tmp/err"
expect "one rank twice: exit 0, the report says 2 traces" "$?:$(grep -c 'Kineto traces: 2 in' "$tmp/out")" "0:1"
pids=$(q "$tmp/samerank.db" "select pid from process order by pid" | tr '\n' ' ')
second=$(echo $pids | cut -d' ' -f2)
expect "one rank twice: two files, the second named by its pid" "$(ls "$tmp/k4" | tr '\n' ' ')" "rank-0-pid$second.json rank-0.json "
expect "one rank twice: stderr says which file is whose" "$(grep -c "rank of another.*rank-0-pid$second.json" "$tmp/err")" 1
python3 - "$tmp/k4" "$pids" <<'PY'
import json, os, sys
d, pids = sys.argv[1], sorted(int(x) for x in sys.argv[2].split())
seen = sorted(int(e["pid"]) for f in os.listdir(d) for e in json.load(open(os.path.join(d, f)))["traceEvents"]
              if e.get("name") == "process_name" and e["args"]["name"].startswith("rank "))
assert seen == pids, (seen, pids)
PY
expect "one rank twice: each file parses and holds its own process" $? 0
python3 -c "import json, sys
t = json.load(open(sys.argv[1]))['traceEvents']
names = {e['pid']: e['args']['name'] for e in t if e.get('name') == 'process_name'
         and not e['args']['name'].startswith('what-if')}  # the replay's critical paths: a process of their own
assert len(names) == 2 and all(n.startswith('rank 0 ') for n in names.values()), names" "$tmp/samerank.trace"
expect "one rank twice: two processes in the Chrome trace too" $? 0

finish
