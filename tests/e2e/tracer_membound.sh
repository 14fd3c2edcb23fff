#!/bin/sh
# tracer_membound.sh: the tracer's worst case for memory stays within its
# bound of 64 MiB a process (collector/membudget.h).  Every buffer fills at
# once: 16 threads call flat out (a call record and a CUPTI API record
# each, CUPTI on as by default) while another process holds the database's
# write lock, so that the writer stores nothing for 2.5 s.  The rings and
# the drain thread's queue share one budget, and CUPTI's buffers are counted
# from the moment CUPTI gets them: before, each ring grew to its 8 MiB
# beside a 32 MiB queue, ~180 MiB in all.  The peak resident memory traced
# against the same program untraced, and every call stored or counted as
# dropped (some must be: the buffers did fill).
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
export GPUTRACE_ONE_FILE=1 GPUTRACE_QUIET=1
# AddressSanitizer keeps freed memory aside for a while (its quarantine):
# CUPTI's buffers, freed one after another, would stay resident there
export ASAN_OPTIONS="$ASAN_OPTIONS:quarantine_size_mb=1"
lib="$b/.libs/libgputrace.so"
app="$b/tests/apps/flood_threads"
db="$tmp/m.db"
hwm() { sed -n 's/^hwm_kb: //p' "$1"; }
"$app" 16 3 > "$tmp/plain"
expect "untraced: the program ran" "$?:$(grep -c '^calls: [1-9]' "$tmp/plain")" "0:1"
# the lock is held from before the threads' 3 s until they end (FLOOD_GO,
# hold_lock.py's GO), however long the lock took to take
FLOOD_GO="$tmp/go" GPUTRACE_OUTPUT="$db" LD_PRELOAD="$lib" "$app" 16 3 > "$tmp/out" &
pid=$!
python3 "${top_srcdir:-.}/tests/e2e/hold_lock.py" "$db" 120 "$tmp/go" > "$tmp/held"
wait $pid
expect "traced: the program ran" "$?" 0
# held: 3 s or more (the flood's length), not "never"
expect "the lock was held while the threads called ($(cat "$tmp/held"))" \
  "$(awk '$1 == "held" && $2 >= 3 {print "ok"}' "$tmp/held")" ok
made=$(sed -n 's/^calls: //p' "$tmp/out")
stored=$(q "$db" "select (select count(*) from api_call) + (select coalesce(sum(n), 0) from api_call_block)")
dropped=$(q "$db" "select dropped_host from process")
expect "the buffers filled: calls were dropped ($dropped of $made)" "$(( ${dropped:-0} > 0 ))" 1
expect "every call stored or counted ($stored stored, $dropped dropped, $made made)" \
  "$(( ${stored:-0} + ${dropped:-0} ))" "$made"
# the sanitizer build's runtime keeps its own books on the tracer's heap
# (allocator metadata, shadow memory): 24 MiB more allowed there
bound=64
if readelf -d "$lib" 2>/dev/null | grep -q 'NEEDED.*libasan'; then bound=88; fi
added=$(( $(hwm "$tmp/out") - $(hwm "$tmp/plain") ))
note "peak resident memory: traced $(hwm "$tmp/out") KiB, untraced $(hwm "$tmp/plain") KiB: $((added / 1024)) MiB added"
expect "the tracer's memory, every buffer full, within $bound MiB ($((added / 1024)) MiB)" "$(( added <= bound * 1024 ))" 1

# every call a row (GPUTRACE_BULK_AFTER as high as it goes), a thread
# calling flat out for 3 s: a million rows or so.  The index made on them
# at the end was sorted in memory, ~52 bytes a row (SQLite never spills a
# sort to a file with temp_store=MEMORY): 104 MiB at 1.4 M rows; past
# 131,072 rows it is not made (collector/db.c)
rm -f "$db"*
"$app" 1 3 > "$tmp/plain1"
GPUTRACE_CUPTI=0 GPUTRACE_BULK_AFTER=1073741824 GPUTRACE_OUTPUT="$db" LD_PRELOAD="$lib" "$app" 1 3 > "$tmp/out1"
expect "rows: the program ran" "$?" 0
made=$(sed -n 's/^calls: //p' "$tmp/out1")
rows=$(q "$db" "select count(*) from api_call")
dropped=$(q "$db" "select dropped_host from process")
expect "rows: every call stored or counted ($rows rows, $dropped dropped, $made made)" \
  "$(( ${rows:-0} + ${dropped:-0} ))" "$made"
expect "rows: the calls are rows, not blocks" "$(q "$db" "select count(*) from api_call_block")" 0
added=$(( $(hwm "$tmp/out1") - $(hwm "$tmp/plain1") ))
note "every call a row: $rows rows, $((added / 1024)) MiB added"
expect "rows: the tracer's memory, the end's work included, within $bound MiB ($((added / 1024)) MiB)" \
  "$(( added <= bound * 1024 ))" 1
expect "rows: past 131,072 rows no index is sorted at the end ($rows rows)" \
  "$(q "$db" "select count(*) from sqlite_master where name = 'api_call_by_process'")" "$(( rows <= 131072 ))"
finish
