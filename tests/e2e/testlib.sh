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
q() { sqlite3 "$1" "$2"; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; }
