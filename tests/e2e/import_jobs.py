#!/usr/bin/env python3
"""import_jobs.py BUILD SRC: a directory of Kineto traces of two different
jobs is two runs, told apart in one line, never one run with two "rank 1"
rows and no word.

The traces are variants of a real one (tests/data/traces/hta-nccl-2rank,
rank 0 of 2 on an A100, 2024): made rank 1 of 2, and a copy of that
shifted 150 days later and given another GPU's name.  Both claim rank 1
of 2, so they cannot be one job.  Checked the way a user sees it:
`gputrace import` says so in one line and writes two runs; the report
reports the latest, says so in one line on stderr (and a note), has one
rank-1 row, lists only that run's "Not checked" notes, and `--run` picks
the other, without a word.  And what must stay one run does: the sampled
ranks 0 and 1 of a 128-rank job (tests/data/traces/hta-sampled-128), and
ranks 0 and 1 of one 2-rank job (the trace and its rank-1 variant).
"""
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

b, s = sys.argv[1], sys.argv[2]
gt, rep = os.path.join(b, "gputrace"), os.path.join(b, "gputrace-report")
data = os.path.join(s, "tests", "data", "traces")
src = os.path.join(data, "hta-nccl-2rank", "nccl_data.json.gz")
tmp = tempfile.mkdtemp()
DAY_NS = 86400 * 10**9


def check(what, cond, detail=""):
    return tap.check(cond, what if cond or detail == "" else "%s %s" % (what, detail))


def run(*args):
    p = subprocess.run(list(args), capture_output=True, timeout=300)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def lines(text):
    return [x for x in text.splitlines() if x.strip()]


def write(trace, path):
    with gzip.open(path, "wt") as f:
        json.dump(trace, f)


def variant(trace, rank=None, world=None, days=0, gpu=None, nccl_version=None):
    t = dict(trace)
    info = dict(t["distributedInfo"])
    if rank is not None:
        info["rank"] = rank
    if world is not None:
        info["world_size"] = world
    if nccl_version is not None:
        info["nccl_version"] = nccl_version
    t["distributedInfo"] = info
    t["baseTimeNanoseconds"] = t["baseTimeNanoseconds"] + days * DAY_NS
    if gpu:
        t["deviceProperties"] = [dict(d, name=gpu) for d in t["deviceProperties"]]
    return t


def runs_of(db):
    with sqlite3.connect(db) as c:
        return c.execute("SELECT run_id, count(*), group_concat(rank), group_concat(gpu_name) FROM process"
                         " GROUP BY run_id ORDER BY min(clock_offset_ns + start_ns)").fetchall()


def report_json(*args):
    rc, out, err = run(rep, "--format", "json", *args)
    try:
        return rc, json.loads(out), err
    except ValueError:
        return rc, {}, err


trace = json.load(gzip.open(src))
A100, H100 = trace["deviceProperties"][0]["name"], "NVIDIA H100 80GB HBM3"
check("the trace is rank 0 of 2 on an A100", trace["distributedInfo"]["rank"] == 0
      and trace["distributedInfo"]["world_size"] == 2 and "A100" in A100)

# 1. two jobs' rank 1 of 2: April's on A100s (with a note of its own: an
#    nccl_version that is none), August's on H100s
two = os.path.join(tmp, "two-jobs")
os.mkdir(two)
write(variant(trace, rank=1, nccl_version="not-a-version"), os.path.join(two, "rank-1.json.gz"))
write(variant(trace, rank=1, days=150, gpu=H100), os.path.join(two, "rank-1-later.json.gz"))
db = os.path.join(tmp, "two.db")
rc, _, err = run(gt, "import", "-o", db, two)
said = [x for x in lines(err) if "jobs" in x]
check("import: exit 0", rc == 0, err)
check("import: one line says the inputs hold 2 jobs, and why", len(said) == 1 and "2 jobs" in said[0]
      and "rank 1 claimed by two traces" in said[0] and A100 in said[0] and H100 in said[0], err)
runs = runs_of(db)
check("import: 2 runs of one rank-1 process each, A100 then H100",
      [(n, r, g) for _, n, r, g in runs] == [(1, "1", A100), (1, "1", H100)], str(runs))
ids = [r[0] for r in runs]
check("import: the run ids name each job's start", len(set(ids)) == 2 and all(i.startswith("import:two-jobs@")
                                                                              for i in ids), str(ids))
old, new = ids if len(ids) == 2 else ("?", "?")

rc, out, err = run(rep, two)
check("report: exit 0", rc == 0, err)
check("report: one line on stderr naming both runs, the latest reported",
      len(lines(err)) == 1 and "2 runs" in err and new in err and old in err and "--run" in err, err)
rows = [x for x in out.splitlines() if x.startswith("1 ") and "NVIDIA" in x]  # the ranks table's
check("report: one rank-1 row, the latest job's (H100)", len(rows) == 1 and "H100" in rows[0], "\n".join(rows))
rc, j, err = report_json(two)
kinds = [n["note"] for n in j.get("not_checked", [])]
check("report --format json: run.id the latest, run.other_runs the other",
      j.get("run", {}).get("id") == new and j.get("run", {}).get("other_runs") == [old], str(j.get("run")))
check("report --format json: only this run's notes (not the other's nccl_version)",
      kinds and not any("not-a-version" in k for k in kinds), str(kinds))
rc, j, err = report_json("--run", old, two)
check("report --run OLD: that run, without a word", rc == 0 and not lines(err) and j.get("run", {}).get("id") == old
      and "other_runs" not in j.get("run", {}), err + str(j.get("run")))
check("report --run OLD: its own notes", any("not-a-version" in n["note"] for n in j.get("not_checked", [])),
      str(j.get("not_checked")))
rc, out, _ = run(rep, "--run", old, two)
rows = [x for x in out.splitlines() if x.startswith("1 ") and "NVIDIA" in x]
check("report --run OLD: its rank-1 row (A100)", len(rows) == 1 and "A100" in rows[0], "\n".join(rows))

# 2. other tells: world sizes that differ (at the same time); the same trace twice
for name, traces, why in (
        ("world-sizes", [trace, variant(trace, rank=1, world=4)], "world sizes 2 and 4"),
        ("same-twice", [variant(trace, rank=1), variant(trace, rank=1)], "rank 1 claimed by two traces")):
    d = os.path.join(tmp, name)
    os.mkdir(d)
    for i, t in enumerate(traces):
        write(t, os.path.join(d, f"trace-{i}.json.gz"))
    out_db = os.path.join(tmp, name + ".db")
    rc, _, err = run(gt, "import", "-o", out_db, d)
    runs = runs_of(out_db) if rc == 0 else []
    check(f"{name}: two runs, with distinct ids, said in one line ({why})",
          len(runs) == 2 and runs[0][0] != runs[1][0] and len([x for x in lines(err) if "jobs" in x]) == 1
          and why in err, err + str(runs))
    rc, out, err = run(rep, d)
    check(f"{name}: the report says so in one line", rc == 0 and len(lines(err)) == 1 and "2 runs" in err, err)

# 3. one job stays one run: real ranks 0 and 1 of a 128-rank job; ranks 0
#    and 1 of a 2-rank job (the real rank 0 and its rank-1 variant)
one = os.path.join(tmp, "one-job")
os.mkdir(one)
shutil.copy(src, os.path.join(one, "rank-0.json.gz"))
write(variant(trace, rank=1), os.path.join(one, "rank-1.json.gz"))
for name, d in (("sampled 128-rank job", os.path.join(data, "hta-sampled-128")), ("2-rank job", one)):
    out_db = os.path.join(tmp, "one.db")
    rc, _, err = run(gt, "import", "-f", "-o", out_db, d)
    runs = runs_of(out_db) if rc == 0 else []
    check(f"{name}: one run of ranks 0 and 1, no word of jobs",
          len(runs) == 1 and sorted(runs[0][2].split(",")) == ["0", "1"] and "jobs" not in err, err + str(runs))
    rc, j, err = report_json(d)
    check(f"{name}: the report: no other run, nothing on stderr", rc == 0 and not lines(err)
          and "other_runs" not in j.get("run", {}), err)

shutil.rmtree(tmp)
tap.finish()
