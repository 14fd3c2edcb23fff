#!/bin/sh
# tracer.sh: libgputrace.so end to end on the simulator, through
# `gputrace record`: what a 4-rank run records, that collectives match
# across ranks and NCCL kernels are attributed, the CUPTI fallbacks, and
# that the traced program is never changed (exit status, no file for a
# program without CUDA, an unwritable output, an existing output kept).
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
gt="$b/gputrace"
run="$b/tests/sim/gpusim-run"
apps="$b/tests/apps"

db="$tmp/demo.db"
"$gt" record -o "$db" -- "$run" -n 4 "$apps/train_demo" > "$tmp/out" 2>&1
expect "recorded run exits 0" $? 0
# the SQL below reads rows: what a busy writer stored in bulk blocks, rows
"$gt" expand "$db" > /dev/null
expect "four ranks" "$(q "$db" "select group_concat(rank) from (select rank from process order by rank)")" "0,1,2,3"
expect "one run id" "$(q "$db" "select count(distinct run_id) from process")" 1
# (the call's row carries the device + 1 in bytes: the report tells each
# device's legacy stream apart by the thread's device, docs/schema.md)
expect "each rank's device is the one its cudaSetDevice chose, the call's row its device + 1" \
  "$(q "$db" "select count(*) || ':' || (select count(*) from api_call_named a join process p on p.id = a.process_id where a.api_name = 'cudaSetDevice' and a.bytes = p.rank + 1) from process where device = rank")" "4:4"
expect "every rank ended by exit 0" "$(q "$db" "select count(*) from process where exit_code = 0 and end_reason = 'exit'")" 4
expect "CUPTI active on every rank" "$(q "$db" "select count(*) from process where cupti_status = 'active'")" 4
expect "all-reduces recorded (4 ranks x 12 steps x 4 buckets)" "$(q "$db" "select count(*) from api_call_named where api_name = 'ncclAllReduce'")" 192
expect "scalar-read syncs recorded" "$(q "$db" "select count(*) from api_call_named where api_name = 'cudaStreamSynchronize'")" 48
expect "collectives match across ranks by (comm, seq)" \
  "$(q "$db" "select count(*) from (select comm_id, seq from collective group by 1, 2 having count(distinct process_id) = 4 and count(distinct count) = 1)")" 48
expect "communicator recorded per rank" "$(q "$db" "select count(distinct comm_id) || ':' || count(*) from comm")" "1:4"
expect "every NCCL operation attributed to its kernel" "$(q "$db" "select count(distinct process_id || ':' || call_id) from collective_kernel")" 192
expect "NCCL kernels are named by NCCL" "$(q "$db" "select count(*) from collective_kernel k join string s on s.process_id = k.process_id and s.id = k.name_id where s.value like 'ncclDevKernel_AllReduce%'")" 192
expect "pageable uploads seen as pageable" "$(q "$db" "select count(*) from api_call_named where api_name = 'cudaMemcpyAsync' and copy_kind = 1 and mem_kind = 1")" 48
expect "GPU copies carry pageable source kind" "$(q "$db" "select count(*) >= 48 from gpu_op where kind = 2 and copy_kind = 1 and src_kind = 1")" 1
expect "kernels joined to their launch by correlation" \
  "$(q "$db" "select count(*) = (select count(*) from api_call_named where api_name = 'cudaLaunchKernel') from gpu_op g join cupti_api a on a.process_id = g.process_id and a.correlation = g.correlation where g.kind = 1 and a.domain = 1")" 1
expect "sync calls have call sites in app_train" "$(q "$db" "select count(*) > 0 from api_call_named c join callsite s on s.process_id = c.process_id and s.id = c.callsite where c.api_name = 'cudaStreamSynchronize' and s.frames like '%app_train%'")" 1
# file and line are the report's to find: the traced process only names
# the object each frame is in, with its path and build id
# the capture's and the wrapper's frames are cut in the traced process (a
# stack of depth 8 holds 8 of the program's frames, not the tracer's; its
# wrapper of __libc_start_main lies below main, where it is)
expect "no stack starts in the tracer's own frames" \
  "$(q "$db" "select count(*) from callsite where substr(frames, 1, instr(frames || char(10), char(10)) - 1) like '%libgputrace%'")" 0
expect "call sites name their object and its offset, not lines (no DWARF read in the traced process)" \
  "$(q "$db" "select count(*) > 0 and sum(frames like '%(app_train.c:%') = 0 from callsite where frames like '%(train_demo+0x%'")" 1
expect "each object of a frame is recorded with its full path and GNU build id" \
  "$(q "$db" "select count(*) from module where name = 'train_demo' and path like '/%/train_demo' and length(build_id) = 40")" 4
"$b/gputrace-report" "$db" > "$tmp/report.txt" 2>&1
expect "the report names file and line where debug info allows" "$(grep -c 'app_train (app_train.c:[0-9]*)' "$tmp/report.txt" | sed 's/^[1-9][0-9]*$/some/')" some
cp "$apps/train_demo" "$tmp/rebuilt" && printf 'x' >> "$tmp/rebuilt"
GPUTRACE_ONE_FILE=1 "$gt" record -o "$tmp/moved.db" -- "$run" -n 1 "$tmp/rebuilt" > /dev/null 2>&1
"$b/gputrace-report" "$tmp/moved.db" > /dev/null 2>&1
expect "the report of a binary still in place names its lines" "$("$b/gputrace-report" "$tmp/moved.db" 2>&1 | grep -c 'app_train.c:[0-9]' | sed 's/^[1-9][0-9]*$/some/')" some
# (a build id that begins with 00 already gets ff: one build in 256)
sqlite3 "$tmp/moved.db" "update module set build_id = (case when build_id like '00%' then 'ff' else '00' end) || substr(build_id, 3)
  where name = 'rebuilt'" > /dev/null
expect "a binary whose build id differs from the traced one lends it no lines" "$("$b/gputrace-report" "$tmp/moved.db" 2>&1 | grep -c 'app_train.c:[0-9]')" 0
expect "nothing dropped" "$(q "$db" "select sum(dropped_host) + sum(dropped_cupti) from process")" 0
expect "no call left in flight" "$(q "$db" "select count(*) from inflight")" 0
expect "GPU times on the host clock" "$(q "$db" "select count(*) from gpu_op g join process p on p.id = g.process_id where g.kind = 1 and (g.start_ns < p.start_ns or g.end_ns > p.end_ns)")" 0

"$gt" record -o "$db" -- true > /dev/null 2>&1
expect "an existing output is refused without -f" $? 2
"$gt" record -f -o "$tmp/none.db" -- sh -c 'exit 7'
expect "exit status passes through" $? 7
[ -e "$tmp/none.db" ] && bad "a program without CUDA left a file" || ok "a program without CUDA leaves no file"

GPUSIM_CUPTI_REFUSE=1 "$gt" record -o "$tmp/refused.db" -- "$run" -n 2 "$apps/overlapped" > "$tmp/out" 2>&1
expect "refused CUPTI: the run still succeeds" $? 0
expect "refused CUPTI: one line per process" "$(grep -c 'CUPTI refused' "$tmp/out")" 2
expect "refused CUPTI: host records kept" "$(q "$tmp/refused.db" "select count(*) > 0 from api_call")" 1
expect "refused CUPTI: status says so" "$(q "$tmp/refused.db" "select count(*) from process where cupti_status like 'CUPTI refused%MULTIPLE_SUBSCRIBERS%'")" 2

GPUSIM_CUPTI_VERSION=120000 "$gt" record -o "$tmp/old.db" -- "$apps/overlapped" > "$tmp/out" 2>&1
expect "another CUPTI major version: refused" "$(q "$tmp/old.db" "select cupti_status like '%major version%' from process")" 1

GPUTRACE_CUPTI=0 "$gt" record -o "$tmp/nocupti.db" -- "$apps/overlapped" > /dev/null 2>&1
expect "GPUTRACE_CUPTI=0: no GPU records" "$(q "$tmp/nocupti.db" "select count(*) from gpu_op")" 0

GPUTRACE_OUTPUT="$tmp/no/such/dir/x.db" LD_PRELOAD="$b/.libs/libgputrace.so" "$apps/overlapped" > "$tmp/out" 2> "$tmp/err"
expect "unwritable output: program unchanged" "$?:$(grep -c 'gradients ok' "$tmp/out")" "0:1"
expect "unwritable output: one line on stderr" "$(grep -c 'gputrace: cannot write' "$tmp/err")" 1

GPUTRACE_CALLSTACKS=abc GPUTRACE_OUTPUT="$tmp/bad.db" LD_PRELOAD="$b/.libs/libgputrace.so" "$apps/overlapped" > /dev/null 2> "$tmp/err"
expect "bad setting: one message, default used" "$(grep -c 'GPUTRACE_CALLSTACKS=abc' "$tmp/err"):$(q "$tmp/bad.db" "select count(*) > 0 from callsite")" "1:1"

# a hang: the launcher's SIGTERM reaches every rank; records and the
# calls each rank was stuck in survive
GPUTRACE_FLUSH_MS=50 "$gt" record -o "$tmp/hang.db" -- "$run" -n 4 --timeout 5 "$apps/hang" > /dev/null 2>&1
expect "hang: launcher reports it" $? 124
expect "hang: every rank ended by SIGTERM" "$(q "$tmp/hang.db" "select count(*) from process where exit_signal = 15 and end_reason = 'signal'")" 4
expect "hang: blocked calls left in flight on the waiting ranks" "$(q "$tmp/hang.db" "select count(distinct process_id) from inflight")" 3
expect "hang: the stuck rank issued fewer all-reduces" "$(q "$tmp/hang.db" "select count(*) from (select process_id, count(*) n from collective group by 1) where n = 12")" 1

# SIGKILL: what was committed before the kill is readable.  Killed once
# some calls are committed (a busy machine can take more than a second to
# get there), or after 30 s whatever there is; a writer that falls behind
# stores calls in blocks (api_call_block), so both tables are counted.
calls="select (select count(*) from api_call) + (select coalesce(sum(n), 0) from api_call_block)"
GPUTRACE_FLUSH_MS=50 APP_STEPS=400 GPUTRACE_OUTPUT="$tmp/killed.db" LD_PRELOAD="$b/.libs/libgputrace.so" "$apps/overlapped" > /dev/null 2>&1 &
pid=$!
n=0
while [ $n -lt 300 ] && [ "$(q "$tmp/killed.db" "$calls > 100" 2>/dev/null)" != 1 ]; do
  sleep 0.1; n=$((n + 1))
done
kill -KILL $pid
wait $pid 2>/dev/null
expect "SIGKILL: killed by the signal, not ended on its own" $? 137
expect "SIGKILL: database readable with the records before the kill" "$(q "$tmp/killed.db" "$calls > 100")" 1
expect "SIGKILL: process has no end" "$(q "$tmp/killed.db" "select end_ns is null from process")" 1

# A thread's own key destructor, made after the tracer's, calls CUDA once
# the tracer's destructor has let go of the thread's call-site cache: the
# call maps a fresh one (it wrote into the unmapped page: SIGSEGV)
"$b/tests/apps/tsd_destructor" > "$tmp/tsd.untraced" 2>&1
want=$?
GPUTRACE_OUTPUT="$tmp/tsd.db" LD_PRELOAD="$b/.libs/libgputrace.so" "$b/tests/apps/tsd_destructor" > "$tmp/tsd.traced" 2>&1
expect "a key destructor's CUDA call after the tracer's destructor: exit status as untraced" $? "$want"
expect "a key destructor's CUDA call: the same output" "$(cmp -s "$tmp/tsd.untraced" "$tmp/tsd.traced" && echo same)" same

finish
