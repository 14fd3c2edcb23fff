#!/usr/bin/env python3
"""export_rows.py BUILD SRC: what gputrace-report --kineto and
--chrome-trace write of runs that are not one rank a process, on the golden fixtures' recordings
(tests/data/golden), read back as HTA and our import read them:
- processes without a rank (sim-train_demo with ranks 2 and 3 taken
  away): each file gets a rank of its own past the run's ranks (HTA keys a
  directory's files by rank and kept the last of two "rank": 0 files,
  reading a worker as rank 0), marked so that our import reads no rank;
- sends and receives (sim-p2p_ring): each send's args as PyTorch gives
  them ("Rank" the peer's place, Src/Dst Rank), so that read back each
  send keeps its peer and its rank (written with the rank's own "Rank",
  read back every send went to itself).  A send and a receive NCCL ran as
  one kernel (a group) carry the send's args: the receive is not read back
  (docs/kineto.md); in the Chrome trace, a flow links each send to the
  receive of its pair, not one flow through every rank's k-th send and
  receive (their number counts per peer);
- a process that ran work on two GPUs (sim-multi_gpu): each stream's row
  named under its own device's pid, each device's rows named "GPU d", and
  each GPU's kernel of their grouped all-reduce its own member's (both
  members had taken the first kernel of the group);
- a call and its kernel before the process's start (hand-syncs, moved: a
  damaged input): at the run's start (0), as Kineto's writer puts them,
  not at a negative time, which Perfetto drops."""
import glob
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # tests/e2e/tap.py

build, src = sys.argv[1], sys.argv[2]
golden = os.path.join(src, "tests", "data", "golden")
tmp = tempfile.mkdtemp()


def load(name, sql=None):
    db = os.path.join(tmp, name + ".db")
    with open(os.path.join(golden, name, "input.sql")) as f:
        subprocess.run(["sqlite3", db], stdin=f, check=True)
    if sql:
        with sqlite3.connect(db) as c:
            c.executescript(sql)
    return db


def export(db):
    d = db[:-3] + ".kineto"
    p = subprocess.run([os.path.join(build, "gputrace-report"), "-j1", "--kineto", d, db], capture_output=True,
                       text=True)
    tap.check(p.returncode == 0, "%s: gputrace-report --kineto exits 0 (%s)" % (os.path.basename(db),
                                                                                p.stderr.strip()[-200:]))
    return {os.path.basename(f): json.load(open(f)) for f in sorted(glob.glob(d + "/*.json"))}, d


def reimport(d):
    db = d + ".db"
    p = subprocess.run([os.path.join(build, "gputrace"), "import", "-q", "-f", "-o", db, d], capture_output=True,
                       text=True)
    tap.check(p.returncode == 0, "%s: gputrace import exits 0 (%s)" % (os.path.basename(d), p.stderr.strip()[-200:]))
    return db


def rows(db, sql):
    with sqlite3.connect(db) as c:
        return c.execute(sql).fetchall()


# two processes without a rank
db = load("sim-train_demo", "UPDATE process SET rank = NULL WHERE rank IN (2, 3);")
files, d = export(db)
info = {f: (t["distributedInfo"]["rank"], t["distributedInfo"].get("gputrace_unranked", False))
        for f, t in files.items()}
ranks = sorted(r for r, _ in info.values())
tap.check(len(files) == 4 and ranks == [0, 1, 2, 3] and sorted(u for _, u in info.values()) == [False, False, True, True]
          and all(u == f.startswith("pid-") for f, (_, u) in info.items()),
          "train_demo, ranks 2 and 3 taken away: four files of four ranks (HTA's key), those of no rank marked: %s"
          % info)
back = reimport(d)
tap.check(sorted(r for (r,) in rows(back, "SELECT coalesce(rank, -1) FROM process")) == [-1, -1, 0, 1],
          "train_demo, read back: two ranks and two processes of no rank, as recorded")

# sends and receives in a ring of four
db = load("sim-p2p_ring")
files, d = export(db)
back = reimport(d)
sends = rows(back, "SELECT p.rank, c.rank, c.peer, count(*) FROM collective c JOIN process p ON p.id = c.process_id"
                   " WHERE c.api = (SELECT id FROM api WHERE name = 'ncclSend') GROUP BY 1, 2, 3 ORDER BY 1")
want = rows(db, "SELECT p.rank, c.rank, c.peer, count(*) FROM collective c JOIN process p ON p.id = c.process_id"
                " WHERE c.api = (SELECT id FROM api WHERE name = 'ncclSend') GROUP BY 1, 2, 3 ORDER BY 1")
tap.check(sends == want and len(sends) == 4 and all(peer == (r + 1) % 4 for r, _, peer, _ in sends),
          "p2p_ring, read back: each rank's sends with their rank and peer, as recorded: %s (recorded %s)"
          % (sends, want))

chrome = os.path.join(tmp, "p2p.trace.json")
subprocess.run([os.path.join(build, "gputrace-report"), "-j1", "--chrome-trace", chrome, db], capture_output=True)
ev = json.load(open(chrome))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
slices = {}  # a send and a receive NCCL ran as one kernel share a place
for e in ev:
    if e.get("ph") == "X" and e.get("cat") == "collective":
        slices.setdefault((e["pid"], e["tid"], e["ts"]), []).append(e)
flows = {}
for e in ev:
    if e.get("cat") == "collective" and e.get("ph") in ("s", "t", "f"):
        flows.setdefault(e["id"], []).append(slices.get((e["pid"], e["tid"], e["ts"]), []))
pairs = [f for f in flows.values() if all(x["name"].startswith(("Send", "Recv")) for at in f for x in at)]


def paired(f):
    return len(f) == 2 and any(x["name"].startswith("Send") and y["name"].startswith("Recv")
                               and x["args"]["peer"] == y["args"]["rank"] and y["args"]["peer"] == x["args"]["rank"]
                               for a, b in ((f[0], f[1]), (f[1], f[0])) for x in a for y in b)


good = [f for f in pairs if paired(f)]
tap.check(pairs and len(good) == len(pairs),
          "p2p_ring, Chrome trace: each of %d send/recv flows links one send and its receive (%d do)"
          % (len(pairs), len(good)))

# one process, two GPUs
db = load("sim-multi_gpu")
files, d = export(db)
ev = [e for t in files.values() for e in t["traceEvents"]]
gpu_rows = {(e["pid"], e["tid"]) for e in ev if e.get("cat") == "kernel"}
named = {(e["pid"], e["tid"]) for e in ev if e.get("ph") == "M" and e["name"] == "thread_name"}
devices = {e["pid"] for e in ev if e.get("ph") == "M" and e["name"] == "process_name"
           and e["args"]["name"] == "GPU %d" % e["pid"]}
nccl = sorted((e["pid"], e["args"].get("Rank")) for e in ev if e.get("cat") == "kernel" and e["name"].startswith("nccl"))
tap.check(nccl == [(0, 0), (1, 1)],
          "multi_gpu: the all-reduce's kernel on each GPU carries its own member's args (its rank): %s" % nccl)
tap.check(len({p for p, _ in gpu_rows}) == 2 and gpu_rows <= named and {p for p, _ in gpu_rows} <= devices,
          "multi_gpu: each GPU row named under its own device's pid, each device named: rows %s, named %s, devices %s"
          % (sorted(gpu_rows), sorted(named), sorted(devices)))
# a call and its kernel before the process's start
db = os.path.join(tmp, "early.db")
for f in ("hand-schema.sql", os.path.join("hand-syncs", "rows.sql")):
    with open(os.path.join(golden, f)) as sql:
        subprocess.run(["sqlite3", db], stdin=sql, check=True)
with sqlite3.connect(db) as c:
    c.executescript("UPDATE api_call SET start_ns = 400000 WHERE call_id = 3;"
                    "UPDATE cupti_api SET start_ns = 400100 WHERE correlation = 3;"
                    "UPDATE gpu_op SET start_ns = 500000 WHERE correlation = 3;")
files, d = export(db)
chrome = os.path.join(tmp, "early.trace.json")
subprocess.run([os.path.join(build, "gputrace-report"), "-j1", "--chrome-trace", chrome, db], capture_output=True)
ev = json.load(open(chrome))
times = [float(e["ts"]) for e in (ev["traceEvents"] if isinstance(ev, dict) else ev) if "ts" in e]
times += [float(e["ts"]) for t in files.values() for e in t["traceEvents"] if "ts" in e]
tap.check(times and min(times) == 0,
          "hand-syncs with a call before the process's start: no negative time in the traces (the earliest %s)"
          % (min(times) if times else None))
tap.finish()
