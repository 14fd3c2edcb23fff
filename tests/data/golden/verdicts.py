#!/usr/bin/env python3
"""verdicts.py FIXTURE_DIR REPORT_JSON DB SOURCE_DIR: the findings a
simulator fixture's workload documents (its header's expect/allow lines,
tests/e2e/workload_spec.py), checked on the report of the saved recording,
timing verdicts included: cost ranges, iterations, and the findings about
relative timing (straggler, exposed communication, idle GPU, ...), which a
live run cannot assert on a loaded machine, are fixed here.  Some fixtures
have checks of their own besides (EXTRA below: what crossrank.py and
report_workloads.py asserted live until they moved here).

FIXTURE_DIR/recording says how the recording was made (record.sh writes
it): workload (the header, "-" for none), binary, ranks, steps, env, args.
Prints TAP (tests/e2e/tap.py); golden.sh runs it inside its own checks."""
import json, os, re, shutil, sqlite3, subprocess, sys, tempfile

fixture_dir, report_json, db, src = sys.argv[1:5]
sys.path.insert(0, os.path.join(src, "tests", "e2e"))
from workload_spec import spec_of, findings_verdicts  # noqa: E402
from tap import check, finish  # noqa: E402

name = os.path.basename(os.path.normpath(fixture_dir))
build = os.environ.get("top_builddir", ".")


def recording():
    rec = {}
    for line in open(os.path.join(fixture_dir, "recording")):
        if "=" in line:
            k, v = line.rstrip("\n").split("=", 1)
            rec[k] = v
    return rec


def report(dbfile, *extra):
    out = subprocess.run([os.path.join(build, "gputrace-report"), "--format", "json", *extra, dbfile],
                         capture_output=True, text=True)
    return json.loads(out.stdout) if out.returncode in (0, 3) and out.stdout else None


def stragglers(d):
    return [f.get("straggler_rank") for f in d["findings"] if f["kind"] == "comm.straggler"]


def lazy_of(d):
    """{(rank, peer rank): first call ns} of the comm.lazy_connect findings."""
    return {(f["rank"], f["peer_rank"]): f["first_call_ns"] for f in d["findings"] if f["kind"] == "comm.lazy_connect"}


def bubbles(d):
    return {s["rank"]: s["bubble_ns"] for s in d.get("p2p", {}).get("stages", [])}


def multi_gpu(d):
    """A process that drives two GPUs: a summary row per GPU, each GPU's
    busy time its own (GPU 1 busy a sixth of what GPU 0 is), the union at
    least either; GPU 1's idle found on its own, more than GPU 0's."""
    r = d["ranks"][0]
    devs = {x["device"]: x for x in r.get("devices", [])}
    ok = set(devs) == {0, 1} and all(x["gpu_busy_ns"] <= r["gpu_busy_ns"] for x in devs.values())
    ok = ok and devs[1]["gpu_busy_ns"] < 0.75 * devs[0]["gpu_busy_ns"]
    idle = {f.get("device"): f.get("gpu_idle_ns", 0) for f in d["findings"] if f["kind"] == "gpu.idle"}
    ok = ok and 1 in idle and idle.get(0, 0) < idle[1]
    check(ok, f"{name}: a summary row per GPU, each its own busy time ({[(k, v['gpu_busy_ns']) for k, v in devs.items()]},"
              f" union {r['gpu_busy_ns']}; gpu.idle on GPUs {sorted(idle.items())})")


def default_streams(d):
    """A model split over two GPUs on their legacy streams (stream 0 on
    both, as PyTorch runs them): each GPU's stream its own, so the wait
    across GPUs is seen: gpu.pipeline_bubble the first finding (as one
    stream: gpu.stalled first, no bubble), and the replay as measured
    within 2% of the steps."""
    first = next((f["kind"] for f in d["findings"] if not f.get("below_min_cost")), None)
    w = [x for x in d.get("whatif", []) if x["rank"] == 0]
    check(first == "gpu.pipeline_bubble" and len(w) == 1 and abs(w[0]["replay_error"]) < 0.02,
          f"{name}: gpu.pipeline_bubble first ({first}), the replay within 2% ({[x.get('replay_error') for x in w]})")


def overlapped_shifted(d):
    """Rank 1 on a host of its own whose clock runs 5 ms ahead: aligned
    from the collectives, and no false straggler (crossrank.py's live run
    checks the rest)."""
    hosts = {h["host"]: h for h in d.get("clock_alignment", {}).get("hosts", [])}
    b = hosts.get("simhost-b", {})
    check(d.get("clock_alignment", {}).get("hosts_total") == 2 and b.get("aligned") and b.get("ranks") == "1",
          f"{name}: simhost-b (rank 1) aligned to the reference host ({sorted(hosts)}, {b})")
    check(abs(b.get("offset_ns", 0) - 5000000) < 1000000 and 0 <= b.get("residual_ns", -1) < 1000000,
          f"{name}: its offset 5 ms +- 1 ({b.get('offset_ns', 0) / 1e6:.3f} ms), residual under 1 ms"
          f" ({b.get('residual_ns', -1) / 1e6:.3f} ms)")
    check(not stragglers(d), f"{name}: no false comm.straggler on the shifted rank ({stragglers(d)})")


def straggler_shifted(d):
    """A real straggler (rank 2, 15 ms late) on a host whose clock runs
    14 ms behind, which hides most of its lead from the realtime clocks:
    found as on true clocks (the recording with the shift taken back out of
    its clock offset)."""
    tmp = tempfile.mkdtemp()
    try:
        fixed = os.path.join(tmp, "truth.db")
        shutil.copy(db, fixed)
        with sqlite3.connect(fixed) as con:
            con.execute("update process set clock_offset_ns = clock_offset_ns + 14000000 where host = 'simhost-c'")
        t = report(fixed)
    finally:
        shutil.rmtree(tmp, True)
    truth = stragglers(t) if t else None
    check(truth == [2] and stragglers(d) == truth,
          f"{name}: the straggler on a host 14 ms behind found as on true clocks ({stragglers(d)} vs {truth})")


def pipeline(d):
    """Lazy connections: the first-connection cost found once for each
    rank and neighbour, each first call blocked about the simulated set-up
    (20 ms), its blocked time charged to the finding."""
    lazy = lazy_of(d)
    want = {(0, 1), (1, 0), (1, 2), (2, 1), (2, 3), (3, 2)}
    check(set(lazy) == want and len(lazy) == len([f for f in d["findings"] if f["kind"] == "comm.lazy_connect"]),
          f"{name}: the first-connection cost found once for each rank and neighbour ({sorted(lazy)})")
    check(all(15e6 <= v <= 2e9 for v in lazy.values()),
          f"{name}: each first call blocked about as long as the simulated set-up, 20 ms"
          f" ({sorted(v // 10**6 for v in lazy.values())} ms)")
    lz = [f for f in d["findings"] if f["kind"] == "comm.lazy_connect"]
    cost, blocked = sum(f["cost_ns"] for f in lz), sum(f.get("host_blocked_ns", 0) for f in lz)
    check(blocked > 0 and 0.5 * blocked <= cost <= blocked,
          f"{name}: the first calls' blocked time is charged to comm.lazy_connect ({cost // 10**6} of {blocked // 10**6} ms)")
    check(all(s > 0 for s in bubbles(d).values()) and len(bubbles(d)) == 4, f"{name}: bubble time per stage")
    check(not any(f["kind"] in ("comm.mismatch", "comm.hang", "comm.straggler") for f in d["findings"]),
          f"{name}: no mismatch, hang or straggler among the point-to-point operations")


def pipeline_connected(d):
    """The twin connected at initialisation: no first call blocks for a
    set-up, and the steady state's bubbles show the slow stage (2), which
    waits for nobody, and the stage after it, which waits."""
    slow = [r for r, v in lazy_of(d).items() if v >= 15e6]
    check(not slow, f"{name}: no first call blocks for a set-up ({slow})")
    st = bubbles(d)
    check(len(st) == 4 and min(st, key=st.get) == 2 and st[3] >= 15e6,
          f"{name}: the slow stage has the least bubble time, the stage after it waits"
          f" ({[(r, v // 10**6) for r, v in sorted(st.items())]} ms)")


def straggler_static(d):
    """NCCL called where no wrapper sees it: its profiler plugin's records
    stand as the collectives, and the planted straggler (rank 2) is found
    from them.  (Not the straggler workload's whole header: linked
    statically, its loss reads in the drain are found as sync.scalar_read,
    which the dynamically linked one's are not.)"""
    check(stragglers(d) == [2], f"{name}: the straggler, rank 2, found from the plugin's records ({stragglers(d)})")
    check(d.get("nccl_plugin", {}).get("alone") == d.get("nccl_plugin", {}).get("ops", -1) > 0,
          f"{name}: every collective from NCCL's plugin alone ({d.get('nccl_plugin')})")


def train_demo(d):
    """The demo (issue 43, point 8): ranks 0, 2 and 3 wait inside the
    all-reduces for rank 1, the straggler.  That waiting is the straggler's,
    not exposure a stream could hide: comm.straggler is the first finding,
    and the ledger puts the waiting ranks' exposed time in comm.wait, charged
    to it, not to comm.exposed.  It came fifth, after comm.exposed's advice
    to launch collectives on their own stream, which the demo already does."""
    first = d["findings"][0] if d["findings"] else {}
    check(first.get("kind") == "comm.straggler" and first.get("straggler_rank", first.get("rank")) == 1,
          f"{name}: the first finding is rank 1's comm.straggler ({first.get('kind')})")
    waits = {l["rank"]: next(b["ns"] for b in l["buckets"] if b["bucket"] == "comm.wait") for l in d["ledger"]}
    exposed = {l["rank"]: sum(c["ns"] for c in l["causes"] if c["finding"] == "comm.exposed") for l in d["ledger"]}
    check(all(waits[r] > 2 * exposed[r] for r in (0, 2, 3)) and waits[1] == 0,
          f"{name}: the waiting ranks' comm.wait is more than twice their comm.exposed ({waits}, {exposed})")
    # the straggler's cost is the others' wait summed (more than any rank's
    # wall time): the text and the page say so, and over which ranks
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "r.html")
        text = subprocess.run([os.path.join(build, "gputrace-report"), "--html", page, db],
                              capture_output=True, text=True).stdout
        html = open(page).read() if os.path.exists(page) else ""
    summed = re.search(r"comm\.straggler .*\n {4}summed over 3 ranks \(0,2-3\), the most on rank \d: ([\d.]+) ms\n", text)
    walls = [r["wall_ns"] / 1e6 for r in d["ranks"]]
    check(summed and float(summed.group(1)) <= max(walls) and "ms</b> the others waited, 12 times, summed over 3 ranks" in html,
          f"{name}: the straggler's wait said to be summed over ranks 0, 2 and 3, in text and HTML")


EXTRA = {"train_demo": train_demo, "multi_gpu": multi_gpu, "overlapped_shifted": overlapped_shifted, "straggler_shifted": straggler_shifted,
         "pipeline": pipeline, "pipeline_grouped": pipeline, "pipeline_connected": pipeline_connected,
         "straggler_static": straggler_static, "model_parallel_default": default_streams,
         "model_parallel_torch": default_streams}


def text_order(d):
    """The text report lists its findings in the JSON's one order (what to
    fix first), a group of ranks where its first member stands, and says
    its confidence in words, never as a bracketed tag read as severity."""
    text = subprocess.run([os.path.join(build, "gputrace-report"), db], capture_output=True, text=True).stdout
    heads = re.findall(r"^ ?\d+\. (\S+) .*\n(?: {4}(?:high|medium|low) confidence\n)?(?: {4}summed over .*\n)?(?: {4}each iteration.*\n(?: {9}.*\n)?)?(?: {4}gpus .*\n)? {4}at +(.*)$",
                       text, re.M)
    want, seen = [], set()
    for i, f in enumerate(d["findings"]):
        key = (f["kind"], f["callsite"], f.get("range")) if f["rank"] >= 0 else i
        if key not in seen and not f.get("below_min_cost"):
            seen.add(key)
            want.append((f["kind"], f["callsite"] or "(unknown call site)"))
    words = len(re.findall(r"^ ?\d+\. .*, \d+ times?,(?: |\n {4})(?:high|medium|low) confidence$", text, re.M))
    check(heads == want and words == len(want) and "[high]" not in text,
          f"{name}: the text's findings in the JSON's order, confidence in words ({len(heads)} of {len(want)})")
    # the plugin's note, internal when every operation joined a wrapped
    # call, comes after the findings; among the first notes only when not
    plugin = d.get("nccl_plugin", {})
    if plugin.get("ops"):
        note, findings = text.find("note: NCCL's profiler plugin recorded"), text.find("\nfindings (")
        first = plugin["joined"] < plugin["ops"]
        check(note >= 0 and findings >= 0 and (note < findings) == first,
              f"{name}: the plugin's note {'before' if first else 'after'} the findings")


def per_iteration(d, steps):
    """Each finding's cost per iteration (finding_steps.c): the percentiles
    in order, the iterations it cost in no more than the run's, and its
    pieces no more than its cost: at least half its iterations cost the
    median or more.  A workload's findings that recur every step (a sync in
    its loop, a straggler) cost in each of its steps."""
    bad = []
    for f in d["findings"]:
        p = f.get("per_iteration")
        if not p:
            continue
        n = p["iterations"]
        if not (p["p10_ns"] <= p["median_ns"] <= p["p90_ns"] and 1 <= n <= p["of"] and
                p["median_ns"] * ((n + 1) // 2) <= f["cost_ns"] + n):
            bad.append((f["kind"], f["rank"], p))
    check(not bad, f"{name}: each finding's cost per iteration consistent with its cost ({bad[:2]})")
    if name == "sim-train_demo":
        every = {(f["kind"], f["rank"]): f.get("per_iteration", {}) for f in d["findings"]
                 if f["kind"] in ("comm.straggler", "sync.scalar_read")}
        check(len(every) == 5 and all(p.get("iterations") == p.get("of") == steps for p in every.values()),
              f"{name}: the straggler and the scalar reads cost in each of the {steps} iterations ({every})")


def main():
    rec = recording()
    d = json.load(open(report_json))
    text_order(d)
    per_iteration(d, int(rec.get("steps", 0) or 0))
    if rec.get("workload", "-") != "-":
        _, expects, allowed = spec_of(src, rec["workload"])
        check(expects or allowed, f"{name}: {rec['workload']}'s header documents its findings")
        for ok, what in findings_verdicts(name, d, expects, allowed, live=False, steps=int(rec["steps"])):
            check(ok, what)
    extra = EXTRA.get(name.removeprefix("sim-"))
    if extra:
        extra(d)
    finish()


main()
