#!/usr/bin/env python3
"""import_order_match.py BUILD SRC: collectives matched across ranks by
kernel order, on variants of a real trace.

tests/data/traces/hta-nccl-2rank (rank 0 of 2 on an A100, MIT, see its
README.md) has 21 NCCL kernels (15 all-reduces, 6 broadcasts) with their
collective args.  Here the args are stripped, as older PyTorch traces have
none, and the trace made into a 2-rank job: rank 0 is the trace, rank 1 a
copy.  In the straggler variant rank 1 starts every NCCL kernel 5 ms late
and rank 0's kernels wait for it (they end when rank 1's do), as a real
collective does.  Checked: the import makes one collective per kernel,
numbered by kernel order (GT_SEQ_ORDER | k); the report finds rank 1 the
straggler through that match, says in its note how the match was made,
and makes no comm.mismatch of it; and it refuses the match of a kind
(with a note saying why) when rank 1 ran one all-reduce fewer, and when
the ranks' all-reduces are shifted by one (as many, but not run together).
A trace without a rank makes no such collectives."""
import copy
import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # tests/e2e/tap.py: TAP lines for automake's driver

build, src = sys.argv[1], sys.argv[2]
gt, rep = os.path.join(build, "gputrace"), os.path.join(build, "gputrace-report")
trace = os.path.join(src, "tests", "data", "traces", "hta-nccl-2rank", "nccl_data.json.gz")
tmp = tempfile.mkdtemp()
LATE_US = 5000.0  # rank 1's lateness: more than the straggler margin (2 ms)
ORDER = 1 << 49   # format/record.h, GT_SEQ_ORDER


def check(what, cond, detail=""):
    return tap.check(cond, what if cond or detail == "" else "%s %s" % (what, detail))


def run(*args):
    p = subprocess.run(list(args), capture_output=True, text=True, timeout=300)
    check("%s exits 0" % " ".join(os.path.basename(a) for a in args[:2]), p.returncode == 0,
          "(rc %d; stderr %s)" % (p.returncode, p.stderr.strip()[-400:]))
    return p.stdout


def nccl(t):
    return sorted((e for e in t["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "kernel"
                   and e["name"].startswith("nccl")), key=lambda e: float(e["ts"]))


def allreduces(t):
    return [e for e in nccl(t) if "AllReduce" in e["name"]]


def drop(t, ev):
    t["traceEvents"] = [e for e in t["traceEvents"] if e is not ev]


def job(name, r0, r1):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    for r, t in enumerate((r0, r1)):
        with gzip.open(os.path.join(d, "rank-%d.json.gz" % r), "wt") as f:
            json.dump(t, f)
    return d


def report(d):
    out = run(rep, "--format", "json", d)
    try:
        return json.loads(out)
    except ValueError:
        return {}


def kinds(d):
    return {k["kernel"].split("_RING")[0]: k for k in d.get("order_matched", {}).get("kinds", [])}


with gzip.open(trace, "rt") as f:
    base = json.load(f)
check("the trace's 21 NCCL kernels carry collective args", len(nccl(base)) == 21 and
      all("Collective name" in e["args"] for e in nccl(base)))
for e in nccl(base):
    for k in [k for k in e["args"] if k[0].isupper() and k != "External id"]:
        del e["args"][k]  # the collective's args: name, sizes, group, dtype

# the job, both ranks on time
r0, r1 = copy.deepcopy(base), copy.deepcopy(base)
r1["distributedInfo"]["rank"] = 1
on_time = job("on_time", r0, r1)
# rank 1 late to every NCCL kernel, rank 0's waiting for it
late0, late1 = copy.deepcopy(base), copy.deepcopy(r1)
for e in nccl(late0):
    e["dur"] = float(e["dur"]) + LATE_US
for e in nccl(late1):
    e["ts"] = float(e["ts"]) + LATE_US
straggler = job("straggler", late0, late1)

db = os.path.join(tmp, "straggler.db")
run(gt, "import", "-q", "-f", "-o", db, straggler)
with sqlite3.connect(db) as c:
    rows = c.execute("SELECT p.rank, count(*), sum(c.seq >= ?), count(DISTINCT c.comm_id), min(c.nranks),"
                     " max(c.nranks) FROM collective c JOIN process p ON p.id = c.process_id GROUP BY p.rank"
                     " ORDER BY p.rank", (ORDER,)).fetchall()
    seqs = [r[0] - ORDER for r in c.execute("SELECT c.seq FROM collective c JOIN process p ON p.id = c.process_id"
                                              " WHERE p.rank = 0 AND c.api = (SELECT id FROM api WHERE name ="
                                              " 'ncclAllReduce') ORDER BY c.seq")]
    note = c.execute("SELECT note FROM import_note WHERE kind = 'comm.*'").fetchone()
check("import: a collective per NCCL kernel without args on each rank, numbered by kernel order, one"
      " communicator per kernel name, the job's world size", rows == [(0, 21, 21, 2, 2, 2), (1, 21, 21, 2, 2, 2)], rows)
check("import: the all-reduces numbered 0..14", seqs == list(range(15)), seqs)
check("import: its note says they are matched by order", note and "matched across ranks by their order" in note[0],
      note)

d = report(straggler)
st = [f for f in d.get("findings", []) if f["kind"] == "comm.straggler"]
check("report: rank 1 is the straggler, through the 21 collectives matched by kernel order",
      len(st) == 1 and st[0]["rank"] == 1 and st[0]["count"] == 21, [(f["rank"], f["count"]) for f in st])
check("report: no comm.mismatch of collectives matched by order",
      not [f for f in d.get("findings", []) if f["kind"] == "comm.mismatch"])
om = d.get("order_matched", {})
check("report JSON: order_matched counts 42 collectives of 2 kinds, none refused",
      om.get("collectives") == 42 and om.get("refused") == 0 and len(om.get("kinds", [])) == 2 and
      all(k["matched"] for k in om["kinds"]), om)
text = run(rep, straggler)
check("report text: the note says the collectives were matched by kernel order, and which kernels",
      "matched\n      across ranks by their order among each rank's NCCL kernels of one name" in text and
      "15 ncclKernel_AllReduce_RING_LL_Sum_float" in text and "6 ncclKernel_Broadcast_RING_LL_Sum_int8_t" in text)

d = report(on_time)
check("report: both ranks on time: no straggler, no mismatch",
      not [f for f in d.get("findings", []) if f["kind"] in ("comm.straggler", "comm.mismatch")],
      [f["kind"] for f in d.get("findings", [])])
check("report: both ranks on time: the match is kept", d.get("order_matched", {}).get("collectives") == 42)

# rank 1 ran one all-reduce fewer: that kind is refused, the broadcasts kept
fewer1 = copy.deepcopy(late1)
drop(fewer1, allreduces(fewer1)[-1])
fewer = job("fewer", late0, fewer1)
d = report(fewer)
k = kinds(d)
ar, bc = k.get("ncclKernel_AllReduce", {}), k.get("ncclKernel_Broadcast", {})
check("report: a kind with a different count on one rank is refused, saying so",
      ar.get("matched") is False and "not as many on every rank (rank 0 ran 15, rank 1 14)" in ar.get("why", ""), ar)
check("report: ... the other kind kept", bc.get("matched") is True and bc.get("collectives") == 12, bc)
check("report: ... the straggler found through the broadcasts alone",
      [(f["rank"], f["count"]) for f in d.get("findings", []) if f["kind"] == "comm.straggler"] == [(1, 6)])
text = run(rep, fewer)
check("report text: the note says the match was refused and why",
      "kernel order was refused" in text and "ncclKernel_AllReduce_RING_LL_Sum_float: not as many on every rank" in text)

# as many all-reduces, but rank 0's k-th is rank 1's (k+1)-th: they never run together
shift0, shift1 = copy.deepcopy(late0), copy.deepcopy(late1)
drop(shift0, allreduces(shift0)[-1])
drop(shift1, allreduces(shift1)[0])
shifted = job("shifted", shift0, shift1)
d = report(shifted)
ar = kinds(d).get("ncclKernel_AllReduce", {})
check("report: all-reduces matched one off (equal counts) are refused: their kernels did not run together",
      ar.get("matched") is False and "a rank's kernel ended before another's began" in ar.get("why", ""), ar)
# the refusal's line, a kernel's name and the reason: 117 columns once
long = [l for l in run(rep, shifted).splitlines() if len(l) > 100 and not l.startswith("    at ") and " " in l.strip()]
check("report text: the refusal's note within 100 columns", not long, long[:1])

# no rank in the trace: nothing to match by
norank = copy.deepcopy(base)
del norank["distributedInfo"]
p = os.path.join(tmp, "norank.json.gz")
with gzip.open(p, "wt") as f:
    json.dump(norank, f)
db = os.path.join(tmp, "norank.db")
run(gt, "import", "-q", "-f", "-o", db, p)
with sqlite3.connect(db) as c:
    n = c.execute("SELECT count(*) FROM collective").fetchone()[0]
    x = c.execute("SELECT count(*) FROM ext_corr").fetchone()[0]
    note = c.execute("SELECT note FROM import_note WHERE kind = 'comm.*'").fetchone()
check("import: a trace without a rank makes no collectives of kernels without args (nor ext_corr rows)",
      n == 0 and x == 0, (n, x))
check("import: ... and its note says why", note and "the trace names no rank" in note[0], note)

shutil.rmtree(tmp, ignore_errors=True)
tap.finish()
