#!/bin/sh
# tracer_stress.sh: the tracer under concurrency and trouble: 16 threads at
# once, 8 processes appending to one file, a forked child, and a disk that
# fills up, all without losing records or changing the program.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
gt="$b/gputrace"
lib="$b/.libs/libgputrace.so"
app="$b/tests/apps/threads"
# calls as rows (these checks read them with SQL); calls in bulk blocks are
# checked below
export GPUTRACE_BULK_AFTER=1000000000

out=$("$gt" record -o "$tmp/t.db" -- "$app" 16 2000)
expect "16 threads: program unchanged" "$?" 0
want=$(echo "$out" | sed -n 's/wrapped calls: //p')
expect "16 threads: every call recorded" "$(q "$tmp/t.db" "select count(*) from api_call")" "$want"
expect "16 threads: nothing dropped" "$(q "$tmp/t.db" "select dropped_host from process")" 0
expect "16 threads: 16 recording threads besides main" "$(q "$tmp/t.db" "select count(distinct tid) from api_call_named where api_name = 'cudaStreamQuery'")" 16
expect "16 threads: call ids unique" "$(q "$tmp/t.db" "select count(distinct call_id) = count(*) from api_call")" 1

# the default layout (a file per process in the run directory), and
# --one-file (every process appends to one file)
for layout in "file each" "one file"; do
  opt=; [ "$layout" = "one file" ] && opt=--one-file
  rm -rf "$tmp/p.db"
  "$gt" record $opt -o "$tmp/p.db" -- "$b/tests/sim/gpusim-run" -n 8 "$app" 4 1000 > "$tmp/out"
  expect "8 processes, $layout: all succeed" "$?" 0
  want=$(sed -n 's/wrapped calls: //p' "$tmp/out" | awk '{s += $1} END {print s}')
  expect "8 processes, $layout: every call recorded" "$(q "$tmp/p.db" "select count(*) from api_call")" "$want"
  expect "8 processes, $layout: 8 process rows, ranks 0-7" "$(q "$tmp/p.db" "select count(distinct rank) || ':' || count(*) from process")" "8:8"
  expect "8 processes, $layout: the files" "$([ -d "$tmp/p.db" ] && ls "$tmp/p.db" | grep -c '^.*-[0-9]*\.db$' || echo file)" \
    "$([ "$layout" = "one file" ] && echo file || echo 8)"
done

"$gt" record -o "$tmp/f.db" -- "$app" 2 100 fork > "$tmp/out"
expect "fork: parent and child exit as without tracing" "$?:$(grep -c 'child exited 3' "$tmp/out")" "0:1"
expect "fork: the child is a process of its own" "$(q "$tmp/f.db" "select count(distinct pid) from process")" 2
expect "fork: the child's calls are its own" \
  "$(q "$tmp/f.db" "select group_concat(a.name) from api_call c join api a on a.id = c.api join process p on p.id = c.process_id where p.exit_code = 3 order by c.start_ns")" \
  "cudaSetDevice,cudaMalloc,cudaFree"
# the child's stacks were met first in the parent (interned there, in the
# tables it inherited): its own file must still name every one of them
expect "fork: each call site of the child's calls named in the child's process" \
  "$(q "$tmp/f.db" "select count(*) > 0 and count(*) = count(s.id) from api_call c join process p on p.id = c.process_id
     left join callsite s on s.process_id = c.process_id and s.id = c.callsite where p.exit_code = 3 and c.callsite > 0")" \
  1
expect "fork: the parent's records are not repeated by the child" \
  "$(q "$tmp/f.db" "select count(*) from api_call c join process p on p.id = c.process_id where p.exit_code = 0")" \
  "$(sed -n 's/wrapped calls: //p' "$tmp/out")"

# a forked child that activates the tracer again and then gets SIGTERM dies
# of SIGTERM (the handler must not chain to itself)
"$gt" record -o "$tmp/ft.db" -- "$app" 1 10 forkterm > "$tmp/out"
expect "fork + SIGTERM: the child dies of SIGTERM, as untraced" "$?:$(grep -c 'child killed by signal 15' "$tmp/out")" "0:1"
expect "fork + SIGTERM: the child's end is recorded" "$(q "$tmp/ft.db" "select count(*) from process where exit_signal = 15")" 1

# exec: what the old image recorded is kept; a failed exec goes on tracing
"$gt" record -o "$tmp/e.db" -- "$app" 2 100 exec > "$tmp/out"
expect "exec: the program ends as the exec'd one does" "$?:$(grep -c 'exec failed as expected' "$tmp/out")" "0:1"
expect "exec: the image before exec is recorded and ends by exec" \
  "$(q "$tmp/e.db" "select count(*) from process where end_reason = 'exec'")" 2
expect "exec: every call before the exec is there" \
  "$(q "$tmp/e.db" "select count(*) from api_call")" "$(( $(sed -n 's/wrapped calls: //p' "$tmp/out") + 1 ))"

# a full disk: the files may not grow past 1 MB (SIGXFSZ ignored, so the
# write fails with EFBIG as on a full disk)
(trap '' XFSZ; ulimit -f 2000; GPUTRACE_OUTPUT="$tmp/full.db" GPUTRACE_FLUSH_MS=20 LD_PRELOAD="$lib" \
   exec "$app" 4 20000 > "$tmp/out" 2> "$tmp/err")
expect "full disk: program unchanged" "$?:$(grep -c 'wrapped calls' "$tmp/out")" "0:1"
expect "full disk: one line says tracing stopped" "$(grep -c 'gputrace: writing .* failed' "$tmp/err")" 1
expect "full disk: what was committed stays readable" "$(q "$tmp/full.db" "select count(*) > 0 from process")" 1

# full rings: 4 threads calling into 1 MiB rings overflow them, and the
# drain thread's queue behind them (32 MiB, 524,000 records), while the
# writer is held up by another process's lock (as in a --one-file run);
# the records that do not fit are counted as dropped (each goes to a
# thread-local scratch record instead of the ring) and the program runs
# on.  The lock is held from before the threads' rounds until they end
# (THREADS_GO, hold_lock.py's GO): the 2.4 M calls all meet a writer held
# up, on a fast machine as on a slow one (held for 3 s from whenever the
# process row showed, a fast run had made most of its calls first and
# dropped none).  In blocks: at the end the writer stores what the queue
# holds, and as rows that took longer than the exit waits under the
# sanitizers (10 s).  Counted as stored (qr), blocks and rows: a merge of
# 1.2 M records into rows took 40 s of a CI run's sanitizer pass
THREADS_GO="$tmp/go" GPUTRACE_BULK_AFTER=0 GPUTRACE_ONE_FILE=1 GPUTRACE_BUFFER_MB=1 GPUTRACE_OUTPUT="$tmp/r.db" \
  LD_PRELOAD="$lib" "$app" 4 300000 > "$tmp/out" 2> "$tmp/err" &
pid=$!
python3 "${top_srcdir:-.}/tests/e2e/hold_lock.py" "$tmp/r.db" 120 "$tmp/go" > "$tmp/held"
wait $pid
expect "full rings: program unchanged" "$?:$(grep -c 'wrapped calls' "$tmp/out")" "0:1"
expect "full rings: the lock was held over the threads' rounds ($(cat "$tmp/held"))" "$(grep -c '^held' "$tmp/held")" 1
want=$(sed -n 's/wrapped calls: //p' "$tmp/out")
expect "full rings: drops counted, and every call is stored or counted" \
  "$(qr "$tmp/r.db" "select dropped_host > 0 and dropped_host + (select count(*) from api_call) + (select coalesce(sum(n), 0) from api_call_block) >= $want from process")" 1
# every runtime call also makes a CUPTI API record: each is stored, or
# counted as dropped when the writer fell behind (CUPTI's buffers are bounded)
capi_kept="(select count(*) from cupti_api) + (select coalesce(sum(n), 0) from cupti_api_block) + dropped_cupti"
expect "full rings: every CUPTI API record stored or counted" "$(qr "$tmp/r.db" "select $capi_kept >= $want from process")" 1

# Calls stored in bulk blocks (the default; qr reads the file as stored):
# nothing lost, the report counts them, `gputrace expand` makes rows
out=$(GPUTRACE_BULK_AFTER=0 "$gt" record -o "$tmp/k.db" -- "$app" 4 3000)
want=$(echo "$out" | sed -n 's/wrapped calls: //p')
expect "bulk: calls stored in blocks, none as rows, nothing dropped" \
  "$(qr "$tmp/k.db" "select (select count(*) > 0 from api_call_block) || ' ' || (select count(*) from api_call) || ' ' || dropped_host from process")" "1 0 0"
expect "bulk: every call in a block" "$(qr "$tmp/k.db" "select sum(n) from api_call_block")" "$want"
expect "bulk: every CUPTI API record stored (in blocks) or counted" \
  "$(qr "$tmp/k.db" "select (select count(*) from cupti_api_block) > 0 and $capi_kept >= $want from process")" 1
expect "bulk: the report counts them all" \
  "$("$b/gputrace-report" --format json "$tmp/k.db" | python3 -c 'import json, sys; print(sum(r["api_calls"] for r in json.load(sys.stdin)["ranks"]))')" "$want"
"$gt" expand "$tmp/k.db" > /dev/null
expect "bulk: gputrace expand turns blocks into rows" \
  "$(q "$tmp/k.db" "select count(*) || ' ' || (select count(*) from api_call_block) || ' ' || (count(distinct call_id) = count(*)) from api_call")" "$want 0 1"
expect "bulk: expanded rows are the calls made" \
  "$(q "$tmp/k.db" "select count(distinct tid) from api_call_named where api_name = 'cudaStreamQuery'")" 4
expect "bulk: the report reads the expanded file the same" \
  "$("$b/gputrace-report" --format json "$tmp/k.db" | python3 -c 'import json, sys; print(sum(r["api_calls"] for r in json.load(sys.stdin)["ranks"]))')" "$want"
"$gt" expand "$tmp/nothing-here.db" 2> "$tmp/err"
expect "expand: a missing file is one line and exit 1" "$?:$(wc -l < "$tmp/err")" "1:1"

finish
