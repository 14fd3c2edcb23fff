#!/bin/sh
# golden.sh [--update] [FIXTURE...]: the report's golden tests
# (tests/data/golden/README.md).  Each fixture is a folder of
# tests/data/golden holding an input and the report's exact outputs for it:
# the input is loaded (an SQL dump into a fresh database, or a trace of
# another tool read as it is), the report run on it, and each output
# compared with the expected one byte for byte, a unified diff shown on a
# mismatch.  The inputs are recordings, not live runs: nothing here depends
# on the machine's load, so any difference is a change of the report's.
# The JSON report is made twice, by one worker and by two
# (GPUTRACE_REPORT_JOBS), which must agree with one expected file.
# A simulator fixture (a file "recording" beside its input, record.sh) is
# also held to what its workload's header documents, timing verdicts
# included (tests/data/golden/verdicts.py): the analyses' verdicts on
# timing are asserted on these fixed recordings, not on live runs.
# With --update, the expected outputs are written instead (an intended
# change: review the diff before committing it); a fixture that has none
# gets report.json, report.txt and chrome.json.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
g="$s/tests/data/golden"
update=0
if [ "${1:-}" = "--update" ]; then update=1; shift; fi
# the report's text is in English and its numbers in C's format anyway; fix
# what the environment could change
export LC_ALL=C TZ=UTC
unset GPUTRACE_REPORT_THREADS GPUTRACE_REPORT_WINDOW_ROWS
OUTPUTS="report.json report.txt chrome.json charges.json"
DEFAULT_OUTPUTS="report.json report.txt chrome.json"
MAX_DIFF=200

# input_of FIXTURE: the path the report is to read for the fixture
# (input.sql: an SQL dump; rows.sql: rows of the tracer's schema,
# hand-schema.sql, after another fixture's where its first line says
# "-- base: FIXTURE" (hand_rows); input: a line naming a file or folder of
# the source tree)
input_of() {
  dir="$g/$1"
  mkdir -p "$tmp/$1"
  if [ -f "$dir/input.sql" ]; then
    sqlite3 "$tmp/$1/run.db" < "$dir/input.sql" || return 1
    echo "$tmp/$1/run.db"
  elif [ -f "$dir/rows.sql" ]; then
    hand_rows "$1" | sqlite3 "$tmp/$1/run.db" || return 1
    echo "$tmp/$1/run.db"
  elif [ -f "$dir/input" ]; then
    echo "$s/$(head -n 1 "$dir/input")"
  else
    return 1
  fi
}

# make FIXTURE OUTPUT INPUT GOT [JOBS [CHROME]]: the report's output of
# that kind; the JSON report's run writes the Chrome trace CHROME too (the
# same JSON as without it: one run of the report less a fixture)
make_output() {
  out=$4
  case "$2" in
    report.json) GPUTRACE_REPORT_JOBS=$5 "$b/gputrace-report" --format json ${6:+--chrome-trace "$6"} "$3" > "$out" ;;
    report.txt) "$b/gputrace-report" "$3" > "$out" ;;
    chrome.json) "$b/gputrace-report" --format json --chrome-trace "$out" "$3" > /dev/null ;;
    charges.json) "$b/gputrace-report" --format json --charges "$3" > "$out" ;;
  esac 2> "$out.err"
}

# compare WHAT EXPECTED GOT [strict]: with strict, never updated (the
# second worker count's output is held to the first's)
compare() {
  if [ "$update" = 1 ] && [ -z "${4:-}" ]; then
    if cmp -s "$2" "$3"; then ok "$1 (unchanged)"; else cp "$3" "$2" && ok "$1 (updated)"; fi
  elif cmp -s "$2" "$3"; then
    ok "$1"
  else
    bad "$1 differs from $(basename "$(dirname "$2")")/$(basename "$2") (- expected, + got; update.sh rewrites it)"
    diff -u --label "expected" --label "got" "$2" "$3" > "$3.diff"
    note "$(head -n "$MAX_DIFF" "$3.diff")"
    n=$(wc -l < "$3.diff")
    [ "$n" -le "$MAX_DIFF" ] || note "... ($n lines of diff in all)"
  fi
}

check_fixture() {
  f=$1
  in=$(input_of "$f") || { bad "$f: input loaded (no input.sql, rows.sql or input there, or it does not load)"; return; }
  outs=""
  for o in $OUTPUTS; do [ -f "$g/$f/$o" ] && outs="$outs $o"; done
  if [ -z "$outs" ]; then
    if [ "$update" = 0 ]; then bad "$f: no expected output (update.sh makes them)"; return; fi
    outs=$DEFAULT_OUTPUTS
  fi
  # the Chrome trace made by the first JSON report's run, when both are
  # checked (then after it in the list)
  chrome=""
  case " $outs " in *" report.json "*" chrome.json "*) chrome="$tmp/$f/1.chrome.json" ;; esac
  for o in $outs; do
    for jobs in 1 2; do
      [ "$o" = report.json ] || [ "$jobs" = 1 ] || continue
      got="$tmp/$f/$jobs.$o"
      what="$f: $o"
      [ "$o" = report.json ] && what="$what (GPUTRACE_REPORT_JOBS=$jobs)"
      if [ "$o" = chrome.json ] && [ -n "$chrome" ]; then
        [ -f "$got" ] || { bad "$what: written by the JSON report's run"; continue; }
      elif ! make_output "$f" "$o" "$in" "$got" "$jobs" "$([ "$o$jobs" = report.json1 ] && echo "$chrome")"; then
        bad "$what: the report exits 0 ($(head -n 3 "$got.err"))"
        continue
      fi
      compare "$what" "$g/$f/$o" "$got" "$([ "$jobs" = 2 ] && echo strict)"
    done
  done
  [ -f "$g/$f/recording" ] && check_verdicts "$f" "$in" "$tmp/$f/1.report.json"
  [ -f "$g/$f/report.txt" ] && check_width "$f" "$g/$f/report.txt"
}

# check_width FIXTURE TEXT: the text report fits 100 columns but for call
# sites ("    at ") and a word longer than a line (a kernel's name).  Live
# runs asserted it on a few workloads (report_workloads.py), and a run
# whose slowest step lost most to idle.host_blocked passed it there; here
# every fixture, every writer
check_width() {
  long=$(awk 'length($0) > 100 && !/^    at / && $0 !~ /^ *[^ ]+$/ {n++; if (!l) l = substr($0, 1, 60) "..."}
              END {if (n) print n " lines, the first: " l}' "$2")
  if [ -z "$long" ]; then ok "$1: report.txt fits 100 columns"; else bad "$1: report.txt fits 100 columns ($long)"; fi
}

# check_verdicts FIXTURE DB [JSON]: the findings its workload documents, on
# the report of its recording as built (verdicts.py's checks, counted with
# these); JSON: that report made already (the JSON report of one worker,
# which two workers' is held to byte for byte)
check_verdicts() {
  json="$tmp/$1/verdicts.json"
  if [ -s "${3:-}" ]; then
    json=$3
  elif ! "$b/gputrace-report" --format json "$2" > "$json" 2> "$json.err"; then
    bad "$1: the report exits 0 for its verdicts ($(head -n 3 "$json.err"))"
    return
  fi
  top_builddir=$b tap_py python3 "$g/verdicts.py" "$g/$1" "$json" "$2" "$s"
}

if [ $# -gt 0 ]; then
  fixtures="$*"
else
  fixtures=$(cd "$g" && for d in */; do echo "${d%/}"; done)
fi
for f in $fixtures; do
  if [ ! -d "$g/$f" ]; then bad "$f: no such fixture in tests/data/golden"; continue; fi
  check_fixture "$f"
done
finish
