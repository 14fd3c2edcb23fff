# testlib.sh: what the end-to-end shell tests share: sourced, not run.
# Counts checks; `finish` prints the closing "N passed, N failed" line and
# sets the exit status.
# The sanitizer build preloads an instrumented library into instrumented
# programs: the runtime's link-order check would refuse that.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
b=${top_builddir:-.}
s=${top_srcdir:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "ok: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); }
# expect WHAT GOT WANT
expect() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1 (got '$2', want '$3')"; fi; }
# db_of RUN: a file sqlite3 can query for RUN (gputrace record -o RUN, or
# GPUTRACE_OUTPUT=RUN): RUN itself when it is a file; the one database of a
# run directory; or its databases merged into one (gputrace merge, made
# again once one of them changed); nothing yet: a path sqlite3 cannot
# open (it would make an empty file where the tracer makes its directory)
db_of() {
  [ -e "$1" ] || { echo "$tmp/no-such-dir/none.db"; return; }
  [ -d "$1" ] || { echo "$1"; return; }
  set -- "$1" "$1"/*.db
  [ -e "$2" ] || { echo "$tmp/no-such-dir/none.db"; return; }
  if [ $# -eq 2 ]; then echo "$2"; return; fi
  m="$tmp/merged-$(printf '%s' "$1" | cksum | cut -d' ' -f1).db"
  if [ ! -f "$m" ] || [ -n "$(find "$1" -newer "$m" | head -n 1)" ]; then
    rm -f "$m"
    "$b/gputrace" merge "$m" "$1" > /dev/null || return 1
  fi
  echo "$m"
}
# q RUN SQL: the query on RUN's records (db_of)
q() { sqlite3 "$(db_of "$1")" "$2"; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; }
