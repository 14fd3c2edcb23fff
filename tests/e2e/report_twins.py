#!/usr/bin/env python3
"""report_twins.py: costs proved by fixing the problem.  Each workload of
tests/apps with a planted problem runs twice on the simulator: as planted,
and as its twin with the problem fixed as the finding suggests (APP_FIX=1,
tests/apps/app_train.h; DEPS_FIX=1 for the dependency workloads,
tests/apps/deps_app.h).  The planted findings' cost, charged on each rank
(--charges), must predict the change of the training loop's wall time (the
ranks' train_step and drain phases) within BAND: the measured saving over
the predicted one.  Each side is traced TRIES times and the medians
compared, so that one descheduled run does not decide; when the machine is
so loaded that the fixed-length kernels ran PERTURBED times their length,
the comparison is reported and skipped, not failed; a round out of band
is taken again once (ROUNDS), its runs added to the first round's, as load
the kernels do not show slows the host's own work.

The same runs prove the what-if predictions (docs/report.md, "What if it
were fixed"): the planted run's replay predicts the step time with its
findings fixed; the twin's measured step (the same measure: from the
first step's start to the end of the last one and of its GPU work, per
step) must come within WHATIF_BAND of it, for every workload whose
planted kinds the replay predicts (comm.straggler's with every rank
replayed together).  For a workload whose twin fixes every problem the
report finds (ALL_FIXED: train_demo), the job's "all fixed" prediction
must come within WHATIF_BAND of the twin too.  Where the planted run has
a gpu.pipeline_bubble, its bound (a step's busiest GPU's work, what a
step takes with the stages side by side) must come within WHATIF_BAND
of the twin's step.

Usage: report_twins.py BUILD_DIR [workload...]
Prints one line per workload: predicted ms, measured ms, ratio."""
import json, os, sqlite3, statistics, subprocess, sys, tempfile

from tap import check, diag, finish, skip  # tests/e2e/tap.py

build = sys.argv[1]
only = sys.argv[2:]
BAND = (0.5, 1.5)
# the what-if's target is 0.9-1.1, met in quiet 2-rank runs (docs/report.md);
# asserted at 0.8-1.25: on 2 busy cores the twin's 4 ranks differ by up to
# 15% among themselves (cpu_copy: 5.5-6.4 ms a step), and a twin whose host
# runs further ahead of its GPU than the planted run's meets more contention
# than the kernels' stretch shows (0.86-1.19 seen in full runs)
WHATIF_BAND = (0.8, 1.25)
# what-if predictions known to fall outside the band, reported and not
# asserted (none now).  to_device was one (1.19-1.39) until the steps'
# time began at the end of the GPU work enqueued before the first step:
# its twin's host runs ahead from the first step, and the warm-up step's
# kernel counted in the steps after it (docs/report.md).  model_parallel
# and model_parallel_default were (0.71-0.89) until the steps were timed
# from the first one's end: the prediction counted the pipeline's fill
# (one more kernel over 8 steps) where the twin's measure, whose host
# runs ahead from its first step, leaves its first step out as a warm-up
# (0.959-1.007 since, beside a full CI run)
WHATIF_KNOWN_OFF = set()
# planted kinds the replay does not predict (none now: comm.straggler is
# predicted with every rank replayed together)
NOT_PREDICTED = set()
# workloads whose twin fixes every problem the report finds there: the
# job's "all fixed" prediction (every rank replayed together) is checked
# against the twin as well
ALL_FIXED = {"train_demo"}
TRIES = int(os.environ.get("TWIN_TRIES", "3"))
ROUNDS = 2
PERTURBED = 1.3
NOMINAL_US = {"fwd_kernel": 1500, "bwd_kernel": 1500}
# workload: the planted findings, and the environment that makes each
# planted cost large enough to measure on a loaded machine
TWINS = {
    "scalar_read": ({"sync.scalar_read"}, {}),
    # the same with backward on a thread of its own, handed over to and
    # waited for (PyTorch's autograd engine): the replay must move that
    # thread with the main one (viewer/analyse/replay_wake.c)
    "autograd_thread": ({"sync.scalar_read"}, {}),
    "device_sync": ({"sync.device_wide"}, {}),
    # a batch of 4 MiB moved 4 times slower: copies as long as 16 MiB's, a
    # quarter of the host memmove behind them (the simulator's, not a DMA
    # engine's): four ranks moving 16 MiB at once on two cores delayed the
    # other ranks' kernels by milliseconds, so that serialized_upload's
    # planted steps ran 3 ms longer than their GPU work (what-if 0.78-0.84
    # of its twin with 16 MiB, 0.90-0.92 with 8, 0.95-0.97 with 4)
    "pageable_upload": ({"copy.pageable"}, {"APP_BATCH_MB": "4", "GPUSIM_COPY_SLOWDOWN": "4"}),
    "serialized_upload": ({"copy.serialized"}, {"APP_BATCH_MB": "4", "GPUSIM_COPY_SLOWDOWN": "4"}),
    "allreduce_compute_stream": ({"comm.same_stream"}, {"GPUSIM_NCCL_GBPS": "0.25"}),
    "straggler": ({"comm.straggler"}, {}),
    "train_demo": ({"sync.scalar_read", "sync.device_wide", "copy.pageable", "comm.straggler"}, {}),
    "pg_sync": ({"sync.no_consumer"}, {}),
    "event_sync": ({"sync.no_consumer"}, {}),
    "cpu_copy": ({"copy.pageable"}, {"CPU_COPY_MB": "2", "GPUSIM_COPY_SLOWDOWN": "4"}),
    "to_device": ({"copy.pageable", "copy.serialized"}, {}),
    "free_each_step": ({"sync.implicit"}, {}),
    "alloc_each_step": ({"host.setup"}, {}),
    "redundant_sync": ({"sync.redundant"}, {}),
    "data_stall": ({"gpu.idle"}, {}),
    # each GPU idle while the other works, the host blocked in the sync:
    # the pipeline's bubble, which the twin (the sync once, at the end) fills
    "model_parallel": ({"sync.no_consumer", "gpu.pipeline_bubble"}, {}),
    # the same as PyTorch runs it: each GPU's work on its legacy stream (0
    # on both), the loss read by .item() (a copy into pinned memory and a
    # stream sync)
    "model_parallel_default": ({"sync.scalar_read", "gpu.pipeline_bubble"}, {}),
    # scalar_read's loss read as PyTorch did before its pinned scalar: a
    # copy into pageable memory (which waits for the kernels) and a stream
    # sync (which then waits for nothing): the read's fix is both
    "scalar_read_pageable": ({"sync.scalar_read"}, {"APP_LOSS_PAGEABLE": "1"}),
}
# workloads that run another's program (with their own environment)
BINARY = {"scalar_read_pageable": "scalar_read"}
# ranks a workload's runs have (4 unless said here).  The simulator's
# collectives ended at different times on each rank when its threads waited
# to be scheduled (measured on 2 busy cores: four ranks entered one
# all-reduce within 0.3 ms and left it over 3.9 ms); allreduce_compute_stream's
# twin runs its all-reduces back to back on their own stream, where one
# rank's late end delayed its next arrival and so every rank, and its 4-rank
# twin came out 1.17-1.28 against a prediction that runs 0.97-1.03 on 2
# ranks.  The ends agree since the simulator stamps them at the last
# arrival (tests/sim/sim_nccl.c, run_fused), but each rank's arrival still
# waits for its stream thread to be scheduled: 1.22-1.41 on 4 ranks at a load
# average of 2-5 (3 runs).  That is the simulator's scheduling, not what a
# GPU does (NCCL's kernels need no host thread), so the workload is run on
# 2 ranks.  autograd_thread too:
# its ranks' host threads spin 6 ms a step beside their kernels' threads,
# and on 4 ranks the kernels ran 2.3-2.8x their length on a quiet machine
# (1.4x on 2), every comparison skipped as perturbed.
RANKS = {"allreduce_compute_stream": 2, "autograd_thread": 2, "model_parallel": 1, "model_parallel_default": 1}
NOMINAL_US.update({"pg_pack_kernel": 3000, "ev_producer_kernel": 3000, "cpu_model_kernel": 3000,
                   "to_device_kernel": 3000, "free_step_kernel": 3000, "rs_kernel": 3000,
                   "alloc_step_kernel": 2000, "mp_layer0_kernel": 3000, "mp_layer1_kernel": 3000,
                   "mpd_layer0_kernel": 3000, "mpd_layer1_kernel": 3000})
# Twins whose ratio is known to fall outside the band, printed as "known:"
# and not asserted until the cause is found (docs/report.md, the table of
# measured ratios).  serialized_upload was one until the simulator's copy
# records began to span the host's memmove behind them (tests/sim/sim_stream.c).
# data_stall: gpu.idle's charges count the GPU's idle only, less than the
# load the fix takes off each host where a rank's GPU sat in a collective
# waiting for another's load (1.26-3.85 seen, 4 ranks under load); its
# what-if, which cuts every rank by the largest idle, is asserted
KNOWN_OFF = {"data_stall"}
# Twins whose planted cost is below what the loop's time can show: a
# sync.redundant costs its call (microseconds a step; it waits for
# nothing) against a loop whose runs differ by a millisecond.  Their cost
# is reported, not asserted; their what-if is (it must predict next to no
# saving, as the twin measures).
COST_UNMEASURABLE = {"redundant_sync"}


def copy_model_ns(n, src, dst, slowdown):
    """The simulator's time for a copy of n bytes between CUPTI memory kinds
    (1 pageable, 2 pinned, 3 device, 5 managed), its bytes moved slowdown
    times slower (GPUSIM_COPY_SLOWDOWN): tests/sim/sim_memory.c."""
    dev = lambda k: k in (3, 5)
    mbps = 50000 if dev(src) and dev(dst) else 4000 if not dev(src) and not dev(dst) else \
        1000 if 1 in (src, dst) else 4000
    return 2000 + n * 1000 * slowdown / mbps
tmp = tempfile.mkdtemp()


def run(name, env, fix):
    """One traced run: (the loop's time, the planted findings' cost, the
    kernels' stretch, the copies' stretch), the first two the mean over
    ranks, in ms."""
    db = os.path.join(tmp, f"{name}-{fix}.db")
    e = dict(os.environ, GPUSIM_LIB=os.path.join(build, "tests", "sim", ".libs", "libgpusim.so"), APP_FIX=str(fix),
             DEPS_FIX=str(fix), **env)
    subprocess.run([os.path.join(build, "gputrace"), "record", "-f", "-o", db, "--",
                    os.path.join(build, "tests", "sim", "gpusim-run"), "-n", str(RANKS.get(name, 4)),
                    os.path.join(build, "tests", "apps", BINARY.get(name, name))], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL,
                   env=e, check=True)
    d = json.loads(subprocess.run([os.path.join(build, "gputrace-report"), "--format", "json", "--charges", db],
                                  capture_output=True, text=True, check=True).stdout)
    ranks = [r["rank"] for r in d["ranks"]]
    loop = [sum(p["wall_ns"] for p in d["phases"] if p["rank"] == r and p["name"] in ("train_step", "drain"))
            for r in ranks]
    kinds = TWINS[name][0]
    cost = {r: 0 for r in ranks}
    for f in d["findings"]:
        if f["kind"] in kinds:
            for x in f["charged"]:  # [rank, start, end(, device)]
                cost[x[0]] += x[2] - x[1]
    # a process of several GPUs: its ledger counts each GPU's time (a sync
    # the host blocked in idles both), the loop's time is the clock's: the
    # cost per GPU, from the ledger's causes
    for l in d.get("ledger", []):
        if l.get("gpus"):
            cost[l["rank"]] = sum(c["ns"] for c in l["causes"] if c["finding"] in kinds) / len(l["gpus"])
    stretch = max((k["total_ns"] / k["count"] / 1e3 / NOMINAL_US[k["name"]] for k in d["kernels"]
                   if k["name"] in NOMINAL_US), default=1.0)
    # a simulated copy lasts its model's time unless the host's memmove
    # behind it, slowed by a busy machine (the sanitizer build beside other
    # tests), outlasts it: how far, the median over the run's copies of 1 MiB
    # or more (the model: tests/sim/sim_memory.c)
    merged = db + ".merged"
    if os.path.exists(merged):
        os.unlink(merged)
    subprocess.run([os.path.join(build, "gputrace"), "merge", merged, db], stdout=subprocess.DEVNULL, check=True)
    subprocess.run([os.path.join(build, "gputrace"), "expand", merged], stdout=subprocess.DEVNULL, check=True)
    with sqlite3.connect(merged) as con:
        slow = int(env.get("GPUSIM_COPY_SLOWDOWN", "1"))
        ratios = sorted((end - start) / copy_model_ns(n, src, dst, slow) for start, end, n, src, dst in con.execute(
            "SELECT start_ns, end_ns, bytes, src_kind, dst_kind FROM gpu_op WHERE kind = 2 AND bytes >= 1048576"))
    copies = ratios[len(ratios) // 2] if ratios else 1.0
    # gpu.pipeline_bubble's bound: a step's busiest GPU's work, what a step
    # takes with the stages side by side (ms; None without one), in units
    # of the kernels' median stretch: the bound is a median over steps,
    # and divided by the mean's stretch (a few kernels of a descheduled
    # simulator thread raise it) it came out 2.53 ms for 3 ms kernels
    # beside two busy builds (ratio 1.234, band 1.25)
    bound = [f["busiest_step_ns"] / 1e6 for f in d["findings"] if f["kind"] == "gpu.pipeline_bubble"
             and f.get("busiest_step_ns")]
    if bound:
        with sqlite3.connect(merged) as con:
            by = {}
            for name, ns in con.execute("SELECT s.value, o.end_ns - o.start_ns FROM gpu_op o JOIN string s"
                                        " ON s.process_id = o.process_id AND s.id = o.name_id WHERE o.kind = 1"):
                if name in NOMINAL_US:
                    by.setdefault(name, []).append(ns / 1e3 / NOMINAL_US[name])
        med = max((statistics.median(v) for v in by.values()), default=stretch)
        bound = [bound[0] * stretch / med]  # (the caller divides by stretch)
    return statistics.mean(loop) / 1e6, statistics.mean(cost.values()) / 1e6, stretch, copies, whatif(d, kinds), \
        (bound[0] if bound else None)


def whatif(d, kinds):
    """(the step measured, the step predicted with the planted findings
    fixed): the job's, as the rank that sets its pace gives them; the
    prediction of the one planted finding there, else of all fixed."""
    job = d.get("whatif_job")
    per = {w["rank"]: w for w in d.get("whatif", [])}
    if not job or job["reference_rank"] not in per:
        return None, None, None
    ref = job["reference_rank"]
    mine = [f for f in d["findings"] if f["rank"] == ref and f["kind"] in kinds and f.get("whatif")]
    fixed = mine[0]["whatif"]["step_ms_fixed"] if len(mine) == 1 else job["step_ms_all_fixed"]
    return statistics.mean(w["step_ms_measured"] for w in per.values()), fixed, job["step_ms_all_fixed"]


def compare(name, env, planted, fixed):
    """One round: TRIES more runs each side, added to the rounds' before
    (planted, fixed); (ratio, stretch, the line to print) of them all."""
    for _ in range(TRIES):
        planted.append(run(name, env, 0))
        fixed.append(run(name, env, 1))
    # times in units of the run's own kernel stretch: a run on a busier
    # moment runs everything slower, its kernels included
    loop_p = statistics.median(x[0] / x[2] for x in planted)
    loop_f = statistics.median(x[0] / x[2] for x in fixed)
    predicted = statistics.median(x[1] / x[2] for x in planted)
    leftover = statistics.median(x[1] / x[2] for x in fixed)  # what the twin still charges to those kinds
    measured = loop_p - loop_f
    ratio = measured / predicted if predicted > 0 else float("inf")
    stretch = max(max(x[2], x[3]) for x in planted + fixed)
    what = (f"{name}: planted findings' cost {predicted:.1f} ms predicts the fix's saving {measured:.1f} ms"
            f" (loop {loop_p:.1f} -> {loop_f:.1f} ms; ratio {ratio:.2f}, band {BAND[0]}-{BAND[1]};"
            f" the twin still charges {leftover:.1f} ms; kernels (and copies) ran up to {stretch:.2f}x their length)")
    wi = None
    if not TWINS[name][0] & NOT_PREDICTED and all(x[4][1] for x in planted) and all(x[4][0] for x in fixed):
        pred = statistics.median(x[4][1] / x[2] for x in planted)
        twin = statistics.median(x[4][0] / x[2] for x in fixed)
        now = statistics.median(x[4][0] / x[2] for x in planted)
        wr = twin / pred
        wi = (wr, f"{name}: what-if: a step {now:.2f} ms, predicted {pred:.2f} ms fixed; the twin's {twin:.2f} ms"
                  f" (ratio {wr:.3f}, band {WHATIF_BAND[0]}-{WHATIF_BAND[1]})")
    wb = None  # gpu.pipeline_bubble's bound against the twin's step
    if all(x[5] for x in planted) and all(x[4][0] for x in fixed):
        bound = statistics.median(x[5] / x[2] for x in planted)
        twin = statistics.median(x[4][0] / x[2] for x in fixed)
        wb = (twin / bound, f"{name}: gpu.pipeline_bubble's bound, the busiest GPU's work a step {bound:.2f} ms;"
                            f" the twin's step {twin:.2f} ms (ratio {twin / bound:.3f}, band {WHATIF_BAND[0]}-"
                            f"{WHATIF_BAND[1]})")
    wa = None
    if name in ALL_FIXED and all(x[4][2] for x in planted) and all(x[4][0] for x in fixed):
        pred = statistics.median(x[4][2] / x[2] for x in planted)
        twin = statistics.median(x[4][0] / x[2] for x in fixed)
        wa = (twin / pred, f"{name}: what-if all fixed (every rank replayed together): predicted {pred:.2f} ms;"
                           f" the twin's {twin:.2f} ms (ratio {twin / pred:.3f}, band {WHATIF_BAND[0]}-{WHATIF_BAND[1]})")
    return ratio, stretch, what, wi, wa, wb


for name in only or list(TWINS):
    env = TWINS[name][1]
    # a round out of band is taken again, once, its runs added to the first
    # round's: the host's own work (ranks spinning on few cores) is slowed
    # by load the kernels' stretch does not show (pg_sync's saving came out
    # 1.64x its cost once in a clean CI run, 0.92-1.45x in runs here; in
    # one CI run 0.48 in a round and 1.54 in the next, each judged alone);
    # a cost model that is wrong misses on all of them
    planted, fixed = [], []
    for attempt in range(ROUNDS):
        ratio, stretch, what, wi, wa, wb = compare(name, env, planted, fixed)
        inband = BAND[0] <= ratio <= BAND[1]
        wi_inband = wi is None or name in WHATIF_KNOWN_OFF or WHATIF_BAND[0] <= wi[0] <= WHATIF_BAND[1]
        wi_inband = wi_inband and all(w is None or WHATIF_BAND[0] <= w[0] <= WHATIF_BAND[1] for w in (wa, wb))
        if (inband and wi_inband) or stretch > PERTURBED or (name in KNOWN_OFF | COST_UNMEASURABLE and wi_inband):
            break
        if attempt + 1 < ROUNDS:
            diag("again: " + what + "".join("; " + w[1] for w in (wi, wa, wb) if w is not None))
    if stretch > PERTURBED and not (inband and wi_inband):
        skip(what, "runs perturbed")
        for w in (wi, wa, wb):
            if w is not None:
                skip(w[1], "runs perturbed")
        continue
    if name in KNOWN_OFF:
        skip(what, "known off" + (", now in band" if inband else ""))
    elif name in COST_UNMEASURABLE:
        skip(what, "a cost below what the loop's time can show")
    else:
        check(inband, what)
    if wi is not None and name in WHATIF_KNOWN_OFF:
        skip(wi[1], "known off" + (", now in band" if WHATIF_BAND[0] <= wi[0] <= WHATIF_BAND[1] else ""))
    elif wi is not None:
        check(name in WHATIF_KNOWN_OFF or WHATIF_BAND[0] <= wi[0] <= WHATIF_BAND[1], wi[1])
    for w in (wa, wb):
        if w is not None:
            check(WHATIF_BAND[0] <= w[0] <= WHATIF_BAND[1], w[1])
finish()
