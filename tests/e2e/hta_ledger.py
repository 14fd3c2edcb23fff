#!/usr/bin/env python3
"""hta_ledger.py BUILD SRC HTA_PYTHON: the report's per-rank ledger (the
`ledger` array of gputrace-report --format json) against Holistic Trace
Analysis (HTA) 0.5.0's get_temporal_breakdown and get_idle_time_breakdown,
on every real Kineto trace in tests/data/traces, within 1 percentage point
of the GPU span where the definitions agree (docs/hta-definitions.md says
which figures those are and why the others differ):

    HTA compute      = compute + comm.hidden
    HTA non-compute  = comm.wait + comm.transfer + copy
    HTA idle         = the idle.* buckets (and, on a rank with one stream,
                       HTA's idle breakdown summed over its categories)

HTA counts Kineto's cuda_sync events (a host waiting) as GPU work: where a
trace has them, the figures compared are HTA's on the trace with them
removed (exact: HTA's own code on its own input, less those rows), and
HTA's unadjusted figures are printed beside them.

Until the report has a ledger, those checks are skipped and the rest still
run: HTA's figures are pinned (EXPECTED: they are quoted in
docs/hta-definitions.md; a different HTA would change them), the figures a
plain reading of each trace gives (reference(): our definitions, in ns)
agree with HTA's without cuda_sync, and compare() passes a hand-made ledger
made from HTA's figures and fails one that is 2 points off.

HTA's figures on these fixed traces are a pinned version's output on fixed
inputs, so they are kept in tests/data/traces/hta-figures.json (HTA_SCRIPT's
output on each case, both roundings) and read from there: running HTA 18
times took 51 s alone and up to 118 s of a loaded CI's.  With
GPUTRACE_HTA_LIVE=1 HTA runs instead, and each case's figures must be the
pinned ones; GPUTRACE_HTA_PIN=FILE writes what it gave to FILE (after a
change of traces or of HTA's version).  A case the file lacks runs HTA."""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # tests/e2e/tap.py: TAP lines for automake's driver
import gzip
import json
import re
import shutil
import subprocess
import tempfile

TOLERANCE = 1.0  # percentage points of the GPU span

# HTA's own code, run in its virtual environment: per rank, the temporal
# breakdown and the idle breakdown (per stream, default threshold), on the
# trace as it is ("raw") and, where it has cuda_sync events, without them
# ("no_sync").  include_last_profiler_step: by default HTA drops the last
# ProfilerStep, which the report keeps.
HTA_SCRIPT = r"""
import json, logging, sys
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
def figures(t):
    out = {}
    for _, r in t.get_temporal_breakdown(visualize=False).iterrows():
        out[int(r["rank"])] = {"span_us": float(r["kernel_time(us)"]), "idle_us": float(r["idle_time(us)"]),
                               "compute_us": float(r["compute_time(us)"]),
                               "non_compute_us": float(r["non_compute_time(us)"]), "idle_by_stream": {}}
    ib, _ = t.get_idle_time_breakdown(ranks=list(out), visualize=False)
    for _, r in ib.iterrows():
        s = out[int(r["rank"])]["idle_by_stream"].setdefault(str(int(r["stream"])), {})
        s[r["idle_category"]] = float(r["idle_time"])
    return out
t = TraceAnalysis(trace_dir=sys.argv[1], include_last_profiler_step=True)
res = {"raw": figures(t)}
sync = t.t.symbol_table.sym_index.get("cuda_sync")
if sync is not None:
    for rank in list(t.t.traces):
        df = t.t.traces[rank]
        t.t.traces[rank] = df[df["cat"] != sync]
    res["no_sync"] = figures(t)
print(json.dumps(res))
"""

# HTA 0.5.0's figures, unadjusted, in % of its span: (compute, non-compute,
# idle) per case and rank, rounded to 0.01 as HTA rounds its own.
EXPECTED = {
    ("hta-critical-path/benchmark_result_2869224_1695835535", 0): (0.08, 0.43, 99.49),
    ("hta-critical-path/benchmark_result_493459_1694039959", 0): (0.06, 0.24, 99.70),
    ("hta-critical-path/event_sync_multi_stream", 0): (1.90, 0.02, 98.08),
    ("hta-critical-path/event_sync", 0): (18.63, 2.66, 78.71),
    ("hta-nccl-2rank", 0): (17.11, 6.21, 76.68),
    ("hta-ns-v100", 0): (96.85, 0.62, 2.53),
    ("hta-sampled-128", 0): (17.20, 27.59, 55.21),
    ("hta-sampled-128", 1): (22.09, 25.02, 52.89),
    ("hta-sendrecv-16rank", 0): (14.62, 16.37, 69.01),
}

# HTA's kernel classes (hta/utils/utils.py): a kernel is communication if
# its name matches ^nccl.*Kernel, memory if ^Memcpy|^Memset|^dma; it is
# computation unless its name matches NCCL_COMPUTE below.
NCCL_COMPUTE = re.compile(r"(^nccl.*Kernel)|(.*(Memcpy)|(Memset))|(.*Sync)")
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")


def check(cond, what):
    return tap.check(cond, what)


def pct(part, whole):
    return 100.0 * part / whole if whole else 0.0


def union_ns(iv):
    """Total length of a union of [start, end) intervals."""
    total, end = 0, None
    for s, e in sorted(iv):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def to_ns(v):
    """A Kineto time (µs, integer or with ns decimals) as integer ns."""
    return int(round(float(v) * 1000))


def reference(path, hta_filter=False):
    """A plain reading of one Kineto file, in ns: the GPU span (first to last
    kernel, copy or memset: no cuda_sync), the union of compute kernels
    (HTA's class), the rest of the busy time, and idle: what the ledger's
    in-span buckets add up to.  hta_filter: keep only what HTA keeps of a
    trace with two ProfilerSteps or more, the GPU work launched by a host
    event (same correlation) that began before the last step ended."""
    with gzip.open(path, "rt") if path.endswith(".gz") else open(path) as f:
        ev = json.load(f)["traceEvents"]
    xs = [e for e in ev if e.get("ph") == "X"]
    gpu = [e for e in xs if e.get("cat") in GPU_CATS]
    host = [e for e in xs if e.get("cat") not in GPU_CATS + ("cuda_sync",)]
    steps = [e for e in host if "ProfilerStep" in e.get("name", "")]
    if hta_filter and len({e["name"] for e in steps}) > 1:
        last = max(float(e["ts"]) + float(e.get("dur", 0)) for e in steps)
        launched = {e["args"]["correlation"] for e in host
                    if float(e["ts"]) <= last and "correlation" in e.get("args", {})}
        gpu = [e for e in gpu if e["args"].get("correlation") in launched]
    ops = [(to_ns(e["ts"]), to_ns(e["ts"]) + to_ns(e.get("dur", 0)), e["name"]) for e in gpu]
    if not ops:
        return None
    span = max(o[1] for o in ops) - min(o[0] for o in ops)
    busy = union_ns([(s, e) for s, e, _ in ops])
    comp = union_ns([(s, e) for s, e, n in ops if not NCCL_COMPUTE.match(n)])
    return {"span_ns": span, "compute_ns": comp, "non_compute_ns": busy - comp, "idle_ns": span - busy,
            "ops": len(ops), "streams": len({e["args"].get("stream") for e in gpu}),
            "syncs": sum(1 for e in ev if e.get("cat") == "cuda_sync")}


def ledger_sums(entry):
    """The ledger's figures that HTA's correspond to, in ns."""
    b = {}
    for x in entry["buckets"]:
        b[x["bucket"]] = b.get(x["bucket"], 0) + x["ns"]
    idle = sum(v for k, v in b.items() if k.startswith("idle."))
    return {"compute": b.get("compute", 0) + b.get("comm.hidden", 0),
            "non_compute": b.get("comm.wait", 0) + b.get("comm.transfer", 0) + b.get("copy", 0),
            "idle": idle, "total": sum(b.values()),
            "in_span": sum(v for k, v in b.items() if k not in ("before_gpu", "after_gpu"))}


def compare(entry, hta, how):
    """Checks of one ledger entry against HTA's figures for its rank:
    a list of (passed, description).  hta: one rank of HTA_SCRIPT's output
    (or figures of the same shape), how: what they are, for the messages.
    Percentages are of each side's own GPU span."""
    out = []
    s = ledger_sums(entry)
    span = entry["gpu_span_ns"]
    out.append((s["total"] == entry["life_ns"], "buckets add up to the life (%d of %d ns)" % (s["total"], entry["life_ns"])))
    out.append((s["in_span"] == span, "in-span buckets add up to the GPU span (%d of %d ns)" % (s["in_span"], span)))
    for key, hkey, what in (("compute", "compute_us", "compute + comm.hidden"),
                            ("non_compute", "non_compute_us", "comm.wait + comm.transfer + copy"),
                            ("idle", "idle_us", "idle.*")):
        h = pct(hta[hkey], hta["span_us"])
        o = pct(s[key], span)
        out.append((abs(h - o) <= TOLERANCE, "%s: %s %.2f%%, ledger %.2f%%" % (what, how, h, o)))
    streams = hta.get("idle_by_stream", {})
    if len(streams) == 1:  # HTA's idle breakdown is per stream: per GPU only with one stream
        cats = next(iter(streams.values()))
        h = pct(sum(cats.values()), hta["span_us"])
        o = pct(s["idle"], span)
        out.append((abs(h - o) <= TOLERANCE, "idle.* against HTA's idle breakdown of its one stream (%s): %.2f%%, ledger %.2f%%"
                    % (", ".join("%s %.0f us" % kv for kv in sorted(cats.items())), h, o)))
    return out


def hand_made(hta, life_extra_ns=1000, off_points=0.0):
    """A ledger entry made from HTA's figures (what a correct ledger would
    say), optionally with compute moved off by some points into idle."""
    span = int(hta["span_us"] * 1000)
    comp = int(hta["compute_us"] * 1000 + off_points * span / 100)
    non = int(hta["non_compute_us"] * 1000)
    idle = span - comp - non
    buckets = [{"bucket": "compute", "ns": comp // 2}, {"bucket": "comm.hidden", "ns": comp - comp // 2},
               {"bucket": "comm.transfer", "ns": non}, {"bucket": "idle.other", "ns": idle},
               {"bucket": "before_gpu", "ns": life_extra_ns}]
    return {"rank": 0, "pid": 1, "life_ns": span + life_extra_ns, "gpu_span_ns": span, "buckets": buckets}


def cases(src):
    """(name, [files]) for each real Kineto trace: the folders of
    tests/data/traces (a folder of ranks of one job is one case; the
    critical-path folder holds unrelated single traces, one case each), and
    any other Kineto input of the golden tests."""
    data = os.path.join(src, "tests", "data", "traces")
    out, seen = [], set()
    for d in sorted(os.listdir(data)):
        full = os.path.join(data, d)
        if not os.path.isdir(full) or d == "LICENSES":
            continue
        files = sorted(os.path.join(full, f) for f in os.listdir(full) if f.endswith((".json", ".json.gz")))
        if not files:
            continue
        if d == "hta-critical-path":
            out += [(d + "/" + os.path.basename(f).split("_trace")[0], [f]) for f in files]
        else:
            out.append((d, files))
        seen.update(os.path.realpath(f) for f in files)
    golden = os.path.join(src, "tests", "data", "golden")
    for g in sorted(os.listdir(golden)):
        inp = os.path.join(golden, g, "input")
        if not g.startswith("trace-") or not os.path.isfile(inp):
            continue
        for line in open(inp).read().split():
            p = os.path.join(src, line)
            files = sorted(os.path.join(p, f) for f in os.listdir(p)) if os.path.isdir(p) else [p]
            files = [f for f in files if f.endswith((".json", ".json.gz"))]
            if files and not all(os.path.realpath(f) in seen for f in files):
                out.append((g, files))
                seen.update(os.path.realpath(f) for f in files)
    return out


def run_hta(hta_python, d, exact):
    """HTA_SCRIPT's output on folder d; exact: with HTA's rounding of ns
    times to whole µs (start up, end down) turned off, as its own
    HTA_DISABLE_NS_ROUNDING does: a no-op on traces of integer µs."""
    env = dict(os.environ, HTA_DISABLE_NS_ROUNDING="1" if exact else "0")
    h = subprocess.run([hta_python, "-c", HTA_SCRIPT, d], capture_output=True, text=True, env=env)
    if h.returncode:
        return None, h.stderr.strip()[-400:]
    out = json.loads(h.stdout)
    return ({int(k): v for k, v in out["raw"].items()},
            {int(k): v for k, v in out.get("no_sync", out["raw"]).items()}), None


def in_us(ref):
    """A reference() reading in the shape of HTA's figures."""
    return {"span_us": ref["span_ns"] / 1e3, "compute_us": ref["compute_ns"] / 1e3,
            "non_compute_us": ref["non_compute_ns"] / 1e3, "idle_us": ref["idle_ns"] / 1e3}


PINNED = os.path.join("tests", "data", "traces", "hta-figures.json")


def hta_figures(hta_python, name, d, state):
    """(shown, exact, error): run_hta's two readings of case `name`, from
    the pinned file or from HTA itself (module docstring)."""
    pinned = state["pinned"].get(name)
    if pinned is not None and not state["live"]:
        return ({int(k): v for k, v in pinned["shown"].items()}, {}), \
               ({}, {int(k): v for k, v in pinned["exact"].items()}), None
    if not hta_python:
        return None, None, "HTA is not installed (GPUTRACE_HTA_LIVE, or a case not in %s)" % PINNED
    shown, err = run_hta(hta_python, d, exact=False)
    exact, err2 = run_hta(hta_python, d, exact=True)
    if shown and exact:
        got = {"shown": {str(k): v for k, v in shown[0].items()}, "exact": {str(k): v for k, v in exact[1].items()}}
        state["got"][name] = got
        if pinned is not None:
            same = json.dumps(got, sort_keys=True) == json.dumps(pinned, sort_keys=True)
            check(same, name + ": HTA's figures are the pinned ones (%s)" % PINNED)
    return shown, exact, err or err2


def check_case(build, hta_python, name, files, d, state):
    shown, exact, err = hta_figures(hta_python, name, d, state)
    if not check(shown and exact, name + ": HTA's figures" + (" (%s)" % err if err else "")):
        return
    raw, nosync = shown[0], exact[1]
    refs = {}
    for f in files:
        with gzip.open(f, "rt") if f.endswith(".gz") else open(f) as fh:
            rank = int(json.load(fh).get("distributedInfo", {}).get("rank", 0))
        refs[rank] = (reference(f), reference(f, hta_filter=True))
    target = {}
    for rank in sorted(raw):
        r = raw[rank]
        fig = tuple(round(pct(r[k], r["span_us"]), 2) for k in ("compute_us", "non_compute_us", "idle_us"))
        tap.diag("%s rank %d: HTA compute %.2f%%, non-compute %.2f%%, idle %.2f%% of %.0f us; idle by stream %s"
                 % ((name, rank) + fig + (r["span_us"], json.dumps(r["idle_by_stream"], sort_keys=True))))
        want = EXPECTED.get((name, rank))
        if want is None:
            tap.skip("%s: rank %d HTA figures pinned" % (name, rank), "not in EXPECTED")
        else:
            check(all(abs(a - b) <= 0.05 for a, b in zip(fig, want)),
                  "%s: rank %d HTA figures %s, as pinned %s" % (name, rank, fig, want))
        full, kept = refs.get(rank, (None, None))
        if not full:
            continue
        n = nosync[rank]
        # HTA's definitions, exactly: its figures without cuda_sync events
        # and without its µs rounding are a plain reading of what it keeps
        for key, what in (("compute", "compute"), ("non_compute", "non-compute"), ("idle", "idle")):
            a, b = pct(n[key + "_us"], n["span_us"]), pct(kept[key + "_ns"], kept["span_ns"])
            check(abs(a - b) <= 0.01, "%s: rank %d %s: HTA without cuda_sync, in ns, %.3f%%; a plain reading of the %d GPU ops it keeps %.3f%%"
                  % (name, rank, what, a, kept["ops"], b))
        if kept["ops"] == full["ops"]:
            target[rank] = (n, "HTA (%stimes in ns)" % ("without cuda_sync events, " if full["syncs"] else ""))
        else:  # HTA drops GPU work whose launch the trace lacks; the ledger counts it
            target[rank] = (in_us(full), "a plain reading of all %d GPU ops (HTA keeps %d)" % (full["ops"], kept["ops"]))
        if not state.get("selftest"):  # compare() itself, on hand-made ledgers
            check(all(ok for ok, _ in compare(hand_made(n), n, "HTA")), "compare() passes a ledger made from HTA's figures")
            check(not all(ok for ok, _ in compare(hand_made(n, off_points=2.0), n, "HTA")),
                  "compare() fails a ledger 2 points off")
            state["selftest"] = True
    rep = subprocess.run([os.path.join(build, "gputrace-report"), "--format", "json", d], capture_output=True, text=True)
    if not check(rep.returncode == 0, name + ": gputrace-report reads it" +
                 (" (%s)" % rep.stderr.strip()[-300:] if rep.returncode else "")):
        return
    ledger = json.loads(rep.stdout).get("ledger")
    if ledger is None:
        tap.skip(name + ": the ledger against HTA", "the report has no ledger yet")
        return
    for entry in ledger:
        rank = entry.get("rank")
        if not check(rank in target, "%s: ledger rank %s has HTA figures" % (name, rank)):
            continue
        for ok, what in compare(entry, *target[rank]):
            check(ok, "%s: rank %d %s" % (name, rank, what))


def main():
    build, src = sys.argv[1:3]
    hta_python = sys.argv[3] if len(sys.argv) > 3 else ""
    tmp = tempfile.mkdtemp()
    state = {"live": os.environ.get("GPUTRACE_HTA_LIVE") == "1", "got": {}, "pinned": {}}
    pinned = os.path.join(src, PINNED)
    if os.path.exists(pinned):
        with open(pinned) as fh:
            state["pinned"] = json.load(fh)
    try:
        for name, files in cases(src):
            d = os.path.join(tmp, name.replace("/", "_"))
            os.makedirs(d)
            for f in files:
                shutil.copy(f, d)
            check_case(build, hta_python, name, files, d, state)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out = os.environ.get("GPUTRACE_HTA_PIN")
    if out:
        with open(out, "w") as fh:
            json.dump(state["got"], fh, indent=1, sort_keys=True)
            fh.write("\n")
        tap.diag("HTA's figures of %d case(s) written to %s" % (len(state["got"]), out))
    tap.finish()


if __name__ == "__main__":
    main()
