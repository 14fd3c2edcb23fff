#!/bin/sh
# nccl_comms.sh: communicators made every way NCCL 2.28 offers, and NCCL
# reached only through a library handle, are known to the tracer: each
# collective gets its communicator, rank and sequence, so the report
# matches them across ranks (the workloads' headers: comm_scalable.c,
# comm_shrink.c, comm_split_nb.c, comm_init_nb.c, nccl_dlopen.c,
# py_nccl.py, checked live by report_workloads.py; the planted straggler
# they document, a timing verdict, on their golden recordings,
# tests/data/golden/sim-comm_*); and the other NCCL entry points (nccl_surface.c)
# are recorded with the results the program saw.  Collectives on a
# communicator the tracer did not see made (comm_unknown.c) get a note in
# the report, text and JSON, never silence.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
export GPUSIM_LIB="$b/tests/sim/.libs/libgpusim.so"
gt="$b/gputrace"
run="$b/tests/sim/gpusim-run"

# (report_workloads.py's checks, numbered and counted with these)
tap_py python3 "$s/tests/e2e/report_workloads.py" "$b" "$s" comm_scalable comm_shrink comm_split_nb comm_split_nb_spin comm_init_nb nccl_dlopen py_nccl

# what the tracer stored: every all-reduce names its communicator, its
# rank in it, and its place in the communicator's sequence, the same
# communicator on every member
for app in comm_scalable comm_shrink comm_split_nb comm_split_nb_spin nccl_dlopen; do
  "$gt" record -f -o "$tmp/$app.db" -- "$run" -n 4 "$b/tests/apps/$app" > /dev/null 2>&1
  expect "$app: runs" $? 0
  expect "$app: no all-reduce without its communicator, rank or sequence" \
    "$(q "$tmp/$app.db" "select count(*) from collective where comm_id = 0 or rank < 0 or nranks < 1 or seq < 0")" 0
  members=3; [ "$app" = comm_shrink ] || members=4
  expect "$app: one communicator of $members ranks for all the all-reduces, 12 of them on each" \
    "$(q "$tmp/$app.db" "select count(distinct comm_id) || ' ' || count(distinct rank) || ' ' || min(nranks) || ' ' || max(seq) || ' ' || count(*) from collective")" \
    "1 $members $members 11 $((12 * members))"
done
expect "comm_shrink: the shrunk communicator is recorded with its parent, on the 3 ranks that stay" \
  "$(q "$tmp/comm_shrink.db" "select count(*) from comm c join comm p on p.process_id = c.process_id and p.comm_id = c.parent_comm_id where c.nranks = 3 and p.nranks = 4")" 3
for app in comm_split_nb comm_split_nb_spin; do
  expect "$app: the non-blocking split's communicator recorded once it was ready, on every rank" \
    "$(q "$tmp/$app.db" "select count(*) from comm where parent_comm_id != 0 and rank >= 0 and nranks = 4")" 4
done

# the mismatch check matches them too: rank 1 all-reduces half the count at step 5
for app in comm_scalable comm_shrink comm_split_nb; do
  APP_DESYNC_STEP=5 "$gt" record -f -o "$tmp/$app.desync.db" -- "$run" -n 4 "$b/tests/apps/$app" > /dev/null 2>&1
  expect "$app: the desync runs" $? 0
  expect "$app: comm.mismatch names rank 1 at collective 5 of the communicator, and nothing else mismatched" \
    "$("$b/gputrace-report" --format json "$tmp/$app.desync.db" | python3 -c 'import json, sys; print([(f["seq"], f["ranks"]) for f in json.load(sys.stdin)["findings"] if f["kind"] == "comm.mismatch"])')" \
    "[(5, [1])]"
done

# a communicator made through an entry point the tracer does not wrap, seen
# by the wrappers alone (NCCL's profiler plugin off: below, with it)
GPUTRACE_NCCL_PLUGIN=0 "$gt" record -f -o "$tmp/unknown.db" -- "$run" -n 4 "$b/tests/apps/comm_unknown" > /dev/null 2>&1
expect "comm_unknown: runs" $? 0
"$b/gputrace-report" "$tmp/unknown.db" > "$tmp/unknown.txt"
expect "the text report says how many collectives had no communicator, on which ranks, and what could not run" \
  "$(tr '\n' ' ' < "$tmp/unknown.txt" | grep -c 'note: 48 collective(s) on 4 rank(s) used a communicator the tracer did not see made.*0 (12), 1 (12), 2 (12), 3 (12).*comm.straggler, comm.mismatch and comm.hang could not run')" 1
# ... its list of ranks wrapped within 100 columns where the ranks' numbers
# are large (the note's line passed 100 before)
cp -r "$tmp/unknown.db" "$tmp/unknown_far.db"
for f in "$tmp/unknown_far.db"/*.db; do sqlite3 "$f" "update process set rank = 1000000000 + 100000000 * rank"; done
"$b/gputrace-report" "$tmp/unknown_far.db" > "$tmp/unknown_far.txt" 2> /dev/null
expect "... its rank list wrapped within 100 columns where the ranks' numbers are large" \
  "$(grep -c '1300000000 (12)' "$tmp/unknown_far.txt"):$(sed -n '/^note: .* used a communicator/,/could not run/p' "$tmp/unknown_far.txt" | awk 'length($0) > 100' | wc -l | tr -d ' ')" \
  "1:0"
"$b/gputrace-report" --format json "$tmp/unknown.db" > "$tmp/unknown.json"
expect "the JSON says it too" \
  "$(python3 -c 'import json, sys; u = json.load(open(sys.argv[1]))["unknown_comm"]; print(u["collectives"], sorted((r["rank"], r["collectives"]) for r in u["ranks"]), u["analyses_skipped"])' "$tmp/unknown.json")" \
  "48 [(0, 12), (1, 12), (2, 12), (3, 12)] ['comm.straggler', 'comm.mismatch', 'comm.hang']"
# ... and nothing is made of them as if they were one collective: rank 1's
# half-count all-reduce at step 5 is no "mismatch of collective 0 of
# communicator 0" (every collective without a communicator looked like
# one collective to the analyses across ranks)
APP_DESYNC_STEP=5 GPUTRACE_NCCL_PLUGIN=0 "$gt" record -f -o "$tmp/unknown.desync.db" -- "$run" -n 4 "$b/tests/apps/comm_unknown" > /dev/null 2>&1
expect "comm_unknown: no finding across ranks drawn from collectives without a communicator" \
  "$("$b/gputrace-report" --format json "$tmp/unknown.desync.db" | python3 -c 'import json, sys; d = json.load(sys.stdin); print([f["kind"] for f in d["findings"] if f["kind"] in ("comm.mismatch", "comm.hang", "comm.straggler")], d["unknown_comm"]["collectives"])')" \
  "[] 48"
# with NCCL's profiler plugin (the default), NCCL names the communicator the
# wrappers did not see made: the wrapped collectives take its identity
# (viewer/read/plugin_join.c), no note is left, and rank 1's half-count
# all-reduce at step 5 is the mismatch it is
APP_DESYNC_STEP=5 "$gt" record -f -o "$tmp/unknown.plugin.db" -- "$run" -n 4 "$b/tests/apps/comm_unknown" > /dev/null 2>&1
expect "comm_unknown, NCCL's plugin on: every wrapped collective joined to NCCL's record, none left unknown, the mismatch found" \
  "$("$b/gputrace-report" --format json "$tmp/unknown.plugin.db" | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["nccl_plugin"]["joined"], d["nccl_plugin"]["alone"], d["unknown_comm"]["collectives"], [(f["seq"], f["ranks"]) for f in d["findings"] if f["kind"] == "comm.mismatch"])')" \
  "48 0 0 [(5, [1])]"
"$b/gputrace-report" "$tmp/comm_scalable.db" > "$tmp/known.txt"
"$b/gputrace-report" --format json "$tmp/comm_scalable.db" > "$tmp/known.json"
expect "no such note where every communicator is known (and the JSON says none)" \
  "$(grep -c 'did not see made' "$tmp/known.txt") $(python3 -c 'import json, sys; u = json.load(open(sys.argv[1]))["unknown_comm"]; print(u["collectives"], u["ranks"], u["analyses_skipped"])' "$tmp/known.json")" \
  "0 0 [] []"

# communication kernels that are not NCCL's (custom_comm.c: 10 steps of a
# 3 ms compute kernel, a 2 ms vLLM-style custom all-reduce, a 1 ms
# dispatch kernel of the program's own)
GPUTRACE_ONE_FILE=1 GPUTRACE_OUTPUT="$tmp/custom.db" LD_PRELOAD="$b/.libs/libgputrace.so" "$b/tests/apps/custom_comm" > /dev/null
expect "custom_comm runs" $? 0
# which kernels the kernel table marks as communication, and whether the
# rank's communication and compute times are theirs and the others' (one
# stream: nothing overlaps, so each union is the sum of its kernels;
# compared to the kernels' own times, not to the clock, which a busy
# machine stretches)
comm_split() {
  python3 -c '
import json, sys
d = json.load(sys.stdin)
r = d["ranks"][0]
ks = sorted(d["kernels"], key=lambda k: k["name"])
comm = sum(k["total_ns"] for k in ks if k["nccl"])
compute = sum(k["total_ns"] for k in ks if not k["nccl"])
near = lambda a, b: abs(a - b) <= 0.01 * max(a, b) + 1000
print(",".join(k["name"] for k in ks if k["nccl"]) or "-",
      "times-agree" if near(r["comm_ns"], comm) and near(r["compute_ns"], compute) and compute > 0 else
      "comm %d vs %d, compute %d vs %d" % (r["comm_ns"], comm, r["compute_ns"], compute))'
}
expect "by default the vLLM-style all-reduce is communication, the program's own kernel compute" \
  "$("$b/gputrace-report" --format json "$tmp/custom.db" | comm_split)" "cross_device_reduce_1stage times-agree"
expect "--comm-kernels +PATTERN adds to the list" \
  "$("$b/gputrace-report" --format json --comm-kernels '+*my_a2a*' "$tmp/custom.db" | comm_split)" "cross_device_reduce_1stage,my_a2a_dispatch times-agree"
expect "--comm-kernels PATTERN replaces it" \
  "$("$b/gputrace-report" --format json --comm-kernels '*my_a2a*' "$tmp/custom.db" | comm_split)" "my_a2a_dispatch times-agree"
expect "--comm-kernels '' leaves NCCL's kernels only" \
  "$("$b/gputrace-report" --format json --comm-kernels '' "$tmp/custom.db" | comm_split)" "- times-agree"
"$b/gputrace-report" --comm-kernels 'a,,b' "$tmp/custom.db" > /dev/null 2> "$tmp/err"
expect "an empty pattern is bad usage, in one line" "$? $(wc -l < "$tmp/err")" "2 1"
expect "--help documents --comm-kernels and its default list" \
  "$("$b/gputrace-report" --help | grep -c 'comm-kernels\|cross_device_reduce\|userbuffers')" 3

# the other entry points: each call recorded with the result the program saw
GPUTRACE_ONE_FILE=1 GPUTRACE_OUTPUT="$tmp/surface.db" LD_PRELOAD="$b/.libs/libgputrace.so" "$b/tests/apps/nccl_surface" > "$tmp/surface.out" 2> /dev/null
expect "nccl_surface runs" $? 0
"$gt" expand "$tmp/surface.db" > /dev/null
expect "every NCCL call recorded, in order, with its result (the refused one's error too)" \
  "$(q "$tmp/surface.db" "select api_name || ' ' || result from api_call_named where api_name like 'nccl%' order by start_ns")" \
  "$(cat "$tmp/surface.out")"
expect "ncclGroupSimulateEnd closes its group: the all-reduce after it is ungrouped, and its kernel attributed to it" \
  "$(q "$tmp/surface.db" "select c.group_id = 0, (select count(*) from collective_kernel k where k.call_id = c.call_id) from collective c order by c.start_ns desc limit 1")" "1|1"
expect "the sizes of the allocation and the registrations recorded" \
  "$(q "$tmp/surface.db" "select group_concat(bytes) from (select bytes from api_call_named where api_name in ('ncclMemAlloc', 'ncclCommRegister', 'ncclCommWindowRegister') order by start_ns)")" \
  "1048576,1048576,1048576"
finish
