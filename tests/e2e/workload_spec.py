"""workload_spec.py: what a workload of tests/apps says a correct report
finds on it, and the verdicts on a report against that.  Shared by
report_workloads.py (live runs on the simulator) and golden_verdicts.py
(the golden tests' saved recordings, tests/data/golden).

A workload's header holds "run:" (gpusim-run options), "expect: KIND
key=value..." (a finding it plants: ranks, callsite, range, iterations,
cost_ms, seq, names, stopped, missing, fix, waited_for) and "allow: KIND..."
(findings it may have besides).

Which verdicts depend on the machine's load: the simulated kernels last as
long as their host function runs, and the ranks are processes sharing the
machine's cores, so on a busy machine a rank can fall behind, a copy end
before its sync is reached, the GPU idle where it would not.  The findings
about relative timing across ranks and streams (TIMING_KINDS), the cost
ranges and the iterations a finding spans are such verdicts: they are
asserted on the saved recordings only (live=False), where they are fixed;
a live run asserts the rest (live=True)."""
import os, re

TIMING_KINDS = {"comm.straggler", "comm.exposed", "gpu.idle", "gpu.launch_bound", "sync.no_consumer", "sync.redundant",
                "host.setup"}
# findings the simulator makes itself, on every workload: its GPU's
# streams are threads on the machine's cores, and on a busy machine a
# kernel whose launch returned waits milliseconds for its thread to run
# (gpu.stalled: the GPU idle with work queued), where a GPU starts it in
# microseconds
SIMULATOR_KINDS = {"gpu.stalled"}
# the steps a workload of app_train.c runs unless APP_STEPS says otherwise
DEFAULT_STEPS = 12


def app_path(src, name):
    """The workload's source: a C program, a CUDA C++ one, or a Python script."""
    for ext in (".c", ".cu", ".py"):
        path = os.path.join(src, "tests", "apps", name + ext)
        if os.path.exists(path):
            return path
    raise SystemExit(f"no workload {name}")


def marker_line(path, marker):
    """callsite=@MARKER in a Python workload: FILE:LINE of the line that
    carries the comment `# MARKER`, so the expectation follows edits."""
    for n, line in enumerate(open(path), 1):
        if line.rstrip().endswith("# " + marker):
            return f"{os.path.basename(path)}:{n}"
    raise SystemExit(f"{path}: no line marked '# {marker}'")


def spec_of(src, name):
    """(gpusim-run options, [(kind, {key: value})], {allowed kinds})"""
    path = app_path(src, name)
    text = open(path).read()
    head = text[:text.index('"""', 3)] if path.endswith(".py") else text[:text.index("*/")]
    run, expects, allowed = [], [], set()
    for line in head.splitlines():
        line = line.strip().lstrip("*").strip()
        if line.startswith("run:"):
            run = line[4:].split()
        elif line.startswith("expect:"):
            words = line[7:].split()
            kind, opts = words[0], dict(w.split("=", 1) for w in words[1:] if "=" in w)
            if opts.get("callsite", "").startswith("@"):
                opts["callsite"] = marker_line(path, opts["callsite"][1:])
            expects.append((kind, opts))
        elif line.startswith("allow:"):
            # KIND, or KIND:unclaimed (only its whole-process finding of
            # what no call site's findings claimed: docs/report.md, "The ledger")
            allowed |= {w for w in line[6:].split() if re.match(r"^[a-z]+\.[a-z_]+(:unclaimed)?$", w)}
    return run, expects, allowed


def _matches(f, opts, steps):
    """Whether finding f has every property opts asks for but its rank."""
    good = True
    if "callsite" in opts:
        good = good and opts["callsite"] in f["callsite"]
    if "cost_ms" in opts:
        lo, hi = (float(x) for x in opts["cost_ms"].split(".."))
        good = good and lo <= f["cost_ns"] / 1e6 <= hi
    if "range" in opts:
        good = good and f.get("range") == opts["range"]
    if "iterations" in opts:
        lo, hi = (int(x) for x in opts["iterations"].split(".."))
        # a recording of fewer steps than the header's run: up to its last
        if steps is not None and hi == DEFAULT_STEPS:
            hi = steps
        good = good and f.get("iteration_first") == lo and f.get("iteration_last") == hi
    if "seq" in opts:
        good = good and f.get("seq") == int(opts["seq"])
    if "names" in opts:
        good = good and f.get("ranks") == [int(x) for x in opts["names"].split(",")]
    if "stopped" in opts:
        good = good and f.get("stopped_ranks") == [int(x) for x in opts["stopped"].split(",")]
    if "fix" in opts:
        good = good and opts["fix"] in f["suggestion"]
    if "waited_for" in opts:
        good = good and opts["waited_for"] in f.get("waited_for", "")
    if "missing" in opts:
        good = good and f.get("missing_ranks") == [int(x) for x in opts["missing"].split(",")]
    return good


def findings_verdicts(name, d, expects, allowed, live, steps=None):
    """Whether the report's findings (d: its JSON) are those the workload's
    header documents, as (ok, what) pairs.  live: a live run, whose timing
    verdicts are not made (see above); steps: the steps a recording ran,
    when fewer than the header's."""
    found = d["findings"]
    verdicts = []
    for kind, opts in expects:
        if live and kind in TIMING_KINDS:
            continue
        if live:
            opts = {k: v for k, v in opts.items() if k not in ("cost_ms", "iterations")}
        fs = [f for f in found if f["kind"] == kind]
        what = f"{name}: {kind} " + " ".join(f"{k}={v}" for k, v in opts.items())
        if "ranks" in opts:
            want = sorted(int(x) for x in opts["ranks"].split(","))
            ranks = sorted(f["rank"] if kind != "comm.straggler" else f.get("straggler_rank", f["rank"]) for f in fs)
            if ranks != want:
                verdicts.append((False, what + f" (found on ranks {ranks}: {[(f['rank'], f['callsite']) for f in fs]})"))
                continue
        if not fs:
            verdicts.append((False, what + " (not found)"))
            continue
        good = all(_matches(f, opts, steps) for f in fs)
        verdicts.append((good, what + ("" if good else f" (got {[(f['rank'], f['callsite'], f.get('range'), f.get('iteration_first'), f.get('iteration_last'), f['cost_ns'], f.get('seq'), f.get('ranks'), f.get('missing_ranks'), f.get('waited_for')) for f in fs]})")))
    known = {k for k, _ in expects} | allowed | SIMULATOR_KINDS | (TIMING_KINDS if live else set())
    extra = sorted({f["kind"] for f in found
                    if f["kind"] not in known and not (f.get("unclaimed") and f["kind"] + ":unclaimed" in allowed)})
    verdicts.append((not extra, f"{name}: no findings beyond those documented" + (f" (also found {extra})" if extra else "")))
    return verdicts
