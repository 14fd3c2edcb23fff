#!/usr/bin/env python3
"""join_warp.py: tries the report's join of calls to CUPTI's records on
copies of a recording whose threads' time is stretched at random points, as
preemption stretches it (a delay between a wrapper's clock read and the real
call, inside a call, between calls), or whose CUPTI records move by a step
from a random time on, as an older tracer's clock conversion did (the copy
is marked as such a tracer's: process.clock_source without "+cupti").  Either
way each record stays where the join can find it, so each launch should be
joined as in the recording as it was: the truth is that recording's joins
(each launch's record lies inside it there; check it with tracer_times.sh).

  scripts/join_warp.py [--build DIR] [--step NS] [--no-warp] [--keep DIR] DB [SEEDS]

DB: an expanded recording with CUPTI on (gputrace expand DB), e.g. of
tests/apps/overlapped or autograd_thread.  Every thread that launches, of
every process, is warped (each by its own points).  Prints the copies that
left a launch without its record or with another's, and the count.
"""
import argparse, bisect, glob, json, os, random, shutil, sqlite3, subprocess, sys, tempfile

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--build", default="build")
ap.add_argument("--step", type=int, default=0, help="move CUPTI's records by NS from a random time on")
ap.add_argument("--no-warp", action="store_true", help="the step alone")
ap.add_argument("--keep", help="a directory to keep the copies that failed in (seed-N.db)")
ap.add_argument("db")
ap.add_argument("seeds", nargs="?", type=int, default=50)
args = ap.parse_args()
report = os.path.join(args.build, "gputrace-report")
work = tempfile.mkdtemp()


def joins(db):
    """each launch's correlation in the report's Kineto export, in (pid, tid, time) order"""
    out = os.path.join(work, "k")
    shutil.rmtree(out, ignore_errors=True)
    r = subprocess.run([report, "--kineto", out, db], capture_output=True, text=True)
    if r.returncode:
        return None
    ev = [e for f in sorted(glob.glob(out + "/*.json")) for e in json.load(open(f))["traceEvents"]]
    launches = [e for e in ev if e.get("cat") == "cuda_runtime" and e["name"] == "cudaLaunchKernel"]
    launches.sort(key=lambda e: (str(e["pid"]), str(e["tid"]), float(e["ts"])))
    return [e["args"].get("correlation") for e in launches]


want = joins(args.db)
if not want:
    sys.exit("join_warp.py: %s: no report, or no launch in it" % args.db)
fails = wrong = 0
for seed in range(args.seeds):
    rnd = random.Random(seed)
    db = os.path.join(work, "w.db")
    shutil.copy(args.db, db)
    c = sqlite3.connect(db)
    threads = c.execute("select distinct process_id, tid from api_call_named where api_name = 'cudaLaunchKernel'").fetchall()
    for pid, tid in threads:
        starts = [r[0] for r in c.execute("select start_ns from api_call where process_id = ? and tid = ? order by start_ns",
                                          (pid, tid))]
        if not args.no_warp:
            recs = sorted(r[0] for r in c.execute("select start_ns from cupti_api where process_id = ? and tid = ? and domain = 1",
                                                  (pid, tid)))
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
            c.create_function("warp", 1, lambda t, xs=xs, cum=cum: t + cum[bisect.bisect_left(xs, t)])
            for table in ("api_call", "cupti_api"):
                c.execute("update %s set start_ns = warp(start_ns), end_ns = warp(end_ns) where process_id = ? and tid = ?"
                          % table, (pid, tid))
        if args.step: # (as an older tracer's: with "+cupti" its clocks are one, never voted on)
            c.execute("update process set clock_source = replace(clock_source, '+cupti', '')")
            at = rnd.randint(starts[len(starts) // 5], starts[len(starts) // 2])
            c.execute("update cupti_api set start_ns = start_ns + ?1, end_ns = end_ns + ?1 where process_id = ?2 and tid = ?3"
                      " and start_ns >= ?4", (args.step, pid, tid, at))
    c.commit()
    c.close()
    got = joins(db)
    if got is None:
        print("seed %d: the report failed" % seed)
        fails += 1
        continue
    bad = sum(a != b for a, b in zip(want, got)) + abs(len(want) - len(got))
    if bad:
        fails += 1
        wrong += bad
        print("seed %d: %d of %d launches not joined to their own record (%d to none)"
              % (seed, bad, len(got), sum(g is None for g in got)))
        if args.keep:
            shutil.copy(db, os.path.join(args.keep, "seed-%d.db" % seed))
shutil.rmtree(work)
print("%d of %d copies lost or swapped a launch's record (%d launches in all)" % (fails, args.seeds, wrong))
