#!/bin/sh
# tracer_nvtx.sh: NVTX through the injection interface: every kind of call
# recorded (tests/apps/nvtx_api.c), NVTX before the first CUDA call, the
# user's own NVTX_INJECTION64_PATH kept, a second copy of the library
# (loaded by NVTX in a process that did not preload it) declining, and the
# structured payloads (NVTX payload extension) of NCCL's ranges read.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
lib="$b/.libs/libgputrace.so"
db="$tmp/n.db"
name() { q "$db" "select l.value from nvtx_range r join label l on l.process_id = r.process_id and l.id = r.name where $1"; }

# every record a row (as a writer that keeps up stored them before blocks
# were the default): the baseline the blocks below are held to
out=$(GPUTRACE_BULK_AFTER=1000000000 GPUTRACE_OUTPUT="$db" LD_PRELOAD="$lib" "$b/tests/apps/nvtx_api")
expect "nvtx_api runs (push/pop return values as NVTX defines them)" "$?:$out" "0:nvtx_api done"
expect "process says NVTX is recorded" "$(q "$db" "select nvtx_status from process")" "active"
expect "a range pushed before any CUDA call is recorded" "$(name "kind = 1 and depth = 0 order by start_ns limit 1")" "setup"
expect "levels are per domain: a range inside one of NCCL's domain is at level 0 in its own" \
  "$(q "$db" "select r.depth from nvtx_range r join label l on l.process_id = r.process_id and l.id = r.name where l.value = 'under_comm'")" 0
expect "it ends before the first CUDA call returns" \
  "$(q "$db" "select count(*) from nvtx_range r, api_call_named c where c.api_name = 'cudaSetDevice' and r.start_ns < c.start_ns and r.end_ns > c.end_ns")" 1
expect "attributes: name, category and integer payload" \
  "$(q "$db" "select l.value || ' ' || r.category || ' ' || r.payload from nvtx_range r join label l on l.id = r.name where r.depth = 0 and r.category = 7")" "load 7 -42"
expect "a wide-character name, nested one level down" "$(name "depth = 1")" "décode"
expect "the nested range lies inside its parent" \
  "$(q "$db" "select count(*) from nvtx_range i, nvtx_range o where i.depth = 1 and o.category = 7 and i.start_ns >= o.start_ns and i.end_ns <= o.end_ns")" 1
expect "names pushed from one reused buffer each keep their own text" \
  "$(q "$db" "select group_concat(l.value) from (select * from nvtx_range order by start_ns) r join label l on l.process_id = r.process_id and l.id = r.name where l.value like 'step%'")" \
  "step 1,step 1,step 12,step 12,step,step,step 3,step 3"
expect "a mark is an instant" "$(name "kind = 4 and start_ns = end_ns")" "checkpoint"
expect "a domain range: registered string, domain name and double payload" \
  "$(q "$db" "select n.value || ' ' || d.value || ' ' || r.payload from nvtx_range r join label n on n.id = r.name join label d on d.id = r.domain where d.value = 'trainer' and r.payload is not null")" \
  "optimizer.step trainer 0.5"
expect "a structured payload: fields packed by alignment read, a pointer and what follows it unplaced skipped" \
  "$(q "$db" "select payload from nvtx_range r join label l on l.process_id = r.process_id and l.id = r.name where l.value = 'structured'")" \
  "a=7, b=4096, d=-5"
expect "a structured payload: a field at an offset past the payload is skipped (the sum would wrap)" \
  "$(q "$db" "select payload from nvtx_range r join label l on l.process_id = r.process_id and l.id = r.name where l.value = 'structured wild'")" \
  "a=7"
expect "a structured payload outside the NCCL domain is not read" \
  "$(q "$db" "select count(*) from nvtx_range r join label l on l.process_id = r.process_id and l.id = r.name where l.value = 'structured elsewhere' and payload is null")" 1
expect "a start/end range ended on another thread has its end" \
  "$(q "$db" "select count(*) from nvtx_range r join label l on l.id = r.name where l.value = 'prefetch' and r.kind = 2 and r.end_ns > r.start_ns and r.range_id is not null")" 1
expect "a range open at exit is stored without an end" "$(name "end_ns is null")" "shutdown"
expect "category and thread names" \
  "$(q "$db" "select (select l.value from nvtx_category c join label l on l.id = c.name where c.category = 7) || ' ' || (select l.value from thread_name t join label l on l.id = t.name)")" "io main"

# The user's own tool wins: NVTX loads it, and the tracer records the rest.
tool="$b/tests/apps/.libs/libnvtx_other_tool.so"
rm -rf "$tmp/u.db"
NVTX_INJECTION64_PATH="$tool" NVTX_OTHER_TOOL_OUT="$tmp/tool.out" GPUTRACE_OUTPUT="$tmp/u.db" LD_PRELOAD="$lib" \
  "$b/tests/apps/nvtx_api" > /dev/null
expect "with the user's NVTX tool set, the program still runs" $? 0
expect "the user's tool was the one NVTX loaded" "$(cat "$tmp/tool.out" 2>/dev/null)" "loaded"
expect "no ranges recorded then" "$(q "$tmp/u.db" "select count(*) from nvtx_range")" 0
expect "CUDA calls still recorded" "$(q "$tmp/u.db" "select count(*) > 0 from api_call")" 1
expect "the process row says why there are no ranges" \
  "$(q "$tmp/u.db" "select nvtx_status like 'off (NVTX_INJECTION64_PATH names another tool: %libnvtx_other_tool.so)' from process")" 1

rm -f "$tmp/tool.out"
NVTX_INJECTION64_PATH="$tool" NVTX_OTHER_TOOL_OUT="$tmp/tool.out" GPUTRACE_LIB="$lib" \
  "$b/gputrace" record -o "$tmp/r.db" -- "$b/tests/apps/nvtx_api" > /dev/null
expect "gputrace record keeps the user's NVTX tool too" "$(cat "$tmp/tool.out" 2>/dev/null)" "loaded"
GPUTRACE_LIB="$lib" "$b/gputrace" record -o "$tmp/r2.db" -- "$b/tests/apps/nvtx_api" > /dev/null
expect "gputrace record: NVTX recorded" "$(q "$tmp/r2.db" "select nvtx_status || ' ' || (select count(*) > 0 from nvtx_range) from process")" "active 1"

# NCCL's ranges carry their parameters as structured payloads (a schema
# and an enum registered through the payload extension): read into text
c="$tmp/c.db"
GPUTRACE_LIB="$lib" "$b/gputrace" record -o "$c" -- "$b/tests/sim/gpusim-run" -n 2 "$b/tests/apps/overlapped" > /dev/null 2>&1
nccl="from nvtx_range r join label d on d.process_id = r.process_id and d.id = r.domain where d.value = 'NCCL'"
expect "every NCCL range has its payload as text" \
  "$(q "$c" "select count(*) > 0 and count(*) = count(payload) and count(*) = sum(typeof(payload) = 'text') $nccl")" 1
expect "the payload's message size is the collective's, its reduction named from the enum" \
  "$(q "$c" "select distinct payload like '%Message size [bytes]=' || (select bytes from collective limit 1) || ',%Reduction operation=Sum' $nccl")" 1
expect "both ranks name the same communicator" \
  "$(q "$c" "select count(distinct substr(payload, 1, instr(payload, ',') - 1)) $nccl")" 1

# Ranges stored in bulk blocks (the default; qr reads the file as stored): the same
# ranges as rows, the report reads them alike, `gputrace expand` makes rows
canon="select group_concat(x, '|') from (select r.kind || ' ' || coalesce(n.value, '') || ' ' || coalesce(d.value, '')
  || ' ' || r.category || ' ' || r.depth || ' ' || coalesce(r.payload, '-') || ' ' || (r.end_ns is null) x from nvtx_range r
  left join label n on n.process_id = r.process_id and n.id = r.name
  left join label d on d.process_id = r.process_id and d.id = r.domain order by x)"
bk="$tmp/bk.db"
GPUTRACE_BULK_AFTER=0 GPUTRACE_OUTPUT="$bk" LD_PRELOAD="$lib" "$b/tests/apps/nvtx_api" > /dev/null
expect "bulk: every ended push/pop range and mark in a block" "$(qr "$bk" "select sum(n) from nvtx_range_block")" \
  "$(q "$db" "select count(*) from nvtx_range where kind in (1, 4) and end_ns is not null")"
expect "bulk: start/end ranges and the range open at exit stay rows" \
  "$(qr "$bk" "select group_concat(kind) from (select kind from nvtx_range order by kind)")" \
  "$(q "$db" "select group_concat(kind) from (select kind from nvtx_range where kind = 2 or end_ns is null order by kind)")"
"$b/gputrace-report" --format json "$bk" > "$tmp/bk1.json"
"$b/gputrace" expand "$bk" > /dev/null
expect "bulk: gputrace expand gives the rows tracing without blocks gave" "$(qr "$bk" "$canon")" "$(q "$db" "$canon")"
expect "bulk: no blocks left" "$(qr "$bk" "select count(*) from nvtx_range_block")" 0
"$b/gputrace-report" --format json "$bk" > "$tmp/bk2.json"
expect "bulk: the report reads blocks as it reads rows" "$(cmp -s "$tmp/bk1.json" "$tmp/bk2.json" && echo same)" same
ck="$tmp/ck.db"
GPUTRACE_BULK_AFTER=0 GPUTRACE_ONE_FILE=1 GPUTRACE_LIB="$lib" "$b/gputrace" record -o "$ck" -- "$b/tests/sim/gpusim-run" -n 2 "$b/tests/apps/overlapped" > /dev/null 2>&1
expect "bulk: NCCL's ranges in blocks" "$(qr "$ck" "select count(*) > 0 from nvtx_range_block")" 1
capis=$(qr "$ck" "select coalesce(sum(n), 0) from cupti_api_block")
expect "bulk: CUPTI's API records in blocks, none as rows" "$(qr "$ck" "select count(*) from cupti_api") $((capis > 0))" "0 1"
gpus=$(qr "$ck" "select coalesce(sum(n), 0) from gpu_op_block")
expect "bulk: GPU operations in blocks, none as rows" "$(qr "$ck" "select count(*) from gpu_op") $((gpus > 0))" "0 1"
"$b/gputrace-report" --format json --chrome-trace "$tmp/ck1.trace" "$ck" > /dev/null
"$b/gputrace" expand "$ck" > /dev/null
"$b/gputrace-report" --format json --chrome-trace "$tmp/ck2.trace" "$ck" > /dev/null
expect "bulk: the Chrome trace (ranges and their payloads, launches joined to their GPU work, collectives to their kernels) is the same from blocks as from rows" \
  "$(cmp -s "$tmp/ck1.trace" "$tmp/ck2.trace" && echo same)" same
expect "bulk: expanded, CUPTI's API records are rows, each once" \
  "$(qr "$ck" "select count(*) || ' ' || count(distinct process_id || ':' || correlation) || ' ' || (select count(*) from cupti_api_block) from cupti_api")" "$capis $capis 0"
expect "bulk: expanded, GPU operations are rows, NCCL's kernels joined to their operations" \
  "$(qr "$ck" "select count(*) = $gpus and (select count(*) from gpu_op_block) = 0 from gpu_op") $(qr "$ck" "select count(*) > 0 and count(*) = count(gpu_start_ns) from collective_kernel")" "1 1"
expect "bulk: expanded, every NCCL range has its payload as text" \
  "$(qr "$ck" "select count(*) > 0 and count(*) = count(payload) and count(*) = sum(typeof(payload) = 'text') $nccl")" 1

# A process that inherits the variable but not the preload: NVTX loads a
# second copy, which declines (it would interpose nothing), and the program
# runs as without a tool.
self=$(cd "$b/.libs" && pwd)/libgputrace.so
out=$(NVTX_INJECTION64_PATH="$self" GPUTRACE_OUTPUT="$tmp/none.db" "$b/tests/apps/nvtx_api")
expect "not preloaded: the NVTX-loaded copy declines, the program runs" "$?:$out" "0:nvtx_api done"
expect "and no trace is written" "$(test -e "$tmp/none.db" && echo written || echo none)" "none"

finish
