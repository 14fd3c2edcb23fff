# testlib.sh: what the end-to-end shell tests share: sourced, not run.
# Prints each check as the Test Anything Protocol has it, which automake's
# TAP driver counts (Makefile.am): "ok N - what", "not ok N - what", "ok N -
# what # SKIP why"; any other line of a test starts with "# " (`note`).
# `finish` prints the plan, "1..N", at the end, then "# N passed, N failed",
# and sets the exit status.
# The sanitizer build preloads an instrumented library into instrumented
# programs: the runtime's link-order check would refuse that.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
# automake's TAP driver leaves its own descriptors open in the test (3, 4
# and 5: its log and a pipe): closed, so that the programs under test start
# with the descriptors a shell gives them (tracer_files.sh dup2s over the
# tracer's first one, 3, which must be free for it)
for fd in 3 4 5 6 7 8 9; do eval "exec $fd>&-"; done
b=${top_builddir:-.}
s=${top_srcdir:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
# one line each: a newline in a description would end the result there
tap_line() {
  case "$*" in
    *"
"*) printf '%s\n' "$*" | tr '\n' ' ' | sed 's/ $//'; echo ;;
    *) printf '%s\n' "$*" ;;
  esac
}
ok() { pass=$((pass + 1)); tap_line "ok $((pass + fail)) - $1"; }
bad() { fail=$((fail + 1)); tap_line "not ok $((pass + fail)) - $1"; }
# skip WHAT WHY: a check not made here, and why
skip() { pass=$((pass + 1)); tap_line "ok $((pass + fail)) - $1 # SKIP $2"; }
# skip_all WHY: the whole test cannot run here (an empty plan): exits
skip_all() { tap_line "1..0 # SKIP $1"; exit 0; }
# note TEXT...: a line for the reader, no result (each line of it)
note() { printf '%s\n' "$*" | sed 's/^/# /'; }
# expect WHAT GOT WANT
expect() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1 (got '$2', want '$3')"; fi; }
# tap_py COMMAND...: a Python checker that prints its checks through
# tap.py, run in the middle of this test's: its checks numbered on from
# these and counted with them (one plan for both, finish's)
tap_py() {
  rm -f "$tmp/tap_counts"
  TAP_START=$((pass + fail)) TAP_COUNTS="$tmp/tap_counts" "$@"
  tap_rc=$?
  if [ -s "$tmp/tap_counts" ]; then
    read -r tap_p tap_f < "$tmp/tap_counts"
    pass=$((pass + tap_p)) fail=$((fail + tap_f))
  fi
  [ -s "$tmp/tap_counts" ] && [ "$tap_rc" -le 1 ] || bad "${2##*/} finished and counted its checks (exit $tap_rc)"
}
# db_of RUN: a file sqlite3 can query for RUN (gputrace record -o RUN, or
# GPUTRACE_OUTPUT=RUN) with every record a row, as a user's SQL sees it
# after `gputrace merge` (which makes rows of what the tracer stored in
# blocks): RUN itself when it is a file without blocks; the one database
# of a run directory, likewise; else RUN merged into one file (made again
# once a file of RUN changed); nothing yet: a path sqlite3 cannot open (it
# would make an empty file where the tracer makes its directory)
has_blocks() {
  [ "$(sqlite3 -readonly "$1" "select exists (select 1 from api_call_block) or exists (select 1 from nvtx_range_block)
    or exists (select 1 from cupti_api_block) or exists (select 1 from gpu_op_block)" 2> /dev/null)" = 1 ]
}
db_of() {
  [ -e "$1" ] || { echo "$tmp/no-such-dir/none.db"; return; }
  if [ -d "$1" ]; then
    set -- "$1" "$1"/*.db
    [ -e "$2" ] || { echo "$tmp/no-such-dir/none.db"; return; }
    if [ $# -eq 2 ] && ! has_blocks "$2"; then echo "$2"; return; fi
  elif ! has_blocks "$1"; then
    echo "$1"; return
  fi
  m="$tmp/merged-$(printf '%s' "$1" | cksum | cut -d' ' -f1).db"
  if [ ! -f "$m" ] || [ -n "$(find "$1" "$1-wal" -newer "$m" 2> /dev/null | head -n 1)" ]; then
    rm -f "$m"
    "$b/gputrace" merge "$m" "$1" > /dev/null || return 1
  fi
  echo "$m"
}
# q RUN SQL: the query on RUN's records (db_of)
q() { sqlite3 "$(db_of "$1")" "$2"; }
# qr RUN SQL: the query on RUN's one file as the tracer stored it (blocks
# and all), read only: RUN itself, or the one database of a run directory
qr() {
  if [ -d "$1" ]; then set -- "$1"/*.db "$2"; [ $# -eq 2 ] || { echo "qr: not one database" >&2; return 1; }; fi
  [ -f "$1" ] || { echo "qr: no database $1" >&2; return 1; }
  sqlite3 -readonly "$1" "$2"
}
# qw FILE SQL: a change to FILE itself (a test's doctored input), its
# blocks made rows first (gputrace expand) so that the change reaches
# every record
qw() {
  if has_blocks "$1"; then "$b/gputrace" expand "$1" > /dev/null || return 1; fi
  sqlite3 "$1" "$2"
}
finish() { echo "1..$((pass + fail))"; echo "# $pass passed, $fail failed"; [ "$fail" -eq 0 ]; }

# hand_rows FIXTURE: the SQL of a hand-written golden fixture
# (tests/data/golden/hand-*): the schema, the rows of the fixture its
# rows.sql names on a first line "-- base: FIXTURE" (a variant written as
# what it changes), then its own
hand_rows() {
  hg="${top_srcdir:-.}/tests/data/golden"
  hbase=$(sed -n '1s/^-- base: //p' "$hg/$1/rows.sql")
  cat "$hg/hand-schema.sql" ${hbase:+"$hg/$hbase/rows.sql"} "$hg/$1/rows.sql"
}
