#!/bin/sh
# report_jobs.sh: the report on several workers (--jobs, viewer/proc_jobs.h)
# makes every output byte for byte as one worker does: the text, the JSON
# (with --charges), the Chrome trace, the Kineto traces, the HTML page, the
# exit status and what stderr says.  Multi-rank recordings of the test
# workloads, as a run directory (one file per process) and as one file of
# many processes; read whole and a window at a time; on one host and on two
# (whose traces wait for the clocks' alignment: trace_pass.c); --range; then
# that -j and GPUTRACE_REPORT_JOBS choose how many workers there are.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
rep="$b/gputrace-report"
export GPUSIM_LIB="$b/tests/sim/.libs/libgpusim.so"

# outputs J DB [options...]: every output of the report of DB on J workers,
# in $tmp/out.J (the same paths each time: the text names them)
outputs() {
  j=$1 db=$2; shift 2
  rm -rf "$tmp/o"
  mkdir "$tmp/o"
  "$rep" -j "$j" --chrome-trace "$tmp/o/trace.json" --kineto "$tmp/o/kineto" --html "$tmp/o/report.html" "$@" \
    "$db" > "$tmp/o/text" 2> "$tmp/o/err"
  echo "exit $?" >> "$tmp/o/text"
  "$rep" -j "$j" --format json --charges "$@" "$db" > "$tmp/o/json" 2>> "$tmp/o/err"
  echo "exit $?" >> "$tmp/o/json"
  # a rank read a window at a time says so as its worker plans it: in the
  # order the workers go; every other line in process order
  sort "$tmp/o/err" > "$tmp/o/err.sorted" && rm "$tmp/o/err"
  rm -rf "$tmp/out.$j"
  mv "$tmp/o" "$tmp/out.$j"
}

# same_jobs WHAT DB [options...]: the outputs on 2 and 4 workers are the
# one worker's
same_jobs() {
  what=$1 db=$2; shift 2
  outputs 1 "$db" "$@"
  [ -s "$tmp/out.1/trace.json" ] && [ -s "$tmp/out.1/kineto/rank-0.json" ] && [ -s "$tmp/out.1/report.html" ] ||
    bad "$what: one worker wrote every output ($(ls "$tmp/out.1" | tr '\n' ' '))"
  for j in 2 4; do
    outputs "$j" "$db" "$@"
    if grep -l "Sanitizer\|runtime error:" "$tmp/out.$j/err.sorted" "$tmp/out.1/err.sorted"; then
      bad "$what: $j workers: the sanitizers found something: $(grep -h -m 3 "Sanitizer\|runtime error:" \
        "$tmp/out.$j/err.sorted" "$tmp/out.1/err.sorted" | tr '\n' ' ')"
    elif diff -r "$tmp/out.1" "$tmp/out.$j" > "$tmp/diff" 2>&1; then
      ok "$what: $j workers, every output the same as one's ($(wc -c < "$tmp/out.$j/trace.json") bytes of trace)"
    else
      bad "$what: $j workers change the report: $(head -c 400 "$tmp/diff" | tr '\n' ' ')"
    fi
  done
}

record() { # record NAME APP [env...]: a 4-rank run directory
  name=$1 app=$2; shift 2
  env "$@" "$b/gputrace" record -f -o "$tmp/$name.db" -- "$b/tests/sim/gpusim-run" -n 4 --timeout 60 \
    "$b/tests/apps/$app" > /dev/null 2>&1
}

record train train_demo
same_jobs "train_demo" "$tmp/train.db"
export GPUTRACE_REPORT_WINDOW_ROWS=50
same_jobs "train_demo, windows of 50 rows" "$tmp/train.db"
unset GPUTRACE_REPORT_WINDOW_ROWS
expect "... each rank was cut into windows" "$(grep -c 'read in [0-9]* windows' "$tmp/out.4/err.sorted")" 8
range=$(sqlite3 "$(db_of "$tmp/train.db")" "select value from label where value like '%step%' limit 1")
[ -n "$range" ] && same_jobs "train_demo, --range $range" "$tmp/train.db" --range "$range"
record pipeline pipeline
same_jobs "pipeline (point to point)" "$tmp/pipeline.db"
record desync desync
same_jobs "desync (comm.mismatch)" "$tmp/desync.db"
record multi multi_gpu
same_jobs "multi_gpu" "$tmp/multi.db"
# one file that every process writes
record overlapped overlapped GPUTRACE_ONE_FILE=1
same_jobs "overlapped, one file of 4 processes" "$tmp/overlapped.db"
# two hosts, one 5 ms ahead: the traces are written once the clocks are aligned
record hosts straggler GPUSIM_CLOCK_SHIFT_NS=1:5000000 GPUSIM_HOSTNAME=1:simhost-b
same_jobs "straggler on two hosts (traces after the alignment)" "$tmp/hosts.db"
expect "... two hosts, aligned" "$(sed '$d' "$tmp/out.4/json" | python3 -c "import json,sys
print(len(json.load(sys.stdin).get('clock_alignment', {}).get('hosts', [])))")" 2
export GPUTRACE_REPORT_WINDOW_ROWS=60
same_jobs "two hosts, windows of 60 rows" "$tmp/hosts.db"
unset GPUTRACE_REPORT_WINDOW_ROWS

# two damaged files of a run directory (pages of their second half
# overwritten): every output the same on 1, 2 and 4 workers, each big
# table read in halves on two connections (the default) or in one piece,
# and the damage named that the load meets first: the damaged file of the
# lower rank
# Damage the report may not meet, or meet only in a later pass (a file
# whose second half holds only blocks' overflow pages and NCCL's records:
# layouts vary with the recording; the other file's damage met in the
# first pass was then named) is made denser until the report alone on that
# file meets it in the first pass, reading a table of that process ("...
# of pid N"), so that the lower rank's damage is the first met.
cp -r "$tmp/train.db" "$tmp/damaged.db"
for f in "$tmp"/damaged.db/*.db; do sqlite3 "$f" "PRAGMA wal_checkpoint(TRUNCATE);" > /dev/null; done
for f in $(ls "$tmp"/damaged.db/*.db | sed -n '2p;3p'); do
  rank=$(sqlite3 "$f" "select rank from process")
  for how in "0.4 3" "0.4 1" "0.2 1"; do
    python3 -c "import os, sys
f = sys.argv[1]; size = os.path.getsize(f); start, step = float(sys.argv[2]), int(sys.argv[3])
with open(f, 'r+b') as h:
    for page in range(int(size * start) // 4096, size // 4096, step):
        h.seek(page * 4096 + 8); h.write(b'\x0d\xff\xff\xff' * 64)" "$f" $how
    rm -rf "$tmp/alone" && mkdir "$tmp/alone" && cp "$f" "$tmp/alone/"
    "$rep" --format json "$tmp/alone" 2>&1 > /dev/null | grep -q 'is damaged .* of pid [0-9]*)' && break
  done
  echo "$rank $f"
done | sort -n | head -n 1 | cut -d' ' -f2 > "$tmp/first_damaged"
same_jobs "two damaged files" "$tmp/damaged.db"
expect "... the report names the lower rank's damaged file (text and JSON), and exits 1" \
  "$(grep -c "^gputrace-report: $(cat "$tmp/first_damaged") is damaged" "$tmp/out.4/err.sorted"):$(grep -c \
     'is damaged' "$tmp/out.4/err.sorted"):$(tail -n 1 "$tmp/out.4/json")" "2:2:exit 1"
rm -rf "$tmp/damaged.halves" && cp -r "$tmp/out.1" "$tmp/damaged.halves"
export GPUTRACE_REPORT_THREADS=1
same_jobs "two damaged files, each table read in one piece" "$tmp/damaged.db"
expect "... as read in halves" "$(diff -r "$tmp/damaged.halves" "$tmp/out.1" > /dev/null && echo same)" same
unset GPUTRACE_REPORT_THREADS
# and in every run: SQLite decoded a damaged page's cells from the memory
# past it (what lies there changes from run to run), which named the other
# damaged file in about 1 run in 20, on any number of workers
differ=0
for i in 0 1 2 3 4 5 6 7; do
  for j in 1 2 4; do
    "$rep" -j "$j" --format json --charges "$tmp/damaged.db" > "$tmp/again" 2>&1
    echo "exit $?" >> "$tmp/again"
    [ -f "$tmp/again.first" ] || mv "$tmp/again" "$tmp/again.first"
    [ -f "$tmp/again" ] && ! cmp -s "$tmp/again" "$tmp/again.first" && differ=$((differ + 1))
  done
done
expect "... 24 runs on 1, 2 and 4 workers: the same JSON, stderr and exit status each time" "$differ" 0

# how many workers: -j, else GPUTRACE_REPORT_JOBS, else the CPUs; at most
# one per process
workers() { "$@" "$tmp/train.db" 2>&1 > /dev/null | grep -o '[0-9]* processes on [0-9]* workers*'; }
expect "GPUTRACE_REPORT_JOBS=2: two workers" "$(GPUTRACE_REPORT_JOBS=2 workers "$rep")" "4 processes on 2 workers"
expect "... -j 3 before it" "$(GPUTRACE_REPORT_JOBS=2 workers "$rep" -j 3)" "4 processes on 3 workers"
expect "... --jobs 1" "$(GPUTRACE_REPORT_JOBS=2 workers "$rep" --jobs 1)" "4 processes on 1 worker"
expect "... -j16: one per process" "$(GPUTRACE_REPORT_JOBS=2 workers "$rep" -j16)" "4 processes on 4 workers"
expect "... GPUTRACE_REPORT_JOBS=64: one per process" "$(GPUTRACE_REPORT_JOBS=64 workers "$rep")" \
  "4 processes on 4 workers"
cpus=$(getconf _NPROCESSORS_ONLN)
[ "$cpus" -gt 4 ] && cpus=4
expect "... a bad GPUTRACE_REPORT_JOBS: the CPUs, said" \
  "$(GPUTRACE_REPORT_JOBS=many workers "$rep"):$(GPUTRACE_REPORT_JOBS=many "$rep" "$tmp/train.db" 2>&1 >/dev/null |
     grep -c 'GPUTRACE_REPORT_JOBS is a number')" "4 processes on $cpus worker$([ "$cpus" -gt 1 ] && echo s):1"
"$rep" -j 0 "$tmp/train.db" > /dev/null 2> "$tmp/err"
expect "-j 0: bad usage, one line" "$?:$(wc -l < "$tmp/err")" "2:1"
# no scratch file for the traces' parts: kept in memory, the same trace
TMPDIR="$tmp/none" "$rep" -j 2 --chrome-trace "$tmp/nt.json" "$tmp/train.db" > /dev/null 2>&1
"$rep" -j 1 --chrome-trace "$tmp/nt1.json" "$tmp/train.db" > /dev/null 2>&1
expect "no scratch directory: the same Chrome trace on 2 workers" "$(cmp "$tmp/nt.json" "$tmp/nt1.json" && echo same)" same
finish
