#!/bin/sh
# fork_busy.sh: a process that forks while its GPU work runs, the child
# making a CUDA call and ending: no child hangs, untraced (the simulator
# itself: its stream threads' lock held across fork left 105 of 300
# children waiting forever) or traced, and the traced parent's calls are
# all stored.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
export GPUTRACE_ONE_FILE=1
app="$b/tests/apps/fork_busy"
"$app" 200 > "$tmp/plain"
expect "untraced: 200 forks, no child hung" "$?:$(cat "$tmp/plain")" "0:forks: 200 hung: 0"
GPUTRACE_OUTPUT="$tmp/f.db" LD_PRELOAD="$b/.libs/libgputrace.so" "$app" 200 > "$tmp/out"
rc=$?
# (the sanitizer build, and only it, left one traced child of 200 not
# ended within 2 s, the wait then, in 2 of 4 clean CI runs, the second
# after the simulator's fork fixes: one allowed there, and the count
# printed.  The cause, caught with gdb on a hung child under load (3 runs
# of 20 of monitor.sh's 50 forks): ASan's allocator, in this compiler's
# runtime, takes no lock around fork, and the child's first CUDA call opens
# its own database (SQLite allocates: create in collector/db.c, from
# gt_writer_open), waiting for ever on the allocator's lock another of the
# parent's threads held at the fork; glibc's malloc is reset in the child)
hung=$(sed -n 's/^forks: 200 hung: //p' "$tmp/out")
note "traced: $hung of 200 children not ended after 10 s"
expect "traced: 200 forks, no child hung${GT_SANITIZED:+ (one allowed under the sanitizers)}" \
  "$rc:$(test -n "$hung" && test "$hung" -le "$([ -n "${GT_SANITIZED:-}" ] && echo 1 || echo 0)" && echo none)" "0:none"
expect "traced: the parent's 10,000 memsets stored, none dropped" \
  "$(q "$tmp/f.db" "select count(*) || ':' || (select dropped_host from process where pid = (select min(pid) from process)) from api_call_named where api_name = 'cudaMemsetAsync' and process_id = (select id from process order by id limit 1)")" "10000:0"
finish
