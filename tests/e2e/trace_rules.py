#!/usr/bin/env python3
"""trace_rules.py: the rules Perfetto's JSON importer holds a trace to,
checked on the files themselves (no browser needed; browser.sh checks the
same in the Perfetto UI where Chromium runs):

- a flow event has an "id" (Perfetto reads no "id2"), and a flow's events
  come in time order: "s" first, "f" last;
- complete events on one track nest: none starts inside another and ends
  after it (Perfetto drops such a one);
- GPU streams on their own id (Chrome trace: "GPU g stream s (roles)" on
  tid s, the roles what ran on it: compute, NCCL, copy; no track named for
  a stream that ran nothing; Kineto: "stream s" on pid = device, tid = s);
- the ranks ordered by process_sort_index (the rank), no filler markers
  to even out slice counts (a column of arrows once);
- a finding's markers at their occurrences' times, their costs summing to
  the finding's when every occurrence is marked, each its own occurrence's
  (not the whole cost on the last one); a whole-process figure's at the
  first pieces of time charged to it, on the track of the rank it names
  (a straggler's, not the ranks that waited: a search for comm.straggler
  lands on the straggler); a collective's naming its stream; every
  marker on its process's track, none on a thread's or a stream's, where
  it was the slice that a flow starting or ending at its time bound to;
- each flow step binds to its call's, operation's or collective's slice
  (binding).

Usage: trace_rules.py CHROME_TRACE KINETO_FILE..."""
import json, sys

from tap import check, finish  # tests/e2e/tap.py
from decimal import Decimal





def us(v):
    return Decimal(str(v))


def flows(name, ev):
    bad_id = [e for e in ev if e.get("ph") in ("s", "t", "f") and ("id" not in e or "id2" in e)]
    check(not bad_id, f"{name}: every flow event has an id and no id2 ({len(bad_id)} without)")
    by = {}
    for e in ev:
        if e.get("ph") in ("s", "t", "f") and "id" in e:
            by.setdefault((str(e["id"]), e.get("cat"), e.get("name")), []).append(e)
    wrong = [k for k, v in by.items()
             if v[0]["ph"] != "s" or v[-1]["ph"] != "f" or any(us(a["ts"]) > us(b["ts"]) for a, b in zip(v, v[1:]))]
    check(by and not wrong, f"{name}: {len(by)} flows, each s..t..f in time order ({wrong[:3]})")


def binding(name, ev):
    """Each flow step's slice, as a viewer binds it: "s", "t" and "f" with
    "bp": "e" to the deepest slice on its thread's track that holds its
    time (a zero-length one at that time too: a thread-scoped instant is
    one), an "f" without it to the next slice to begin there.  Of slices
    of one extent, the later in the file is the deeper.  That is
    chrome://tracing's rule (it binds once every slice is read); Perfetto
    binds as it reads, events of one time in file order, so a slice later
    in the file than the flow step can escape it there: the stricter rule
    is the one checked.  A flow must bind to
    a call's, an operation's or a collective's slice, never a finding's
    marker; a collective's across the ranks to the collective's."""
    tracks = {}
    for i, e in enumerate(ev):
        ph = e.get("ph")
        if ph == "X" or (ph in ("i", "I") and e.get("s", "t") == "t"):
            tracks.setdefault((e["pid"], e.get("tid")), []).append(
                (us(e["ts"]), us(e.get("dur", 0)), i, e.get("cat"), e.get("name")))
    ends = {"ac2g": {"cuda_api", "nccl", "kernel", "gpu_memcpy", "gpu_memset", "collective"},
            "collective": {"collective"}}
    wrong = []
    n = 0
    for e in ev:
        if e.get("ph") not in ("s", "t", "f"):
            continue
        n += 1
        t = us(e["ts"])
        v = tracks.get((e["pid"], e.get("tid")), [])
        if e["ph"] == "f" and e.get("bp") != "e":
            got = min((x for x in v if x[0] >= t), key=lambda x: (x[0], -x[1], x[2]), default=None)
        else:
            got = max((x for x in v if x[0] <= t <= x[0] + x[1]), key=lambda x: (x[0], -x[1], x[2]), default=None)
        if got is None or got[3] == "finding" or got[3] not in ends.get(e.get("cat"), {got[3]}):
            wrong.append((e.get("cat"), e["ph"], e["pid"], e.get("tid"), str(t), got and (got[3], got[4])))
    check(n and not wrong, f"{name}: each of {n} flow steps binds to its call's, operation's or collective's slice,"
          f" none to a finding's marker ({len(wrong)} not: {wrong[:3]})")


def nesting(name, ev):
    tracks = {}
    for e in ev:
        if e.get("ph") == "X":
            tracks.setdefault((e["pid"], e["tid"]), []).append((us(e["ts"]), us(e["dur"]), e["name"]))
    crossing = []
    for key, v in tracks.items():
        v.sort(key=lambda x: (x[0], -x[1]))
        stack = []
        for ts, dur, n in v:
            while stack and stack[-1][0] <= ts:
                stack.pop()
            if stack and ts + dur > stack[-1][0]:
                crossing.append((key, n, stack[-1][1]))
            stack.append((ts + dur, n))
    check(not crossing, f"{name}: complete events on each of {len(tracks)} tracks nest ({crossing[:3]})")


chrome, kinetos = sys.argv[1], sys.argv[2:]
ev = json.load(open(chrome))["traceEvents"]
flows("Chrome trace", ev)
binding("Chrome trace", ev)
nesting("Chrome trace", ev)
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "thread_name"}
ops = {(e["pid"], e["tid"], e["args"]["device"], e["args"]["stream"]) for e in ev
       if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")}
roles = {}
for e in ev:
    if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
        role = "NCCL" if e["name"].startswith("nccl") else "compute" if e["cat"] == "kernel" else "copy"
        roles.setdefault((e["pid"], e["tid"]), set()).add(role)


def stream_name(pid, g, s):
    return f"GPU {g} stream {s} (%s)" % " + ".join(r for r in ("compute", "NCCL", "copy") if r in roles[(pid, s)])


check(ops and all(tid == s and names.get((pid, tid)) == stream_name(pid, g, s) for pid, tid, g, s in ops),
      f"Chrome trace: GPU work on tid = stream, tracks named 'GPU g stream s (roles)' "
      f"({[names.get((pid, tid)) for pid, tid, g, s in sorted(ops)[:3]]})")
named = [k for k, v in names.items() if v.startswith("GPU ")]
check(named and all(k in roles for k in named), f"Chrome trace: no track named for a stream that ran nothing"
      f" ({[names[k] for k in named if k not in roles]})")
ranks = {e["pid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "process_name"
         and e["args"]["name"].startswith("rank ")}
sort = {e["pid"]: e["args"]["sort_index"] for e in ev if e.get("ph") == "M" and e["name"] == "process_sort_index"}
check(ranks and all(sort.get(pid) == int(nm.split()[1]) for pid, nm in ranks.items()),
      f"Chrome trace: each rank's process_sort_index is its rank ({sort})")
filler = [e for e in ev if e.get("cat") == "gputrace" or e.get("name") == "(track order)"]
check(not filler, f"Chrome trace: no filler markers to order the tracks ({len(filler)})")
marks = [e for e in ev if e.get("cat") == "finding"]
# a finding is one process's: two ranks' findings of one kind at one site
# can have the same message and, timed alike, the same cost to the
# nanosecond (the simulator's ranks' exposed communication, now and then)
by = {}
for e in marks:
    a = e["args"]
    whose = ("rank", a["rank"]) if "rank" in a else ("pid", e["pid"])
    by.setdefault((a["kind"], a["callsite"], a["finding_cost_ns"], a["message"], whose), []).append(e)
check(len(by) > 1, f"Chrome trace: {len(by)} findings marked")
streams = {(pid, tid) for pid, tid, g, s in ops}
coll = [e for e in marks if e["name"] in ("comm.exposed", "comm.same_stream") and e["args"]["callsite"] != "(whole process)"]
check(coll and all(e.get("s") == "p" and "tid" not in e and (e["pid"], e["args"].get("stream")) in streams for e in coll),
      f"Chrome trace: {len(coll)} markers of collectives' findings on their process's track, naming their streams")
at_calls = [e for e in marks if "occurrence" in e["args"] and e not in coll]
check(all(e.get("s") == "p" and "tid" not in e for e in marks) and any("thread" in e["args"] for e in at_calls),
      f"Chrome trace: every marker on its process's track, off the threads' and streams' (where flows bind),"
      f" those of calls naming their thread")
for (kind, site, cost, _, _), v in by.items():
    a = v[0]["args"]
    if a["marked"] == 0:
        continue
    check(len(v) == a["marked"] == min(a["occurrences"], 20), f"Chrome trace: {kind} at {site}: {len(v)} markers"
          f" of {a['occurrences']} occurrences (the first 20)")
    check(len({e["ts"] for e in v}) == len(v), f"Chrome trace: {kind} at {site}: each marker at its own time")
    if a["occurrences"] == len(v):
        total = sum(e["args"]["cost_ns"] for e in v)
        check(total == cost, f"Chrome trace: {kind} at {site}: the markers' costs sum to the finding's ({total} vs {cost})")
# an occurrence's marker carries what its own claims were given: of a
# finding made of many blocking calls, not the whole cost on its last marker
for (kind, site, cost, _, _), v in by.items():
    if kind in ("sync.scalar_read", "copy.pageable") and v[0]["args"]["marked"] >= 3 and cost > 0:
        paid = sum(1 for e in v if e["args"]["cost_ns"] > 0)
        check(paid >= len(v) // 2, f"Chrome trace: {kind} at {site}: {paid} of {len(v)} markers carry a cost of their own")
# a whole-process figure (gpu.idle, gpu.stalled, comm.straggler, comm.exposed of what
# no call site's collectives explain) is marked at the first
# pieces of time charged to it, on the process's track of the rank whose time
pieces = [e for e in marks if "charged_piece" in e["args"]]
check(all(e["args"]["marked"] == 0 and e.get("s") == "p" and (e["args"]["kind"] in ("gpu.idle", "gpu.stalled", "comm.straggler") or
                                                            (e["args"]["kind"] == "comm.exposed" and
                                                             e["args"]["callsite"] == "(whole process)"))
          for e in pieces), f"Chrome trace: {len(pieces)} markers of whole-process findings at the time charged to them")
whole = [e for e in marks if e["args"]["callsite"] == "(whole process)" and e["args"].get("rank", -1) >= 0]
check(whole and all(e["pid"] == e["args"]["rank"] for e in whole),
      f"Chrome trace: {len(whole)} markers of whole-process findings on the process of the rank they name"
      f" ({sorted({(e['name'], e['args']['rank'], e['pid']) for e in whole if e['pid'] != e['args']['rank']})})")
for (kind, site, cost, _, _), v in by.items():
    got = [e for e in v if "charged_piece" in e["args"]]
    if got:
        check(len({(e["pid"], e["ts"]) for e in got}) == len(got) and sum(e["args"]["cost_ns"] for e in got) <= cost,
              f"Chrome trace: {kind}: {len(got)} pieces, each at its own time, within the finding's cost")
for k in kinetos:
    kev = json.load(open(k))
    dev = kev["deviceProperties"][0]["id"]
    ev = kev["traceEvents"]
    flows(k, ev)
    nesting(k, ev)
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "thread_name"}
    rows = {(e["pid"], e["tid"]) for e in ev if e.get("ph") == "X"}
    check(all(k in names for k in rows), f"{k}: every row named ({sorted(r for r in rows if r not in names)[:3]})")
    gpu = {e["tid"] for e in ev if e.get("cat") == "kernel"}
    check(gpu and all(names.get((dev, s)) == f"stream {s}" for s in gpu), f"{k}: GPU rows named 'stream N'")
finish()
