#!/bin/sh
# nccl_plugin.sh: the tracer as NCCL's profiler plugin (libtrace/nccl_profiler*.c).
# - the tables NCCL 2.28 of the toolkit looks up are exported, and open;
# - NCCL called where no wrapper sees it (the simulator linked statically,
#   the tracer injected): its collectives in the report from NCCL's own
#   records, with communicator and sequence matched across the ranks (the
#   planted straggler found from them: the golden tests, on a recording);
# - where the wrappers see NCCL too, the plugin and the wrappers agree on
#   every operation (function, count, sequence) of the NCCL workloads;
# - the versions NCCL 2.25-2.27 ask for (v3, v4) record too;
# - send/recv numbered apart from the collectives (per peer): ranks that
#   make different numbers of them still agree on every collective's number;
# - proxy steps: time waiting for the peer told from time on the network;
# - a hang inside a collective: the report says where each rank stopped;
# - a plugin the user named, or "none", wins; the process row says so.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
lib="$b/.libs/libgputrace.so"
run="$b/tests/sim/gpusim-run"
gt="$b/gputrace"
rep="$b/gputrace-report"

# ---- the exported tables ----------------------------------------------------
expect "libgputrace.so exports ncclProfiler_v5, v4, v3" \
  "$(nm -D --defined-only "$lib" | awk '{ print $NF }' | grep -x 'ncclProfiler_v[0-9]' | sort | tr '\n' ' ')" \
  "ncclProfiler_v3 ncclProfiler_v4 ncclProfiler_v5 "
nccl=$(ls /usr/local/cuda/lib64/libnccl.so.2 /usr/local/cuda/lib/libnccl.so.2 2>/dev/null | head -n 1)
if [ -n "$nccl" ]; then
  # the newest version the toolkit's NCCL asks for is one we export
  newest=$(strings "$nccl" | grep -o '^ncclProfiler_v[0-9]*$' | sort -V | tail -n 1)
  expect "the toolkit's NCCL asks for $newest, which we export" \
    "$(nm -D --defined-only "$lib" | awk '{ print $NF }' | grep -cx "$newest")" 1
else
  skip "the toolkit's NCCL asks for a version we export" "no libnccl.so.2 in the toolkit"
fi
# dlopen + dlsym as NCCL does (RTLD_NOW | RTLD_LOCAL), and the table's init
# as NCCL 2.28 calls it: ncclSuccess, the events we want (Coll, P2p,
# ProxyOp, ProxyStep, KernelCh, CollApi, P2pApi: 1630), the communicator
# recorded
expect "dlopen + dlsym: the v5 table, named; init: ncclSuccess and the mask" "$(GPUTRACE_QUIET=1 GPUTRACE_CUPTI=0 GPUTRACE_OUTPUT="$tmp/dl.db" python3 -c '
import ctypes, os, sys
h = ctypes.CDLL(sys.argv[1], mode=os.RTLD_NOW | os.RTLD_LOCAL)
class T(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("init", ctypes.c_void_p), ("start", ctypes.c_void_p),
                ("stop", ctypes.c_void_p), ("record", ctypes.c_void_p), ("fini", ctypes.c_void_p)]
t = T.in_dll(h, "ncclProfiler_v5")
init = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint64, ctypes.POINTER(ctypes.c_int),
                        ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_void_p)(t.init)
ctx, mask = ctypes.c_void_p(), ctypes.c_int(-1)
rc = init(ctypes.byref(ctx), 12345, ctypes.byref(mask), b"world", 2, 8, 3, None)
print(t.name.decode(), rc, mask.value, all([t.start, t.stop, t.record, t.fini]))' "$lib")" "gputrace 0 1630 True"
expect "... the communicator it was told of, recorded" \
  "$(q "$tmp/dl.db" "select c.comm_hash || ' ' || c.rank || '/' || c.nranks || ' ' || c.nnodes || ' ' || l.value from nccl_comm c join label l on l.process_id = c.process_id and l.id = c.name")" \
  "12345 3/8 2 world"

# ---- NCCL that no wrapper sees: the static simulator, injected --------------
static="$b/tests/apps/straggler_static"
expect "static workload: no dynamic NCCL symbol for a wrapper to take" \
  "$(nm -D "$static" | grep -c ' nccl')" 0
# (the planted straggler found from these records is timing, which the
# machine's load changes: the golden tests check it on a saved recording,
# tests/data/golden/sim-straggler_static)
"$gt" record -f -o "$tmp/st" -- "$run" -n 4 --timeout 60 "$static" > /dev/null 2>&1
"$rep" --format json "$tmp/st" > "$tmp/st.json" 2> "$tmp/st.err"
expect "static: the wrappers saw no NCCL call" "$(q "$tmp/st" "select count(*) from collective")" 0
expect "static: NCCL's plugin saw 48 all-reduces on each of 4 ranks" \
  "$(q "$tmp/st" "select count(*) || ' ' || count(distinct process_id) from nccl_op_named where func_name = 'AllReduce'")" "192 4"
expect "static: one communicator, the same hash on every rank, ranks 0-3 of 4" \
  "$(q "$tmp/st" "select count(distinct comm_hash) || ' ' || group_concat(rank || '/' || nranks, ' ') from (select * from nccl_comm order by rank)")" \
  "1 0/4 1/4 2/4 3/4"
expect "static: every (communicator, sequence) has its 4 ranks, with the same count" \
  "$(q "$tmp/st" "select count(*) from (select comm_hash, seq from nccl_op group by comm_hash, seq having count(distinct rank) = 4 and count(distinct count) = 1)")" 48
expect "static: the report analyses them as collectives" \
  "$(python3 -c 'import json, sys; print(sum(r["collectives"] for r in json.load(open(sys.argv[1]))["ranks"]))' "$tmp/st.json")" 192
expect "static: the report says where they came from" \
  "$("$rep" "$tmp/st" | grep -A1 "^note: NCCL's profiler plugin recorded 192 operation(s): 0 joined to wrapped calls,$" | grep -c "^ *192 seen by NCCL only")" 1
expect "static: the JSON report says so too" \
  "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["nccl_plugin"])' "$tmp/st.json")" \
  "{'ops': 192, 'joined': 0, 'alone': 192}"
expect "static: kernel channels start and stop, on GPU and host clocks" \
  "$(q "$tmp/st" "select count(*) from nccl_kernel_ch where end_ns >= start_ns and gpu_end >= gpu_start and gpu_start > 0")" 192
expect "process row: the plugin active, v5" "$(q "$tmp/st" "select group_concat(distinct nccl_plugin_status) from process")" "active (v5)"

# ---- no preload, the tracer only injected (CUDA_INJECTION64_PATH) ----------
GPUTRACE_OUTPUT="$tmp/inj" CUDA_INJECTION64_PATH="$lib" NCCL_PROFILER_PLUGIN="$lib" \
  "$run" -n 4 --timeout 60 "$b/tests/apps/straggler" > /dev/null 2>&1
expect "injected only: no wrapper saw NCCL, its plugin records stand as the collectives" \
  "$(q "$tmp/inj" "select count(*) from collective")/$("$rep" --format json "$tmp/inj" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(r["collectives"] for r in d["ranks"]), d["nccl_plugin"]["alone"])')" "0/192 192"

# ---- send/recv counted apart from the collectives ---------------------------
# (tests/apps/pp_allreduce.c: pipeline stages, so that ranks make different
# numbers of sends and receives, then an all-reduce and an all-gather on the
# same communicator, 4 steps.)  Traced by the plugin only (injected, no
# wrapper sees the communicator), then with the wrappers too: every
# collective has the same sequence number on the 4 ranks, the report finds
# no mismatch and no hang, and every send is matched to its receive
pp_check() { # pp_check RUN TABLE: what the checks below read, one line
  if [ "$2" = nccl_op ]; then
    colls="select comm_hash as c, seq, func_name as f, count from nccl_op_named where is_p2p = 0"
  else
    colls="select c.comm_id as c, c.seq, a.name as f, c.count from collective c join api a on a.id = c.api
           where a.name not in ('ncclSend', 'ncclRecv')"
  fi
  echo "$(q "$1" "select count(*) || ' ' || sum(n = 4 and nf = 1 and nc = 1) from (select count(*) as n,
         count(distinct f) as nf, count(distinct count) as nc from ($colls) group by c, seq)")" \
    "$("$rep" --format json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
bad = sorted(set(f["kind"] for f in d["findings"] if f["kind"] in ("comm.mismatch", "comm.hang")))
pairs = sorted((p["from_rank"], p["to_rank"], p["matched"], p["mismatched"] + p["unmatched_sends"] + p["unmatched_receives"])
               for p in d["p2p"]["pairs"])
print("bad=%s pairs=%s" % (bad, pairs))')"
}
GPUTRACE_OUTPUT="$tmp/ppi" CUDA_INJECTION64_PATH="$lib" NCCL_PROFILER_PLUGIN="$lib" \
  "$run" -n 4 --timeout 60 "$b/tests/apps/pp_allreduce" > "$tmp/ppi.out" 2>&1
expect "pp_allreduce, the plugin only: runs, every rank's data right, no wrapper saw NCCL" \
  "$?:$(grep -c ' ok$' "$tmp/ppi.out"):$(q "$tmp/ppi" "select count(*) from collective")" "0:4:0"
expect "pp_allreduce, the plugin only: 8 collectives, each with the same sequence number, function and count on the 4 ranks; no false mismatch or hang; every send matched (12 down each stage, 8 acknowledgements back)" \
  "$(pp_check "$tmp/ppi" nccl_op)" "8 8 bad=[] pairs=[(0, 1, 12, 0), (1, 2, 12, 0), (2, 3, 12, 0), (3, 0, 8, 0)]"
"$gt" record -f -o "$tmp/ppw" -- "$run" -n 4 --timeout 60 "$b/tests/apps/pp_allreduce" > "$tmp/ppw.out" 2>&1
expect "pp_allreduce, with the wrappers: runs" "$?:$(grep -c ' ok$' "$tmp/ppw.out")" "0:4"
expect "pp_allreduce, with the wrappers: the same" \
  "$(pp_check "$tmp/ppw" collective)" "8 8 bad=[] pairs=[(0, 1, 12, 0), (1, 2, 12, 0), (2, 3, 12, 0), (3, 0, 8, 0)]"
expect "pp_allreduce, with the wrappers: the plugin's records, the same, and every one joined" \
  "$(pp_check "$tmp/ppw" nccl_op | cut -d' ' -f1-2) $(q "$tmp/ppw" "select count(*) from nccl_op")" "8 8 120"

# ---- with the wrappers: the plugin and the wrappers agree ------------------
# (per process: the wrappers' operations in sequence order, and NCCL's)
agree() {
  python3 - "$(db_of "$1")" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
bad = 0
procs = [r[0] for r in db.execute("select id from process")]
for p in procs:
    # per communicator, its operations in sequence order; the two sides'
    # communicators have different ids, so they are compared as sets
    w, n = {}, {}
    # (NCCL hands an all-gather or broadcast on to its plugin in bytes, of
    # ncclInt8: collTaskAppend, src/enqueue.cc)
    for comm, f, count, nbytes, seq in db.execute("select c.comm_id, substr(a.name, 5), c.count, c.bytes, c.seq"
                                                  " from collective c join api a on a.id = c.api"
                                                  " where c.process_id = ? and c.seq >= 0 order by c.seq", (p,)):
        f = "Broadcast" if f == "Bcast" else f
        w.setdefault(comm, []).append("%s:%d:%d" % (f, nbytes if f in ("AllGather", "Broadcast") else count, seq))
    for comm, f, count, seq in db.execute("select comm_hash, func_name, count, seq from nccl_op_named"
                                          " where process_id = ? order by seq", (p,)):
        n.setdefault(comm, []).append("%s:%d:%d" % (f, count, seq))
    bad += not w or sorted(w.values()) != sorted(n.values())
print("%d processes, %d disagreeing" % (len(procs), bad))
PY
}
# (api_surface: a group, a split, a single-process communicator, an
# operation NCCL refuses, which NCCL's plugin never sees; p2p_ring: sends
# and receives in groups, matched by peer and order, and ncclBcast)
for app in straggler desync allreduce_compute_stream api_surface p2p_ring pp_allreduce; do
  "$gt" record -f -o "$tmp/$app" -- "$run" -n 4 --timeout 60 "$b/tests/apps/$app" > /dev/null 2>&1
  expect "$app: the plugin and the wrappers agree (function, count, sequence)" "$(agree "$tmp/$app")" "4 processes, 0 disagreeing"
  total=$(q "$tmp/$app" "select count(*) from collective where seq >= 0")
  expect "$app: every operation joined, none alone" \
    "$("$rep" "$tmp/$app" | grep -A1 "recorded $total operation(s): $total joined to wrapped calls,$" | grep -c "^ *0 seen by NCCL only")" 1
done

# ---- older NCCLs: v4 (2.26, 2.27) and v3 (2.25) -----------------------------
for v in 4 3; do
  GPUSIM_NCCL_PROFILER_MAX=$v "$gt" record -f -o "$tmp/v$v" -- "$run" -n 2 --timeout 60 "$b/tests/apps/straggler" > /dev/null 2>&1
  expect "NCCL asking for v$v: its operations recorded, with the version" \
    "$(q "$tmp/v$v" "select (select count(*) from nccl_op), (select count(*) from collective), (select group_concat(distinct plugin_version) from nccl_comm)")" \
    "96|96|$v"
  expect "v$v: the plugin and the wrappers agree" "$(agree "$tmp/v$v")" "2 processes, 0 disagreeing"
done

# ---- proxy steps: waiting for the peer versus the network ------------------
expect "proxy ops: one per operation, ended, each step's time accounted" \
  "$(q "$tmp/st" "select count(*) = 192 and min(steps_done) = 1 and min(end_ns - start_ns >= peer_wait_ns + net_ns) from nccl_proxy_op")" 1
# the simulated transfer (at least its 5 us latency) is on the network;
# the barrier before it is waiting for the peers
expect "proxy ops: the modelled transfer counted as network time, the wait for peers as peer wait" \
  "$(q "$tmp/st" "select min(net_ns) >= 5000 and sum(peer_wait_ns) > 0 from nccl_proxy_op")" 1

# ---- the store: a burst, and stops that come after their starts were stored
# (tests/apps/plugin_burst.c: 5,000 operations and proxy ops stopped at once,
# 35,000 records that fit the ring however late the writer is; 5,000 more
# stopped 300 ms later, half of their proxy ops never)
GPUTRACE_QUIET=1 GPUTRACE_CUPTI=0 GPUTRACE_OUTPUT="$tmp/burst.db" GPUTRACE_ONE_FILE=1 \
  "$b/tests/apps/plugin_burst" "$lib" 5000 > /dev/null
expect "burst: every operation stored, ended, none dropped" \
  "$(q "$tmp/burst.db" "select count(*) || ' ' || sum(end_ns is not null) || ' ' || (select dropped_host from process) from nccl_op")" \
  "10000 10000 0"
expect "burst: proxy ops ended at once, ended later, and left in progress, each with how far it got" \
  "$(q "$tmp/burst.db" "select sum(end_ns is not null and steps_done = 1 and net_ns > 0) || ' ' ||
                                sum(end_ns is not null and peer_wait_ns >= 250000000) || ' ' ||
                                sum(end_ns is null and last_state = 9) from nccl_proxy_op")" \
  "7500 2500 2500"

# ---- a hang inside a collective: where each rank stopped -------------------
# (tests/apps/hang.c: rank 3 never enters all-reduce 12; the others' kernels
# start and their proxy steps wait for the peer until the launcher kills them)
"$gt" record -f -o "$tmp/hang" -- "$run" -n 4 --timeout 5 "$b/tests/apps/hang" > /dev/null 2>&1
expect "hang: comm.hang says where each rank stopped inside the collective" "$("$rep" --format json "$tmp/hang" | python3 -c '
import json, sys
h = [f for f in json.load(sys.stdin)["findings"] if f["kind"] == "comm.hang"]
print(" ".join("%d:%s" % (s["rank"], s["at"]) for f in h for s in f.get("stopped", [])))')" \
  "0:waiting for a peer 1:waiting for a peer 2:waiting for a peer 3:not started"
expect "hang: and the text report too" \
  "$("$rep" "$tmp/hang" | tr -s ' \n' ' ' | grep -c 'where each rank stopped: 0 waiting for a peer, 1 waiting for a peer, 2 waiting for a peer, 3 not started')" 1

# ---- the user's own plugin wins ----------------------------------------------
other="$b/tests/apps/.libs/libother_profiler.so"
# (both libraries define ncclProfiler_v5, as every plugin does: under the
# sanitizers, ASan's one-definition check would stop the run)
ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_odr_violation=0" NCCL_PROFILER_PLUGIN="$other" "$gt" record -f -o "$tmp/other" -- "$run" -n 2 --timeout 60 "$b/tests/apps/straggler" > /dev/null 2> "$tmp/other.err"
expect "the user's NCCL_PROFILER_PLUGIN: theirs sees the operations" \
  "$(grep -c '^other profiler: 48 operations' "$tmp/other.err")" 2
expect "... ours records none, and the process row says why" \
  "$(q "$tmp/other" "select (select count(*) from nccl_op) || ' ' || count(*) from process where nccl_plugin_status = 'off (NCCL_PROFILER_PLUGIN names another plugin: $other)'")" "0 2"
NCCL_PROFILER_PLUGIN=none GPUTRACE_OUTPUT="$tmp/none.db" GPUTRACE_ONE_FILE=1 LD_PRELOAD="$lib" \
  "$run" -n 2 --timeout 60 "$b/tests/apps/straggler" > /dev/null 2>&1
expect "NCCL_PROFILER_PLUGIN=none: no plugin, said so" \
  "$(q "$tmp/none.db" "select (select count(*) from nccl_op) || ' ' || group_concat(distinct nccl_plugin_status) from process")" \
  "0 off (NCCL_PROFILER_PLUGIN=none)"
# NCCL_PROFILER_PLUGIN naming another build of the tracer than the one
# preloaded: that copy declines (an empty activation mask: NCCL sends it
# nothing), the preloaded one traces the process; the preloaded one, named,
# accepts
mkdir "$tmp/copy" && cp "$lib" "$tmp/copy/libgputrace.so"
mask_of() {
  # (two copies of one library: ASan's one-definition check off, as above)
  ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_odr_violation=0" \
  GPUTRACE_QUIET=1 GPUTRACE_CUPTI=0 GPUTRACE_OUTPUT="$tmp/copy.db" GPUTRACE_ONE_FILE=1 LD_PRELOAD="$lib" python3 -c '
import ctypes, os, sys
h = ctypes.CDLL(sys.argv[1], mode=os.RTLD_NOW | os.RTLD_LOCAL)
class T(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("init", ctypes.c_void_p)]
t = T.in_dll(h, "ncclProfiler_v5")
init = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint64, ctypes.POINTER(ctypes.c_int),
                        ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_void_p)(t.init)
ctx, mask = ctypes.c_void_p(), ctypes.c_int(-1)
print(init(ctypes.byref(ctx), 1, ctypes.byref(mask), b"", 1, 1, 0, None), mask.value)' "$1"
}
expect "another build named as the plugin declines; the preloaded one accepts" \
  "$(mask_of "$tmp/copy/libgputrace.so") / $(mask_of "$lib")" "0 0 / 0 1630"
# the preloaded library alone (no launcher) points NCCL at itself
GPUTRACE_OUTPUT="$tmp/pre.db" GPUTRACE_ONE_FILE=1 LD_PRELOAD="$lib" "$run" -n 2 --timeout 60 "$b/tests/apps/straggler" > /dev/null 2>&1
expect "preloaded only: NCCL loads the tracer as its plugin" \
  "$(q "$tmp/pre.db" "select count(*) from nccl_op")" 96
GPUTRACE_NCCL_PLUGIN=0 GPUTRACE_OUTPUT="$tmp/off.db" GPUTRACE_ONE_FILE=1 LD_PRELOAD="$lib" "$run" -n 2 --timeout 60 "$b/tests/apps/straggler" > /dev/null 2>&1
expect "GPUTRACE_NCCL_PLUGIN=0: the variable left alone" \
  "$(q "$tmp/off.db" "select (select count(*) from nccl_op) || ' ' || group_concat(distinct nccl_plugin_status) from process")" \
  "0 off (GPUTRACE_NCCL_PLUGIN=0)"
finish
