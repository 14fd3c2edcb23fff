#!/usr/bin/env python3
"""join_warp.py: tries the report's join of calls to CUPTI's records on a
recording whose launching thread's time is stretched at random points, as
preemption stretches it (a delay between a wrapper's clock read and the real
call, inside a call, between calls): every stretch keeps each record inside
its call, so every launch should keep its record.

  scripts/join_warp.py [--build DIR] DB [SEEDS]

DB: an expanded recording with CUPTI on (gputrace expand DB), e.g. of
tests/apps/overlapped.  Prints the seeds whose warped copy left a launch
without its CUPTI record in the report's Kineto export, and the count.
"""
import argparse, bisect, glob, json, os, random, shutil, sqlite3, subprocess, sys, tempfile

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--build", default="build")
ap.add_argument("db")
ap.add_argument("seeds", nargs="?", type=int, default=50)
args = ap.parse_args()
report = os.path.join(args.build, "gputrace-report")
work = tempfile.mkdtemp()
fails = 0
for seed in range(args.seeds):
    rnd = random.Random(seed)
    db = os.path.join(work, "w.db")
    shutil.copy(args.db, db)
    c = sqlite3.connect(db)
    row = c.execute("select tid from api_call_named where api_name = 'cudaLaunchKernel' limit 1").fetchone()
    if not row:
        sys.exit("join_warp.py: %s: no cudaLaunchKernel call" % args.db)
    tid = row[0]
    starts = [r[0] for r in c.execute("select start_ns from api_call where tid = ? order by start_ns", (tid,))]
    recs = sorted(r[0] for r in c.execute("select start_ns from cupti_api where tid = ? and domain = 1", (tid,)))
    # delays (ns): 40 anywhere, 30 just after a call's clock read (before its record)
    pts = [(rnd.randint(starts[0], starts[-1]) + 0.5, rnd.expovariate(1 / 20000)) for _ in range(40)]
    for s in rnd.sample(starts, min(len(starts), 30)):
        k = bisect.bisect_left(recs, s)
        nxt = recs[k] if k < len(recs) else s + 5
        pts.append((s + min(5, (nxt - s) / 2), rnd.choice([rnd.expovariate(1 / 3000), rnd.expovariate(1 / 200000)])))
    pts.sort()
    xs, cum = [p for p, _ in pts], [0]
    for _, d in pts:
        cum.append(cum[-1] + int(d))
    c.create_function("warp", 1, lambda t: t + cum[bisect.bisect_left(xs, t)])
    c.execute("update api_call set start_ns = warp(start_ns), end_ns = warp(end_ns) where tid = ?", (tid,))
    c.execute("update cupti_api set start_ns = warp(start_ns), end_ns = warp(end_ns) where tid = ?", (tid,))
    c.commit()
    corrs = {r[0] for r in c.execute("select correlation from cupti_api")}
    c.close()
    out = os.path.join(work, "k")
    shutil.rmtree(out, ignore_errors=True)
    r = subprocess.run([report, "--kineto", out, db], capture_output=True, text=True)
    if r.returncode:
        print("seed %d: the report failed: %s" % (seed, r.stderr.strip()[:200]))
        fails += 1
        continue
    ev = json.load(open(glob.glob(out + "/*.json")[0]))["traceEvents"]
    launches = [e for e in ev if e.get("cat") == "cuda_runtime" and e["name"] == "cudaLaunchKernel"]
    bad = sum(e["args"].get("correlation") not in corrs for e in launches)
    if bad:
        fails += 1
        print("seed %d: %d of %d launches without their record" % (seed, bad, len(launches)))
shutil.rmtree(work)
print("%d of %d warped copies lost a launch's record" % (fails, args.seeds))
