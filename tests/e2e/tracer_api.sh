#!/bin/sh
# tracer_api.sh: the wrapped API surface beyond the training step: driver
# calls, the _ptsz/_ptds entry points, 2D/peer copies, registered memory,
# NCCL groups and split communicators, and GPUTRACE_OUTPUT patterns.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
lib="$b/.libs/libgputrace.so"
names() { q "$1" "select group_concat(name, ' ') from (select distinct a.name from api_call c join api a on a.id = c.api order by a.name)"; }

GPUTRACE_OUTPUT="$tmp/a.db" LD_PRELOAD="$lib" "$b/tests/apps/api_surface" > /dev/null
expect "api_surface runs" $? 0
"$b/gputrace" expand "$tmp/a.db" > /dev/null # the SQL below reads rows: blocks a busy writer stored, rows
expect "every call of the legacy build recorded by name" "$(names "$tmp/a.db")" \
  "cuCtxSynchronize cuCtxSynchronize_v2 cuEventSynchronize cuMemcpyDtoD_v2 cuMemcpyDtoH_v2 cuMemcpyHtoDAsync_v2 cuMemcpyHtoD_v2 cuStreamSynchronize cuStreamWaitEvent cudaEventCreate cudaEventDestroy cudaEventRecord cudaFree cudaHostRegister cudaHostUnregister cudaLaunchKernel cudaLaunchKernelExC cudaMalloc cudaMemcpy cudaMemcpy2D cudaMemcpyAsync cudaMemcpyPeer cudaMemset cudaMemsetAsync cudaSetDevice cudaStreamCreateWithPriority cudaStreamDestroy cudaStreamSynchronize cudaStreamWaitEvent ncclAllGather ncclAllReduce ncclBroadcast ncclCommDestroy ncclCommInitAll ncclCommSplit ncclGroupEnd ncclGroupStart"
expect "registered memory is pinned for the copies that use it" \
  "$(q "$tmp/a.db" "select group_concat(mem_kind) from api_call_named where api_name in ('cudaMemcpyAsync', 'cuMemcpyHtoDAsync_v2')")" "2,2"
expect "pageable stack buffer seen as pageable" "$(q "$tmp/a.db" "select mem_kind from api_call_named where api_name = 'cuMemcpyDtoH_v2'")" 1
expect "grouped operations share the group id of their ncclGroupStart" \
  "$(q "$tmp/a.db" "select count(*) from collective c join api_call_named g on g.process_id = c.process_id and g.api_name = 'ncclGroupStart' and g.call_id = c.group_id")" 2
expect "the group's kernel is attributed to both grouped operations" "$(q "$tmp/a.db" "select count(distinct call_id) from collective_kernel where call_id in (select call_id from collective where group_id != 0)")" 2
expect "the split communicator names its parent" \
  "$(q "$tmp/a.db" "select count(*) from comm c join comm p on p.process_id = c.process_id and p.comm_id = c.parent_comm_id")" 1
expect "sequence numbers are per communicator; an operation NCCL refused takes none (-1)" \
  "$(q "$tmp/a.db" "select group_concat(seq || ':' || result) from (select seq, result from collective order by start_ns)")" "0:0,1:0,-1:4,2:0,0:0"
"$b/gputrace-report" --format json "$tmp/a.db" > "$tmp/a.json"
expect "the report leaves the refused operation out of the collectives, and says so" \
  "$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["ranks"][0]; print(r["collectives"], r["refused_collectives"])' "$tmp/a.json")" "4 1"
expect "the report lists the refused call among the failed calls" \
  "$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["failed_calls_total"], [(f["api"], f["result"], f["count"]) for f in d["failed_calls"]])' "$tmp/a.json")" \
  "1 [('ncclAllReduce', 4, 1)]"

GPUTRACE_OUTPUT="$tmp/p.db" LD_PRELOAD="$lib" "$b/tests/apps/api_surface_ptsz" > /dev/null
expect "per-thread build runs" $? 0
expect "the _ptsz/_ptds entry points are recorded as such" \
  "$(q "$tmp/p.db" "select group_concat(name, ' ') from (select distinct a.name from api_call c join api a on a.id = c.api where a.name like '%_pt%' order by a.name)")" \
  "cuMemcpyDtoD_v2_ptds cuMemcpyDtoH_v2_ptds cuMemcpyHtoDAsync_v2_ptsz cuMemcpyHtoD_v2_ptds cuStreamSynchronize_ptsz cuStreamWaitEvent_ptsz cudaEventRecord_ptsz cudaLaunchKernelExC_ptsz cudaLaunchKernel_ptsz cudaMemcpy2D_ptds cudaMemcpyAsync_ptsz cudaMemcpy_ptds cudaMemsetAsync_ptsz cudaMemset_ptds cudaStreamSynchronize_ptsz cudaStreamWaitEvent_ptsz"

GPUTRACE_OUTPUT="$tmp/run-%r-%p.db" LD_PRELOAD="$lib" "$b/tests/sim/gpusim-run" -n 2 "$b/tests/apps/api_surface" > /dev/null
expect "%r and %p give one file per rank" "$(ls "$tmp" | grep -c '^run-[01]-[0-9]*\.db$')" 2

# every setting the tracer reads is documented in README.md and --help
missing=""
for v in $(grep -ho '"GPUTRACE_[A-Z_]*"' "$s"/collector/*.c "$s"/libtrace/*.c | tr -d '"' | sed 's/.*://' | sort -u); do
  grep -q "$v" "$s/README.md" || missing="$missing README:$v"
  "$b/gputrace" record --help | grep -q "$v" || missing="$missing help:$v"
done
expect "settings documented in README.md and gputrace record --help" "$missing" ""

finish
