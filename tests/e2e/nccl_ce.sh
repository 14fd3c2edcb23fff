#!/bin/sh
# nccl_ce.sh: all-gathers that NCCL 2.28 runs on the copy engines
# (docs/nccl-ce.md; the workload tests/apps/ce_allgather.c): no kernel, a
# batch of copies on the user's stream that only CUPTI sees, and nothing
# told to NCCL's profiler plugin.  The report counts the copies as the
# collective's communication in every analysis (comm time, the
# collective's GPU time, comm.exposed), never as the user's copies, and
# the Chrome and Kineto exports name them NCCL's.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
export GPUSIM_LIB="$b/tests/sim/.libs/libgpusim.so"
gt="$b/gputrace"
run="$b/tests/sim/gpusim-run"
app="$b/tests/apps/ce_allgather"

# summary FILE.json CHROME.json KINETO_DIR: one line of what the checks read
summary() {
  python3 - "$@" <<'EOF'
import glob, json, sys
d = json.load(open(sys.argv[1]))
ct = json.load(open(sys.argv[2]))
ev = ct["traceEvents"] if isinstance(ct, dict) else ct
gpu = [e for e in ev if e.get("ph") == "X" and e.get("cat") in ("gpu_memcpy", "gpu_memset", "kernel")]
ce = [e for e in gpu if e["cat"] == "gpu_memcpy" and " (copy engine) Memcpy" in e["name"]]
big = [e for e in ce if e["name"].endswith(" 4194304 B")]
flags = [e for e in ce if e["name"].endswith(" 4 B")]
nccl_kernels = [e for e in gpu if e["cat"] == "kernel" and e["name"].startswith("nccl")]
comm = sum(r["comm_ns"] for r in d["ranks"])
copies = sum(e["dur"] for e in ce) * 1e3  # us -> ns
colls = [(c["op"], c["count"], c["total_ns"] > 0) for c in d["collectives"]]
# the kinds a copy could be taken for (gpu.idle, a straggler may come and go with the load)
kinds = sorted(set(f["kind"] for f in d["findings"] if f["kind"].startswith(("copy.", "sync."))))
exposed = sorted((f["rank"], f["count"]) for f in d["findings"] if f["kind"] == "comm.exposed")
kin = []
for f in sorted(glob.glob(sys.argv[3] + "/*.json")):
    for e in json.load(open(f))["traceEvents"]:
        if e.get("cat") == "gpu_memcpy" and "DtoD" in e.get("name", ""):
            kin.append(e["name"].startswith("ncclAllGather"))
print("copies=%d flags=%d nccl_kernels=%d plugin_ops=%d" % (len(big), len(flags), len(nccl_kernels), d["nccl_plugin"]["ops"]))
print("comm_is_copies=%s every_rank_comm=%s" % (abs(comm - copies) <= 0.02 * copies + 1000 if copies else False,
                                                all(r["comm_ns"] > 0 for r in d["ranks"])))
print("collectives=%s" % colls)
print("kinds=%s exposed=%s" % (kinds, exposed))
print("kineto_dtod=%d kineto_named_nccl=%s" % (len(kin), bool(kin) and all(kin)))
print("named=%s" % sorted(set(e["name"].split(" (copy engine)")[0] for e in ce)))
EOF
}

report() { # report RUN NAME: JSON, Chrome trace and Kineto of RUN into $tmp/NAME.*
  "$b/gputrace-report" --format json --chrome-trace "$tmp/$2.chrome.json" --kineto "$tmp/$2.kineto" "$1" > "$tmp/$2.json"
}

"$gt" record -f -o "$tmp/ce" -- "$run" -n 4 "$app" > "$tmp/ce.out" 2>&1
expect "ce_allgather: runs, every rank gathers the right data" "$?:$(grep -c 'done$' "$tmp/ce.out")" "0:4"
report "$tmp/ce" ce
expect "the report reads it" $? 0
summary "$tmp/ce.json" "$tmp/ce.chrome.json" "$tmp/ce.kineto" > "$tmp/ce.sum"
note "$(cat "$tmp/ce.sum")"
expect "on the copy engines: 4 copies of 4 MiB per rank and all-gather (one local, three to peers), no NCCL kernel; NCCL's plugin told nothing (NCCL 2.28 tells a v5 plugin nothing of CE collectives)" \
  "$(sed -n 1p "$tmp/ce.sum")" "copies=160 flags=0 nccl_kernels=0 plugin_ops=0"
expect "the copies are communication: the ranks' comm time is their copies' time, on every rank" \
  "$(sed -n 2p "$tmp/ce.sum")" "comm_is_copies=True every_rank_comm=True"
expect "every all-gather has GPU time (its copies' span)" \
  "$(sed -n 3p "$tmp/ce.sum")" "collectives=[('ncclAllGather', 40, True)]"
expect "nothing overlaps them: comm.exposed on every rank, 10 each; no copy finding (the workload's own copies are pinned)" \
  "$(sed -n 4p "$tmp/ce.sum")" "kinds=['sync.no_consumer'] exposed=[(0, 10), (1, 10), (2, 10), (3, 10)]"
expect "the Kineto export names every device-to-device copy NCCL's (HTA counts ^nccl as communication), the Chrome trace after its collective" \
  "$(sed -n 5,6p "$tmp/ce.sum" | tr '\n' ' ')" "kineto_dtod=160 kineto_named_nccl=True named=['ncclAllGather'] "
expect "the stream sync after each one says, on every rank, that it waited for an NCCL collective, not for a copy" \
  "$(python3 -c 'import json, sys; m = [f["message"] for f in json.load(open(sys.argv[1]))["findings"] if f["kind"] == "sync.no_consumer"]; print(sum("waiting for an NCCL copy-engine collective" in x for x in m), sum("waiting for a copy" in x for x in m))' "$tmp/ce.json")" "4 0"

# NVLink SHARP's form: each sync starts with a 4-byte host-to-device copy
# of the flag from a host variable (pageable memory): NCCL's, not a
# pageable copy of the program's
GPUSIM_NCCL_NVLS=1 "$gt" record -f -o "$tmp/mc" -- "$run" -n 4 "$app" > "$tmp/mc.out" 2>&1
expect "ce_allgather with NVLS flags: runs" "$?:$(grep -c 'done$' "$tmp/mc.out")" "0:4"
report "$tmp/mc" mc
summary "$tmp/mc.json" "$tmp/mc.chrome.json" "$tmp/mc.kineto" > "$tmp/mc.sum"
note "$(cat "$tmp/mc.sum")"
expect "NVLS: two 4-byte flag copies per all-gather, named NCCL's" \
  "$(sed -n 1p "$tmp/mc.sum")" "copies=160 flags=80 nccl_kernels=0 plugin_ops=0"
expect "NVLS: the flag copies are communication too, and no copy.pageable or host-sync finding is made of them" \
  "$(sed -n 2p "$tmp/mc.sum") $(sed -n 4p "$tmp/mc.sum" | cut -d' ' -f1)" \
  "comm_is_copies=True every_rank_comm=True kinds=['sync.no_consumer']"

# NCCL's other CE collectives, on 3 ranks: an all-to-all, and a gather and
# a scatter in one group (issued at ncclGroupEnd), their data checked
APP_CE_ALL=1 "$gt" record -f -o "$tmp/all" -- "$run" -n 3 "$app" > "$tmp/all.out" 2>&1
expect "all-to-all, gather, scatter on the copy engines: run, every rank's data right" "$?:$(grep -c 'done$' "$tmp/all.out")" "0:3"
report "$tmp/all" all
summary "$tmp/all.json" "$tmp/all.chrome.json" "$tmp/all.kineto" > "$tmp/all.sum"
expect "... no NCCL kernel, nothing told to the plugin, and every one of them has its copies' GPU time" \
  "$(sed -n 1p "$tmp/all.sum" | cut -d' ' -f3-4) $(sed -n 3p "$tmp/all.sum")" \
  "nccl_kernels=0 plugin_ops=0 collectives=[('ncclAllGather', 30, True), ('ncclAlltoAll', 3, True), ('ncclGather', 3, True), ('ncclScatter', 3, True)]"

# NCCL that no wrapper sees (the static simulator, as a static NCCL; the
# tracer injected): no external correlation links the copies, and NCCL 2.28
# tells its plugin nothing; the copies are still NCCL's, made inside NCCL's
# own NVTX ranges on their thread
static="$b/tests/apps/ce_allgather_static"
expect "static workload: no dynamic NCCL symbol for a wrapper to take" "$(nm -D "$static" | grep -c ' nccl')" 0
"$gt" record -f -o "$tmp/st" -- "$run" -n 4 "$static" > "$tmp/st.out" 2>&1
expect "static: runs" "$?:$(grep -c 'done$' "$tmp/st.out")" "0:4"
report "$tmp/st" st
summary "$tmp/st.json" "$tmp/st.chrome.json" "$tmp/st.kineto" > "$tmp/st.sum"
expect "static: the copies are communication, on every rank (NCCL's NVTX ranges), and named NCCL's (no collective record names the function)" \
  "$(sed -n 1,2p "$tmp/st.sum" | tr '\n' ' ')$(sed -n 6p "$tmp/st.sum")" \
  "copies=160 flags=0 nccl_kernels=0 plugin_ops=0 comm_is_copies=True every_rank_comm=True named=['nccl']"

# one communicator with copy-engine and kernel all-gathers
# (tests/apps/ce_mixed.c: per step one of each, then an all-reduce): NCCL
# tells its plugin of the kernel ones only, numbered among themselves, so
# the plugin's k-th all-gather record is the wrapper's k-th kernel one,
# never a copy-engine one (their driver calls under the call's external id
# tell them apart).  A hang in the last kernel all-gather: the report says
# where each rank stopped inside it, at its own call site
mixed="$b/tests/apps/ce_mixed"
last=$(grep -n 'the last kernel all-gather \*/' "${top_srcdir:-.}/tests/apps/ce_mixed.c" | cut -d: -f1)
hang_of() { # hang_of RUN: the comm.hang findings, call site and where each rank stopped
  "$b/gputrace-report" --format json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
h = [f for f in d["findings"] if f["kind"] == "comm.hang"]
print(d["unknown_comm"]["collectives"], len(h), " ".join("%s %s" % (f["callsite"].split(" [")[0], ",".join(
      "%d:%s" % (s["rank"], s["at"]) for s in f.get("stopped", []))) for f in h))'
}
"$gt" record -f -o "$tmp/mx" -- "$run" -n 4 "$mixed" > "$tmp/mx.out" 2>&1
expect "ce_mixed: runs, every rank's data right" "$?:$(grep -c 'done$' "$tmp/mx.out")" "0:4"
expect "ce_mixed: half the all-gathers on the copy engines (4 copies of 16 KiB per rank and all-gather), half NCCL kernels; the plugin told of the kernel ones and the all-reduces, each joined" \
  "$(q "$tmp/mx" "select count(*) from gpu_op where kind = 2 and copy_kind = 8 and bytes = 16384") $(q "$tmp/mx" "select count(*) from nccl_op_named where func_name = 'AllGather'") $("$b/gputrace-report" --format json "$tmp/mx" | python3 -c 'import json, sys; print(json.load(sys.stdin)["nccl_plugin"])')" \
  "64 16 {'ops': 32, 'joined': 32, 'alone': 0}"
APP_HANG=1 "$gt" record -f -o "$tmp/mxh" -- "$run" -n 4 --timeout 5 "$mixed" > "$tmp/mxh.out" 2>&1
expect "ce_mixed, a hang in the last kernel all-gather: found at its call site, with where each rank stopped inside it" \
  "$(hang_of "$tmp/mxh")" \
  "0 1 main (ce_mixed.c:$last) 0:waiting for a peer,1:waiting for a peer,2:waiting for a peer,3:not started"
# the same on a communicator no wrapper saw made (pncclCommInitRank, copy
# engines from NCCL_CTA_POLICY=2): the wrapped collectives take NCCL's
# identity from the plugin's records, the kernel ones only; the copy-engine
# ones, of which NCCL says nothing, stay in the unknown-communicator note
NCCL_CTA_POLICY=2 APP_UNKNOWN=1 APP_HANG=1 "$gt" record -f -o "$tmp/mxu" -- "$run" -n 4 --timeout 5 "$mixed" > "$tmp/mxu.out" 2>&1
expect "ce_mixed on an unknown communicator, the same hang: the last kernel all-gather's call site, where each rank stopped; the 16 copy-engine all-gathers left unknown" \
  "$(hang_of "$tmp/mxu")" \
  "16 1 main (ce_mixed.c:$last) 0:waiting for a peer,1:waiting for a peer,2:waiting for a peer,3:not started"

# the same program without the CTA policy, or with NCCL_CTA_POLICY=0 (the
# environment wins over the config, as in NCCL): NCCL's kernels, which the
# plugin hears of
for twin in "APP_CE=0" "NCCL_CTA_POLICY=0"; do
  env "$twin" "$gt" record -f -o "$tmp/k" -- "$run" -n 4 "$app" > "$tmp/k.out" 2>&1
  expect "$twin: runs" "$?:$(grep -c 'done$' "$tmp/k.out")" "0:4"
  report "$tmp/k" k
  summary "$tmp/k.json" "$tmp/k.chrome.json" "$tmp/k.kineto" > "$tmp/k.sum"
  expect "$twin: an NCCL kernel per all-gather, each told to the plugin, no copy-engine copy" \
    "$(sed -n 1p "$tmp/k.sum")" "copies=0 flags=0 nccl_kernels=40 plugin_ops=40"
done

# NCCL's other CE-capable collectives as kernels (no CTA policy), on 3
# ranks: NCCL enqueues an all-to-all, a gather and a scatter as send/recv
# tasks, one per peer (taskAppend, src/enqueue.cc), and tells its plugin of
# those, named Send and Recv, never of a Coll; each is joined to the
# wrapped collective it came from (viewer/read/plugin_join.c)
APP_CE=0 APP_CE_ALL=1 "$gt" record -f -o "$tmp/k3" -- "$run" -n 3 "$app" > "$tmp/k3.out" 2>&1
expect "all-to-all, gather, scatter as kernels: run, every rank's data right" "$?:$(grep -c 'done$' "$tmp/k3.out")" "0:3"
expect "... the plugin told of send/recv tasks for them: per rank, 3 sends and 3 receives for the all-to-all, one send to the gather's root (which receives 3), one receive from the scatter's (which sends 3)" \
  "$(q "$tmp/k3" "select group_concat(x, ' ') from (select p.rank || ':' || o.func_name || ':' || count(*) as x
                  from nccl_op_named o join process p on p.id = o.process_id group by p.rank, o.func_name
                  order by p.rank, o.func_name)")" \
  "0:AllGather:10 0:Recv:7 0:Send:4 1:AllGather:10 1:Recv:4 1:Send:7 2:AllGather:10 2:Recv:4 2:Send:4"
expect "... each joined to its wrapped collective, none standing alone" \
  "$("$b/gputrace-report" --format json "$tmp/k3" | python3 -c 'import json, sys; print(json.load(sys.stdin)["nccl_plugin"])')" \
  "{'ops': 60, 'joined': 60, 'alone': 0}"
finish
