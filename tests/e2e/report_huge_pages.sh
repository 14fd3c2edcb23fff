#!/bin/sh
# report_huge_pages.sh: where the kernel gives transparent huge pages only
# to memory advised for them, the report runs itself once more with glibc's
# malloc told to advise its heaps (viewer/huge_pages.c): seen as its second
# execve (strace), with the user's GLIBC_TUNABLES kept beside ours; none
# where the user turned it off or named the tunable, and the same report
# every way.  The page faults it saves are noted, not asserted (a machine
# short of free huge pages gets small ones).
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
rep="$b/gputrace-report"
sqlite3 "$tmp/run.db" < "$top_srcdir/tests/data/golden/sim-train_demo/input.sql"
thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2> /dev/null)
# execs ENV...: the report's execve calls, one a line: the path and its
# GLIBC_TUNABLES ("-" for none); the JSON in $tmp/out.json
execs() {
  env "$@" strace -f -qq -v -s 256 -e trace=execve -o "$tmp/st" "$rep" --format json "$tmp/run.db" > "$tmp/out.json" 2> /dev/null
  sed -n 's/.*execve("\([^"]*\)".*/\1/p' "$tmp/st" | while read -r path; do printf '%s ' "$path"; done
  echo
  grep -o 'GLIBC_TUNABLES=[^"]*' "$tmp/st" | tr '\n' ' '
}
"$rep" --format json "$tmp/run.db" > "$tmp/plain.json" 2> /dev/null
GPUTRACE_REPORT_HUGE_PAGES=0 "$rep" --format json "$tmp/run.db" > "$tmp/off.json" 2> /dev/null
expect "the same report with huge pages and without" "$(cmp -s "$tmp/plain.json" "$tmp/off.json" && echo same)" same
if ! command -v strace > /dev/null 2>&1 || ! strace -f -qq -o /dev/null true > /dev/null 2>&1; then
  skip "the report's second start" "no strace here, or it may not trace"
elif ! echo "$thp" | grep -q '\[madvise\]'; then
  expect "THP '$thp': the report starts once" "$(execs | head -n 1)" "$rep "
else
  got=$(execs GLIBC_TUNABLES=glibc.malloc.check=0)
  expect "THP on advice: the report runs itself once more, the user's tunables kept beside hugetlb" "$got" \
    "$rep /proc/self/exe 
GLIBC_TUNABLES=glibc.malloc.check=0 GLIBC_TUNABLES=glibc.malloc.check=0:glibc.malloc.hugetlb=1 "
  expect "... its report the same" "$(cmp -s "$tmp/out.json" "$tmp/plain.json" && echo same)" same
  expect "GPUTRACE_REPORT_HUGE_PAGES=0: one start" "$(execs GPUTRACE_REPORT_HUGE_PAGES=0 | head -n 1)" "$rep "
  expect "GLIBC_TUNABLES naming hugetlb (the user's choice): one start" \
    "$(execs GLIBC_TUNABLES=glibc.malloc.hugetlb=0 | head -n 1)" "$rep "
  # the faults it saves, on the bench's scale of arrays (noted)
  f() { env "$@" /usr/bin/time -f %R -o "$tmp/t" "$rep" --format json "$tmp/run.db" > /dev/null 2>&1; cat "$tmp/t"; }
  [ -x /usr/bin/time ] && note "minor page faults of this small report: $(f) with huge pages, $(f GPUTRACE_REPORT_HUGE_PAGES=0) without"
fi
finish
