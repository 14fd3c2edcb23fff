#!/bin/sh
# tracer_stall.sh: the writer held up for 1.5 s in the middle of a run
# fills no thread's ring: the rings are drained by a thread that never waits
# for the database (collector/stage.h), into a queue that holds what the
# writer stores once it goes on.  The hold-up: another process takes the
# database's write lock (as a process of a --one-file run does), so every
# write of the writer waits for it, as it would for a long commit or
# checkpoint.  The rings are kept small (2 MiB: 32,768 records, 0.33 s at
# the rate offered), far less than the 150,000 records made meanwhile.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
export GPUTRACE_ONE_FILE=1 GPUTRACE_CUPTI=0 GPUTRACE_QUIET=1 GPUTRACE_BUFFER_MB=2
lib="$b/.libs/libgputrace.so"
db="$tmp/s.db"
PACED_GO="$tmp/go" GPUTRACE_OUTPUT="$db" LD_PRELOAD="$lib" "$b/tests/apps/paced_calls" 100000 3 > "$tmp/out" &
app=$!
# once the process row is there, hold the write lock for 1.5 s, the
# program's 3 s of calls starting once it is held (PACED_GO): taken "1.5 s
# from whenever the row showed", a slow start could leave the hold before
# the calls or after them, and the check pass on nothing
python3 "${top_srcdir:-.}/tests/e2e/hold_lock.py" "$db" 1.5 "$tmp/go" > "$tmp/held"
wait $app
expect "the program ran to its end" "$?" 0
# 1.5 s or more: a loaded machine oversleeps (held 1.6 failed a run)
expect "the lock was held for 1.5 s while the program made calls ($(cat "$tmp/held"))" \
  "$(awk '$1 == "held" && $2 >= 1.5 {print "ok"}' "$tmp/held")" ok
made=$(sed -n 's/^calls: //p' "$tmp/out")
expect "nothing dropped" "$(q "$db" "select dropped_host from process")" 0
expect "every call stored ($made made)" \
  "$(q "$db" "select (select count(*) from api_call) + (select coalesce(sum(n), 0) from api_call_block)")" "$made"
finish
