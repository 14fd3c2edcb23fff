#!/bin/sh
# tracer_thread_names.sh: the tracer's own threads are named (gputrace-writer,
# gputrace-drain), so that top -H, perf and a debugger tell them from the
# program's, and bench/tracer_threads.sh can measure their CPU apart from
# the program's; the program's own threads keep their names.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
export GPUTRACE_QUIET=1 GPUTRACE_ONE_FILE=1
GPUTRACE_OUTPUT="$tmp/t.db" LD_PRELOAD="$b/.libs/libgputrace.so" "$b/tests/apps/paced_calls" 1000 3 > "$tmp/out" &
pid=$!
# the names of the process's threads once the writer has started (at most 10 s)
names=""
for _ in $(seq 100); do
  names=$(cat /proc/"$pid"/task/*/comm 2> /dev/null | sort | uniq -c | awk '{printf "%s%s:%s", (NR > 1 ? " " : ""), $2, $1}')
  case "$names" in *gputrace-writer*gputrace-drain*|*gputrace-drain*gputrace-writer*) break ;; esac
  sleep 0.1
done
main=$(cat /proc/"$pid"/comm 2> /dev/null)
wait "$pid"
expect "the program ran" "$?" 0
expect "one writer and one drain thread, named" \
  "$(printf '%s\n' $names | grep -c -x -e 'gputrace-writer:1' -e 'gputrace-drain:1')" 2
expect "the program's main thread keeps its name" "$main" "paced_calls"
expect "no other thread took a name of ours" "$(printf '%s\n' $names | grep -v -e '^gputrace-writer:' -e '^gputrace-drain:' | grep -c gputrace)" 0
finish
