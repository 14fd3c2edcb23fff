#!/usr/bin/env python3
"""kineto_roundtrip_golden.py BUILD SRC: the golden fixtures' recordings
(tests/data/golden, fixed, so the verdicts do not depend on the machine's
load) exported as Kineto traces (gputrace-report --kineto) and read back
by gputrace-report: the same findings, kind by kind, on the same ranks,
each at a call site or of the whole process as before (Kineto carries no
call sites: a site's finding is read back at "unknown"), with the same
count where the verdict is per call or per collective.

What a new user met: the demo's run exported and read back said
comm.exposed on ranks 0-3 where the recording said 0, 2-3 (the exposed
share of a call site was not weighed at an unknown site, so a rank's
one-off exposed collectives were a finding), and a cudaDeviceSynchronize
site one verdict in the recording, two read back (no call site to make
them one: analysis_sync.c's verdict_site).

The fixtures are those whose findings Kineto carries whole; the others
hold what it does not: event handles on calls (sim-event_sync,
sim-pg_sync, sim-multi_gpu, hand-syncs and the stream syncs of the
comm_* and p2p fixtures), hangs and where ranks stopped, NCCL's
connection set-up (docs/import.md)."""
import collections, json, os, subprocess, sys, tempfile

from tap import check, finish  # tests/e2e/tap.py

build, src = sys.argv[1], sys.argv[2]
golden = os.path.join(src, "tests", "data", "golden")
FIXTURES = ["sim-train_demo", "sim-desync", "sim-device_sync", "sim-overlapped", "sim-overlapped_shifted",
            "sim-pageable_upload", "sim-scalar_read", "sim-serialized_upload", "sim-straggler",
            "sim-straggler_shifted", "sim-allreduce_compute_stream", "sim-cpu_copy", "sim-to_device",
            "sim-pipeline", "sim-pipeline_connected", "hand-sync_site", "hand-stalled_nccl"]
# verdicts per call or per collective: their count is the same (import_roundtrip.py)
EXACT = {"sync.implicit", "sync.device_wide", "sync.no_consumer", "copy.serialized", "comm.same_stream",
         "comm.straggler", "gpu.launch_bound"}
# gpu.stalled and gpu.idle apart: a GPU gap is gpu.stalled's where the
# work that ended it was queued, its call found by its correlation id; the
# export writes an NCCL kernel's launch (a cudaLaunchKernelExC as its call
# ends, as PyTorch's traces have one under the collective's cpu_op), so a
# stall behind a queued NCCL kernel reads back as one, not as idle
report = os.path.join(build, "gputrace-report")
tmp = tempfile.mkdtemp()


def load(name, db):
    d = os.path.join(golden, name)
    if os.path.exists(os.path.join(d, "input.sql")):
        sql = open(os.path.join(d, "input.sql"), "rb").read()
    else:
        sql = open(os.path.join(golden, "hand-schema.sql"), "rb").read() + open(os.path.join(d, "rows.sql"), "rb").read()
    subprocess.run(["sqlite3", db], input=sql, check=True)


def findings(d):
    """(kind, where, rank) -> count: where a call site ("site") or the whole
    process ("whole", "unclaimed": the ledger's comm.exposed)."""
    r = collections.Counter()
    for f in d["findings"]:
        where = "unclaimed" if f.get("unclaimed") else "whole" if f["callsite"] == "(whole process)" else "site"
        r[(f["kind"], where, f["rank"])] += f["count"]
    return r


def idle(d):
    """rank -> (the ledger's GPU idle, gpu.stalled's cost)."""
    stalled = collections.Counter()
    for f in d["findings"]:
        if f["kind"] == "gpu.stalled":
            stalled[f["rank"]] += f["cost_ns"]
    return {l["rank"]: (sum(b["ns"] for b in l["buckets"] if b["bucket"].startswith("idle.")), stalled[l["rank"]])
            for l in d["ledger"]}


def ranks(c):
    by = collections.defaultdict(set)
    for (kind, where, rank) in c:
        by[(kind, where)].add(rank)
    return {k: sorted(v) for k, v in by.items()}


for name in FIXTURES:
    db, kdir = os.path.join(tmp, name + ".db"), os.path.join(tmp, name + "-kineto")
    load(name, db)
    a = subprocess.run([report, "--format", "json", "--kineto", kdir, db], capture_output=True, text=True)
    b = subprocess.run([report, "--format", "json", kdir], capture_output=True, text=True)
    if not check(a.returncode == 0 and b.returncode == 0, f"{name}: report, Kineto export and its report exit 0"
                 f" ({(a.stderr + b.stderr).strip()[-300:]})"):
        continue
    # each NCCL kernel's launch inside its call, strictly (Perfetto's
    # slices are open at their end: one starting at its parent's end is
    # no child), the flow from it at its time
    bad, launches = [], 0
    for f in os.listdir(kdir):
        ev = json.load(open(os.path.join(kdir, f)))["traceEvents"]
        ops = [e for e in ev if e.get("cat") == "cpu_op" and e.get("ph") == "X"]
        flows = {(e["id"], e["ts"]) for e in ev if e.get("ph") == "s"}
        for e in ev:
            if e.get("name") != "cudaLaunchKernelExC" or e.get("cat") != "cuda_runtime":
                continue
            launches += 1
            inside = [o for o in ops if o["tid"] == e["tid"] and o["args"].get("correlation") == e["args"]["correlation"]
                      and o["ts"] <= e["ts"] < o["ts"] + o["dur"]]
            if len(inside) != 1 or (e["args"]["correlation"], e["ts"]) not in flows:
                bad.append((f, e["ts"], e["args"]["correlation"]))
    check(not bad, f"{name}: each of {launches} NCCL launches inside its call, its flow there ({bad[:3]})")
    ja, jb = json.loads(a.stdout), json.loads(b.stdout)
    A, B = findings(ja), findings(jb)
    ia, ib = idle(ja), idle(jb)
    check(ia.keys() == ib.keys() and all(abs(ia[r][0] - ib[r][0]) <= 1000 and
                                         abs(ib[r][1] - ia[r][1]) <= ia[r][1] * 0.01 + 1000 for r in ia),
          f"{name}: read back, each rank's GPU idle the same, and as much of it stalled (idle, stalled: {ia}, {ib})")
    ra, rb = ranks(A), ranks(B)
    diff = {f"{k} {w}": (ra.get((k, w)), rb.get((k, w))) for k, w in sorted(set(ra) | set(rb))
            if ra.get((k, w)) != rb.get((k, w))}
    check(ra and not diff, f"{name}: read back, each kind on the same ranks, at a site or of the whole process"
          f" ({len(ra)} kinds; differ, recorded vs read back: {diff})")
    counts = {f"{k} rank {r}": (A.get((k, w, r)), B.get((k, w, r))) for k, w, r in sorted(set(A) | set(B))
              if k in EXACT and A.get((k, w, r)) != B.get((k, w, r))}
    check(not counts, f"{name}: read back, the same count of each per-call finding on each rank ({counts})")
finish()
