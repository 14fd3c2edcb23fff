#!/bin/sh
# report_windows.sh: a rank read a window of time at a time (viewer/read/windows.h)
# gets the report it gets read whole.  GPUTRACE_REPORT_WINDOW_ROWS makes the
# windows small enough that these short runs are cut into several (the
# report then says how many on stderr); the JSON and the text must not
# change.  Then made-up ranks for what the test workloads never show: a
# gap between GPU operations that falls on a cut, a stream handle first
# mapped in a later window than a sync on it, and a kernel launched before
# a moment that nothing runs across, but started after it (and the reverse),
# and a grouped collective whose kernel is launched after such a moment.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
rep="$b/gputrace-report"
export GPUSIM_LIB="$b/tests/sim/.libs/libgpusim.so"

# same_windowed WHAT DB ROWS [options...]: the JSON and text reports of DB
# whole and with windows of ROWS rows, and every rank cut into several
# (CUT=N: N of them, where the others are too short to be cut)
same_windowed() {
  what=$1 db=$2 rows=$3; shift 3
  "$rep" --format json "$@" "$db" > "$tmp/whole.json" 2> /dev/null
  "$rep" "$@" "$db" > "$tmp/whole.txt" 2> /dev/null
  GPUTRACE_REPORT_WINDOW_ROWS=$rows "$rep" --format json "$@" "$db" > "$tmp/win.json" 2> "$tmp/win.err"
  GPUTRACE_REPORT_WINDOW_ROWS=$rows "$rep" "$@" "$db" > "$tmp/win.txt" 2> /dev/null
  ranks=${CUT:-$(q "$db" "select count(*) from process")}
  cut=$(grep -c 'read in [0-9]* windows' "$tmp/win.err")
  said=$(grep -c 'read a window at a time .*: replayed on' "$tmp/win.txt")
  # the what-if replay (docs/report.md, "What if it were fixed"): a rank
  # read a window at a time is replayed as if read whole, its state carried
  # across the cuts, its windows read again once its findings are all made
  # (the fixes those of the findings it has, from its first window on); the
  # same figures but for the launch latency the replay takes window by
  # window (0.5%).  Every rank replayed together too (comm.straggler's and
  # gpu.idle's predictions, the job's step), each rank's summary made a
  # window at a time, its paths carried across the cuts: within 3%
  # (train_demo: all fixed 12.71 ms a step against 12.59 read whole, the
  # straggler's 19.82 against 19.66, whatever the windows' size; a
  # pageable_upload recorded beside the sanitizer suite, read in 3 windows:
  # gpu.idle's step 44.66 ms against 43.98, 1.55%, where the band was 1.5%;
  # on CI the job's all fixed 18.033 against 17.677, 2.01%, where it was
  # 2%; 10 recordings beside two busy loops: the job's step now 0 to
  # 1.07%, all fixed 0 to 1.89%, each rank's own figures the same.  One
  # cause found: a rank with a warm-up step (model_steps_warmup) spanned
  # it in the summary read whole, not a window at a time (desync below:
  # 4.7% apart; each rank's summary now leaves the warm-up out either
  # way, as its own steps' time does: 10 recordings of train_demo with a
  # compile in its first step, 0.02 to 1.02%).
  wi=$(python3 - "$tmp/whole.json" "$tmp/win.json" "${LIVE:-}" <<'EOF'
import json, sys
def figs(d):
    out = {}
    for w in d.get("whatif", []):
        for k in ("steps", "step_ms_measured", "step_ms_replayed", "step_ms_all_fixed", "nccl_ms"):
            out[("rank", w["rank"], k)] = w[k]
    for f in d.get("findings", []):
        if f.get("whatif"):
            for k in ("steps", "step_ms_now", "step_ms_fixed"):
                out[(f["kind"], f.get("rank"), f.get("callsite"), f.get("range"), k)] = f["whatif"][k]
    j = d.get("whatif_job", {})
    for k in ("step_ms_now", "step_ms_all_fixed", "ranks_together"):
        if k in j:
            out[("job", k)] = j[k]
    return out
a, b = (figs(json.load(open(f))) for f in sys.argv[1:3])
live = sys.argv[3] == "1"
bad = [k for k in a if k not in b] + [k for k in b if k not in a]
for k in a:
    if k in b:
        together = k[0] in ("job", "comm.straggler", "gpu.idle")
        band = (0.05 if live else 0.03) if together else 0.005
        if abs(a[k] - b[k]) > band * abs(a[k]) + 0.002:
            bad.append((k, a[k], b[k]))
print("%d figures%s" % (len(a), "" if not bad else " differ: %s" % bad[:3]))
EOF
)
  for f in whole win; do
    python3 - "$tmp/$f.json" "$tmp/$f.txt" <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
for k in ("whatif", "whatif_job", "whatif_alone"):
    d.pop(k, None)
for f in d.get("findings", []):
    f.pop("whatif", None)
json.dump(d, open(sys.argv[1], "w"), indent=0, sort_keys=True)
t = open(sys.argv[2]).read()
t = re.sub(r"\nWhat if it were fixed.*?\n\n", "\n", t, flags=re.S)
t = re.sub(r"\n    gain [^\n]*(\n         [^\n]*)*", "", t)
open(sys.argv[2], "w").write(t)
EOF
  done
  if cmp -s "$tmp/whole.json" "$tmp/win.json" && cmp -s "$tmp/whole.txt" "$tmp/win.txt" && [ "$cut" -eq "$ranks" ]; then
    ok "$what: the same report a window at a time ($(grep -o 'in [0-9]* windows' "$tmp/win.err" | head -n 1))"
  else
    bad "$what: windows change the report (ranks cut: $cut of $ranks; $(diff "$tmp/whole.json" "$tmp/win.json" | head -n 4 | tr '\n' ' '))"
  fi
  case $wi in
  *differ*) bad "$what: the what-if replay a window at a time: $wi" ;;
  *) ok "$what: the what-if replay a window at a time gives the same figures ($(echo "$wi" | sed 's/;.*//'))" ;;
  esac
  # ... and says none of its ranks was replayed on its own
  expect "$what: ... every rank replayed with the others" "$said" 0
}

# Live recordings: their reports must be the same a window at a time, and
# each rank's what-if figures; the summary for every rank together (the
# job's step, comm.straggler's and gpu.idle's predictions) within 5%.  It
# was only noted for a while: on a loaded machine it moved by up to 10%
# (pg_sync on CI, windows of 12 rows, its rank 1's first step 39 ms, left
# out as warm-up: all fixed 11.50 ms a step against 10.43, since found and
# fixed, below; train_demo beside a CI run, 50 rows: 20.03 against 19.10,
# the one read whole wrong, found and fixed: the straggler's host time
# across a probe's horizon, below).  Since the fix, 18 recordings of four
# workloads beside four to six busy loops, windows of 12 and 50 rows:
# 0.44% at most.  The
# fixed recordings below are held to 3%.
for app in train_demo scalar_read device_sync pageable_upload; do
  "$b/gputrace" record -o "$tmp/$app.db" -- "$b/tests/sim/gpusim-run" -n 4 "$b/tests/apps/$app" > /dev/null 2>&1
  LIVE=1 same_windowed "$app" "$tmp/$app.db" 50
done
# scalar_read with its loss read as PyTorch's .item() read it before its
# pinned scalar: a blocking copy into pageable memory, then a stream sync
# (tests/apps/app_train.c, APP_LOSS_PAGEABLE).  The read's fix frees the
# sync's wait too (whatif.c, read_then_sync); a cut falls between the two
# (the copy drained the stream), and the sync, in the next window, kept its
# wait: the read's step and all fixed 2.1% slower than read whole
APP_LOSS_PAGEABLE=1 "$b/gputrace" record -o "$tmp/scalar_read_pageable.db" -- "$b/tests/sim/gpusim-run" -n 4 \
  "$b/tests/apps/scalar_read" > /dev/null 2>&1
LIVE=1 same_windowed "scalar_read, the loss read pageable" "$tmp/scalar_read_pageable.db" 50
# a first step that compiles (200 ms more in rank 1's first forward, as
# torch.compile's; tests/data/windows/train_demo_compile.sql): every
# rank's first step waits for it in the collectives and is left out as
# warm-up.  The job's step, every rank replayed together, spans the steps
# after the warm-up as each rank's own does: the mean of the ranks'
# measured steps (within the 2% of `reliable`).  Spanning the warm-up as
# well (before 2026-12-06) it was 68.1 ms against 35.2 here, a compile's
# seconds making it anything
sqlite3 "$tmp/compile.db" < "$top_srcdir/tests/data/windows/train_demo_compile.sql"
"$rep" --format json "$tmp/compile.db" > "$tmp/compile.json" 2> /dev/null
expect "train_demo with a compile in its first step: the job's step is its ranks' steady steps" "$(python3 - "$tmp/compile.json" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
w, j = d["whatif"], d["whatif_job"]
mean = sum(r["step_ms_measured"] for r in w) / len(w)
print(all(r.get("warmup_steps") for r in w), j["ranks_together"], j["reliable"], abs(j["step_ms_now"] - mean) <= 0.02 * mean)
EOF2
)" "True True True True"
same_windowed "train_demo with a compile in its first step" "$tmp/compile.db" 50
# A straggler's host time and the probes' horizon (docs/report.md, "What
# if it were fixed"): the predictions of every rank together that a
# straggler's fix moves (comm.straggler's, gpu.idle's, the job's all
# fixed), read whole and in windows of 50 and 200 rows, within the 0.5% a
# rank's own replay is held to.  Two train_demos recorded beside a CI run,
# rank 1 15 ms a step in its forward outside calls:
# - train_demo_straggler_horizon.sql: read whole, a path back from a
#   collective that left the region at a call's start before the horizon
#   went on from the end of the call before it without the host's time
#   between them (the straggler's 15 ms), so its fix did not shorten that
#   path: comm.straggler's step 30.36 ms read whole against 29.56 in
#   windows (2.7%; the job's all fixed on CI 17.54 against 16.45, 6.2%);
# - train_demo_straggler_carried.sql: in windows, the paths carried across
#   a cut went on back past the horizon, window after window (a path from
#   five steps back, its collectives' waits as measured, longer than the
#   straggler's fixed steps): the job's all fixed 16.90 ms in windows of 50
#   rows against 16.44 read whole (2.8%)
held_windowed() { # WHAT FILE.sql
  sqlite3 "$tmp/held.db" < "$top_srcdir/tests/data/windows/$2"
  local whole rows
  whole=$(held_figures "")
  for rows in 50 200; do
    expect "$1: the straggler's, the idle's and the job's predictions read whole and in windows of $rows rows" \
      "$(python3 -c "
import sys
a, b = [list(map(float, s.split())) for s in sys.argv[1:3]]
print(len(a), len(a) == len(b) and all(abs(x - y) <= 0.005 * x for x, y in zip(a, b)))" "$whole" "$(held_figures $rows)")" "3 True"
  done
  same_windowed "$1" "$tmp/held.db" 50
  rm -f "$tmp/held.db"
}
held_figures() {
  GPUTRACE_REPORT_WINDOW_ROWS=$1 "$rep" --format json "$tmp/held.db" 2> /dev/null | python3 -c "
import json, sys
d = json.load(sys.stdin)
print(*[f['whatif']['step_ms_fixed'] for f in d['findings'] if f['kind'] in ('comm.straggler', 'gpu.idle') and f.get('whatif')],
      d['whatif_job']['step_ms_all_fixed'])"
}
held_windowed "a straggler's host time across a probe's horizon" train_demo_straggler_horizon.sql
held_windowed "a straggler's paths carried across cuts, past the horizon" train_demo_straggler_carried.sql
# what a sync waits for through events (stream_deps.h), carried across cuts
for app in pg_sync event_sync; do
  "$b/gputrace" record -o "$tmp/$app.db" -- "$b/tests/sim/gpusim-run" -n 4 "$b/tests/apps/$app" > /dev/null 2>&1
  LIVE=1 same_windowed "$app" "$tmp/$app.db" 12
done
# the golden recordings of the same workloads (tests/data/golden), fixed:
# every figure held to, the summary for every rank together included
for fx in train_demo:50 scalar_read:50 device_sync:50 pageable_upload:50 straggler:50 pg_sync:12 event_sync:12; do
  sqlite3 "$tmp/fixed-${fx%:*}.db" < "$top_srcdir/tests/data/golden/sim-${fx%:*}/input.sql"
  same_windowed "${fx%:*} (fixed)" "$tmp/fixed-${fx%:*}.db" "${fx#*:}"
done
LIVE=1 same_windowed "train_demo, bigger windows" "$tmp/train_demo.db" 120
# host.setup (tests/data/golden/hand-setup): a 4 ms cudaMalloc between a
# cut and the next window's first GPU work was dropped (clipped to its own
# window's GPU work), the GPU idle then gpu.idle's; and a teardown free
# after the last GPU work is no finding, read whole or in windows
sqlite3 "$tmp/setup.db" < "$top_srcdir/tests/data/golden/hand-schema.sql"
sqlite3 "$tmp/setup.db" < "$top_srcdir/tests/data/golden/hand-setup/rows.sql"
for rows in 8 25; do
  same_windowed "hand-setup" "$tmp/setup.db" $rows
done
# gpu.stalled (tests/data/golden/hand-stalled): a kernel's call found by
# its correlation id in its window, or, in an earlier one, known queued from
# the window's first call by the ids' order
sqlite3 "$tmp/stalled.db" < "$top_srcdir/tests/data/golden/hand-schema.sql"
sqlite3 "$tmp/stalled.db" < "$top_srcdir/tests/data/golden/hand-stalled/rows.sql"
for rows in 4 7; do
  same_windowed "hand-stalled" "$tmp/stalled.db" $rows
done
# a process that drives two GPUs has a ledger per GPU (viewer/analyse/ledger.c):
# read in windows, its first ones may hold one GPU's work (that GPU's ledger
# is then the process's, moved to its own at the second GPU's first work),
# and a GPU's gap across a cut lies beside the other's work in an earlier
# window (gpu.pipeline_bubble's idle.peer, carried across the cut)
sqlite3 "$tmp/mp.db" < "$top_srcdir/tests/data/golden/sim-model_parallel/input.sql"
for rows in 3 10 40; do
  same_windowed "model_parallel (two GPUs)" "$tmp/mp.db" $rows
done
# ... and on their legacy streams, every call on stream 0: each thread's
# device, from its cudaSetDevice calls, carried from window to window and
# started over when a pass reads the windows again (read/legacy_streams.c)
sqlite3 "$tmp/mpd.db" < "$top_srcdir/tests/data/golden/sim-model_parallel_default/input.sql"
for rows in 3 10 40; do
  same_windowed "model_parallel_default (two GPUs' stream 0)" "$tmp/mpd.db" $rows
done
# ... with GPU 0's work before any cudaSetDevice (PyTorch's): the first
# device, its first legacy stream call's, carried likewise
sqlite3 "$tmp/mpt.db" < "$top_srcdir/tests/data/golden/sim-model_parallel_torch/input.sql"
for rows in 3 10 40; do
  same_windowed "model_parallel_torch (GPU 0 chosen by no call)" "$tmp/mpt.db" $rows
done
sqlite3 "$tmp/three.db" < "$top_srcdir/tests/data/golden/hand-schema.sql"
sqlite3 "$tmp/three.db" < "$top_srcdir/tests/data/golden/hand-pipeline_three/rows.sql"
for rows in 2 8; do
  same_windowed "hand-pipeline_three (GPU 0 alone in the first window)" "$tmp/three.db" $rows
done
# one of a process's several GPUs alone in a window (tests/data/golden/
# hand-pipeline_phases: GPU 1's phase between two device syncs) is that
# GPU, as read whole: it was read as a process's one GPU, its gaps
# gpu.idle's to their end, not up to when its work was queued
sqlite3 "$tmp/phases.db" < "$top_srcdir/tests/data/golden/hand-schema.sql"
sqlite3 "$tmp/phases.db" < "$top_srcdir/tests/data/golden/hand-pipeline_phases/rows.sql"
for rows in 2 8; do
  same_windowed "hand-pipeline_phases (GPU 1 alone in a window)" "$tmp/phases.db" $rows
done
# a process's GPUs wait for each other from its first wait across them
# on (tests/data/golden/hand-pipeline_warmup: each GPU's warm-up queued,
# a device sync, then a pipeline): read whole, the wait made the warm-up's
# stalls a pipeline's bubble; read a window at a time, they were stalls
sqlite3 "$tmp/warmup.db" < "$top_srcdir/tests/data/golden/hand-schema.sql"
sqlite3 "$tmp/warmup.db" < "$top_srcdir/tests/data/golden/hand-pipeline_warmup/rows.sql"
for rows in 2 8; do
  same_windowed "hand-pipeline_warmup (the first wait across GPUs in a later window)" "$tmp/warmup.db" $rows
done
# ... and the event that wait is for recorded in a window of GPU 0's work
# alone (tests/data/golden/hand-pipeline_early_event): read a window at a
# time, the record was not noted (the process then drove one GPU) and the
# wait not seen, GPU 0's queued kernel a stall of 4.8 ms, not 0.99
sqlite3 "$tmp/early_event.db" < "$top_srcdir/tests/data/golden/hand-schema.sql"
sqlite3 "$tmp/early_event.db" < "$top_srcdir/tests/data/golden/hand-pipeline_early_event/rows.sql"
same_windowed "hand-pipeline_early_event (the event recorded before a second GPU's work)" "$tmp/early_event.db" 2
# an operation with no call recorded, of a lower id than a window's first
# call: queued from the earliest call of a higher id among those before
# it, not from the window's first call's (a stall read in windows only)
cat > "$tmp/stall_win.sql" <<'SQL'
INSERT INTO run VALUES('hand:win', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:win', 'host', 1000, 0, 0, 1, 0, 'hand GPU', 'win', 'active', 'tsc',
  1700000000000000000, 100000, 12000000, 0, 'exit', 0, 0, 'no Python', 'active', 'off');
INSERT INTO string VALUES(1, 1, 'K1'), (1, 2, 'K2'), (1, 3, 'K3');
INSERT INTO module VALUES(1, 1, 'win', 'win', '00');
INSERT INTO callsite VALUES(1, 1, 'sync_site+0x10 (win+0x1010)');
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 200000, 200000, 4096, 0, 0, 0, 0, 0, 0, 1, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 1000000, 1000000, 4096, 0, 0, 0, 0, 0, 0, 10, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 1000100, 1005000, 10, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 1, 1010000, 2000000, 0, 0, 0, 0, 10, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 1100000, 2100000, 4096, 0, 0, 0, 0, 0, 1, 11, 0);
INSERT INTO cupti_api VALUES(1, 1, 131, 100, 1100100, 2099900, 11, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 11, 11);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 5000000, 5000000, 4096, 0, 0, 0, 0, 0, 0, 12, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 5000100, 5005000, 200, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 3, 5010000, 6000000, 0, 0, 0, 0, 200, 0, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 2, 8000000, 9000000, 0, 0, 0, 0, 150, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 5100000, 9100000, 4096, 0, 0, 0, 0, 0, 1, 13, 0);
INSERT INTO cupti_api VALUES(1, 1, 131, 100, 5100100, 9099900, 201, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 13, 201);
SQL
sqlite3 "$tmp/stall_win.db" < "$top_srcdir/tests/data/golden/hand-schema.sql"
sqlite3 "$tmp/stall_win.db" < "$tmp/stall_win.sql"
same_windowed "an operation with no call, read in windows" "$tmp/stall_win.db" 2
# a real PyTorch loop on an H200 (tests/data/golden, gpu-h200-*): its
# backward pass on the autograd thread, woken by the main thread's
# launches (rp_wakes); a cut between a waker and the call it woke lost the
# wake, and the thread's replayed time went back to its measured shift:
# all fixed 9.413 ms a step in windows of 300 rows (8.938 in 6,000)
# against 5.977 read whole.  Every what-if figure exactly; and the rest of
# the report the same (its second process, a compile worker, too short to
# be cut), which departed by two calls: a CUPTI record was made a call of
# its own when its window held no wrapped call of its API, where the
# process's others did (windows.c's first pass now notes them all)
for fx in gpu-h200-train_gpu_bound:300 gpu-h200-train_gpu_bound:6000 gpu-h200-train_py:300; do
  sqlite3 "$tmp/h200.db" < "$top_srcdir/tests/data/golden/${fx%:*}/input.sql"
  "$rep" --format json "$tmp/h200.db" > "$tmp/h200_whole.json" 2> /dev/null
  GPUTRACE_REPORT_WINDOW_ROWS=${fx#*:} "$rep" --format json "$tmp/h200.db" > "$tmp/h200_win.json" 2> "$tmp/h200.err"
  expect "${fx%:*}, windows of ${fx#*:} rows: every what-if figure as read whole" \
    "$(grep -c 'read in [0-9]* windows' "$tmp/h200.err") $(python3 - "$tmp/h200_whole.json" "$tmp/h200_win.json" <<'EOF2'
import json, sys
def figs(d):
    out = [(w["rank"], w["steps"], w["step_ms_replayed"], w["step_ms_all_fixed"]) for w in d["whatif"]]
    out += sorted((f["kind"], f.get("callsite"), f["whatif"]["step_ms_fixed"]) for f in d["findings"] if f.get("whatif"))
    return out
a, b = (figs(json.load(open(f))) for f in sys.argv[1:3])
print(a == b and len(a) > 2)
EOF2
)" "1 True"
  CUT=1 same_windowed "${fx%:*}" "$tmp/h200.db" "${fx#*:}"
  rm -f "$tmp/h200.db"
done
# a rank with a warm-up step the others lack (desync's rank 2: 60.9 ms,
# then 41 ms steps): the summary for every rank together spans its warm-up
# read whole, and did not a window at a time (the job's all fixed 45.06 ms
# against 43.03, gpu.idle's saving -2.88 ms); a fixed input, so the same
# figures exactly
sqlite3 "$tmp/desync.db" < "$top_srcdir/tests/data/golden/sim-desync/input.sql"
same_windowed "desync (a warm-up on one rank)" "$tmp/desync.db" 150
job() {
  env $([ "$1" = whole ] || echo GPUTRACE_REPORT_WINDOW_ROWS=$1) "$rep" --format json "$tmp/desync.db" 2> /dev/null |
    python3 -c "import json, sys; j = json.load(sys.stdin)['whatif_job']; print(j['step_ms_now'], j['step_ms_all_fixed'])"
}
expect "desync: the job's step now and all fixed, a window at a time as read whole" "$(job 150)" "$(job whole)"
# a straggler's cut is its extra host time a step over its host time a
# step in the range (tests/data/golden/hand-late_rank_steps): read a window
# at a time, the host time was summed over every step and divided by the
# steps the replay counts, one fewer: all fixed 2.561 ms a step against
# 2.504 read whole.  A fixed input: the job's figures exactly
sqlite3 "$tmp/lrs.db" < "$top_srcdir/tests/data/golden/hand-schema.sql"
sqlite3 "$tmp/lrs.db" < "$top_srcdir/tests/data/golden/hand-late_rank_steps/rows.sql"
lrs_job() {
  env $([ "$1" = whole ] || echo GPUTRACE_REPORT_WINDOW_ROWS=$1) "$rep" --format json "$tmp/lrs.db" 2> /dev/null |
    python3 -c "import json, sys; j = json.load(sys.stdin)['whatif_job']; print(j['step_ms_now'], j['step_ms_all_fixed'])"
}
for rows in 8 12; do
  expect "hand-late_rank_steps, windows of $rows rows: the job's step now and all fixed as read whole" \
    "$(lrs_job $rows)" "$(lrs_job whole)"
done
# the steps timed from the first one's end (tests/data/golden/
# hand-first_step_host: a first step of host time alone): the host's time
# after the first step's last call counted in the second step's gaps, the
# straggler's cut sized on it moved collectives before the steps' start:
# the job's all fixed 1.868 ms a step read whole (below the 2 ms kernel
# each step), 1.779 in windows of 8 rows.  Now 2.572, and within 0.5% a
# window at a time
hand_rows hand-first_step_host | sqlite3 "$tmp/fsh.db"
fsh_job() {
  env $([ "$1" = whole ] || echo GPUTRACE_REPORT_WINDOW_ROWS=$1) "$rep" --format json "$tmp/fsh.db" 2> /dev/null |
    python3 -c "import json, sys; j = json.load(sys.stdin)['whatif_job']; print(j['step_ms_all_fixed'])"
}
fsh_whole=$(fsh_job whole)
for rows in 8 12; do
  got=$(fsh_job $rows)
  expect "hand-first_step_host, windows of $rows rows: the job's all fixed as read whole ($got against $fsh_whole)" \
    "$(python3 -c "print(abs($got - $fsh_whole) <= 0.005 * $fsh_whole and $fsh_whole >= 2.0)")" True
done
# a recording whose rank 1 has a warm-up step the others lack (record
# above; tests/data/windows), read in windows of 12 rows: the summary's
# start probe was made in the window where the steps after the warm-up
# start, at the warm-up's start, moved by that window's shift coming in
# (the fix's 32 ms by then): the job's all fixed 11.50 ms a step against
# 10.43 read whole.  Every figure as read whole now: each rank's, the
# job's step now and all fixed
sqlite3 "$tmp/pgw.db" < "$top_srcdir/tests/data/windows/pg_sync_warmup.sql"
"$rep" --format json "$tmp/pgw.db" > "$tmp/pgw_whole.json" 2> /dev/null
for rows in 12 24; do
  GPUTRACE_REPORT_WINDOW_ROWS=$rows "$rep" --format json "$tmp/pgw.db" > "$tmp/pgw_win.json" 2> "$tmp/pgw.err"
  expect "pg_sync with a warm-up, windows of $rows rows: each rank's what-if figures and the job's as read whole" \
    "$(grep -c 'read in [0-9]* windows' "$tmp/pgw.err") $(python3 - "$tmp/pgw_whole.json" "$tmp/pgw_win.json" <<'EOF2'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
ranks = lambda d: [(w["rank"], w["steps"], w["step_ms_measured"], w["step_ms_replayed"], w["step_ms_all_fixed"],
                    w.get("warmup_steps")) for w in d["whatif"]]
near = lambda x, y: abs(x - y) <= 0.005 * x
job = lambda d: (d["whatif_job"]["step_ms_now"], d["whatif_job"]["step_ms_all_fixed"])
print(ranks(a) == ranks(b), all(near(x, y) for x, y in zip(job(a), job(b))),
      sum(bool(w.get("warmup_steps")) for w in a["whatif"]), job(a)[1] < job(a)[0])
EOF2
)" "4 True True 1 True"
done
# "all fixed" fixes the findings the report lists, no other: scalar_read's
# syncs, each site's 12 calls fewer than --min-repeats, are not listed, and
# with nothing listed to fix all fixed is the replay as measured; read a
# window at a time too (its count in the first windows is not its last:
# the replay waits for the last)
for rows in whole 50; do # rows a window
  env $([ "$rows" = whole ] || echo GPUTRACE_REPORT_WINDOW_ROWS=$rows) "$rep" --format json --min-repeats 100 "$tmp/scalar_read.db" > "$tmp/unlisted.json" 2> /dev/null
  expect "all fixed with no finding listed to fix is as replayed ($rows)" "$(python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
print(sum(f['kind'].startswith('sync.') for f in d['findings']), len(d['whatif']),
      [w['rank'] for w in d['whatif'] if w['step_ms_all_fixed'] != w['step_ms_replayed']])" "$tmp/unlisted.json")" \
    "0 4 []"
done
# the intervals charged to each finding too (docs/report.md, "How costs are attributed")
LIVE=1 same_windowed "train_demo, --charges" "$tmp/train_demo.db" 50 --charges

# the exports too: the same events (in another order: a rank's tracks are
# named, and its NVTX ranges written, after its windows), but for the
# critical path's process (pid 100000 + the 4 ranks), which comes of the
# what-if replay of ranks read whole
events() { sed 's/,$//' "$1" | grep -v '"pid":100004[,}]' | sort; }
"$rep" --format json --chrome-trace "$tmp/whole.trace" --kineto "$tmp/whole.kin" "$tmp/train_demo.db" > /dev/null 2>&1
GPUTRACE_REPORT_WINDOW_ROWS=50 "$rep" --format json --chrome-trace "$tmp/win.trace" --kineto "$tmp/win.kin" \
  "$tmp/train_demo.db" > /dev/null 2> "$tmp/exp.err"
events "$tmp/whole.trace" > "$tmp/a"; events "$tmp/win.trace" > "$tmp/b"
expect "the Chrome trace a window at a time: the same events" \
  "$(grep -c windows "$tmp/exp.err"):$(wc -l < "$tmp/a"):$(cmp -s "$tmp/a" "$tmp/b" && echo same)" "4:$(wc -l < "$tmp/a"):same"
same=0
for f in "$tmp"/whole.kin/rank-*.json; do
  events "$f" > "$tmp/a"; events "$tmp/win.kin/$(basename "$f")" > "$tmp/b"
  cmp -s "$tmp/a" "$tmp/b" && same=$((same + 1))
done
expect "the Kineto traces a window at a time: the same events" "$same" 4

# A made-up rank (the first of a traced run, emptied): a 3 us kernel every
# 10 us on stream 7, and a sync per step; window cuts come right after the
# syncs.
base=$(db_of "$tmp/scalar_read.db")
made_up() { # made_up OUT SYNC_START SYNC_END: the rank, syncs at step + these (ns)
  cp "$base" "$1"
  q "$1" "delete from api_call; delete from api_call_block; delete from gpu_op; delete from gpu_op_block;
    delete from cupti_api; delete from cupti_api_block; delete from collective; delete from ext_corr;
    delete from inflight; delete from nvtx_range; delete from nvtx_range_block;
    delete from process where id <> (select min(id) from process);
    with recursive s(i) as (select 0 union all select i + 1 from s where i < 49)
    insert into gpu_op(process_id, kind, device, context, stream_id, name_id, start_ns, end_ns, bytes, correlation)
      select p.id, 1, 0, 1, 7, 0, p.start_ns + i * 10000 + 3000, p.start_ns + i * 10000 + 6000, 0, 0
      from s, process p;
    with recursive s(i) as (select 0 union all select i + 1 from s where i < 49)
    insert into api_call(process_id, tid, api, start_ns, end_ns, stream, event, bytes, copy_kind, mem_kind, result,
                         callsite, call_id, pystack)
      select p.id, 1, (select id from api where name = 'cudaStreamSynchronize'), p.start_ns + i * 10000 + $2,
             p.start_ns + i * 10000 + $3, 11, 0, 0, 0, 0, 0, 0, i + 1, 0
      from s, process p;"
}
# launch DB AT KERNEL_AT: a launch on handle 11 at step time AT (ns), its API
# record and its kernel at KERNEL_AT (0.4 us long), correlation 777
launch() {
  q "$1" "insert into api_call(process_id, tid, api, start_ns, end_ns, stream, event, bytes, copy_kind, mem_kind,
                               result, callsite, call_id, pystack)
      select id, 1, (select id from api where name = 'cudaLaunchKernel'), start_ns + $2, start_ns + $2 + 100, 11,
             0, 0, 0, 0, 0, 0, 1000, 0 from process;
    insert into cupti_api(process_id, domain, cbid, tid, start_ns, end_ns, correlation, result)
      select id, 1, 211, 1, start_ns + $2 + 10, start_ns + $2 + 90, 777, 0 from process;
    insert into gpu_op(process_id, kind, device, context, stream_id, name_id, start_ns, end_ns, bytes, correlation)
      select id, 1, 0, 1, 7, 0, start_ns + $3, start_ns + $3 + 400, 0, 777 from process;"
}
idle_of() { python3 -c "import json,sys
print(sum(f['count'] for f in json.load(open(sys.argv[1]))['findings'] if f['kind'] == 'gpu.idle'))" "$1"; }

# syncs of no length do not explain a gap (analysis_gpu.c): every gap counts,
# those that fall on a cut too
made_up "$tmp/idle.db" 6100 6100
same_windowed "gpu.idle: gaps on the cuts" "$tmp/idle.db" 10 --idle-gap-us 5
expect "gpu.idle: every gap counts, a window at a time" "$(idle_of "$tmp/win.json")" 49

# the syncs' stream handle is first mapped to a stream by a launch after
# them all: whole, each sync waits on that stream (and finds nothing
# pending); cut, the syncs are analysed again once it is known
made_up "$tmp/late.db" 6100 6300
launch "$tmp/late.db" 500000 500200
same_windowed "a stream handle first mapped in the last window" "$tmp/late.db" 10
expect "... its syncs are found redundant" "$(python3 -c "import json,sys
print(sum(f['count'] for f in json.load(open(sys.argv[1]))['findings'] if f['kind'] == 'sync.redundant'))" "$tmp/win.json")" 50

# a kernel launched before the sync of step 20 and run after the next
# sync's start: nothing runs across the moment after the first sync, but
# the kernel's launch is before it; a cut there would lose the kernel's
# enqueue time, and the second sync would look redundant
made_up "$tmp/corr.db" 6100 6300
launch "$tmp/corr.db" 200000 $((210000 + 6150))
same_windowed "a launch and its kernel on either side of a quiet moment" "$tmp/corr.db" 2
expect "... the sync after the kernel's launch waited for it" "$(python3 -c "import json,sys
print(sum(f['count'] for f in json.load(open(sys.argv[1]))['findings'] if f['kind'] == 'sync.no_consumer'))" "$tmp/win.json")" 1

# and the reverse, as only a damaged or odd file has it: a kernel that ran
# before a quiet moment, launched (by its correlation id) after it
made_up "$tmp/rev.db" 6100 6300
launch "$tmp/rev.db" 308400 306050
same_windowed "a kernel and its launch either side of a quiet moment" "$tmp/rev.db" 2

# a grouped collective whose ncclGroupEnd (and so its kernel's launch) falls
# after a quiet moment its member call is before: it waits for that window
# to be matched to its kernel, and those after it wait with it
made_up "$tmp/group.db" 6100 6300
qw "$tmp/group.db" "insert into api_call(process_id, tid, api, start_ns, end_ns, stream, event, bytes, copy_kind,
                                        mem_kind, result, callsite, call_id, pystack)
    select id, 1, (select id from api where name = 'ncclAllReduce'), start_ns + 200100, start_ns + 200200, 11, 0,
           4096, 0, 0, 0, 0, 5000, 0 from process
    union all
    select id, 1, (select id from api where name = 'ncclGroupEnd'), start_ns + 210100, start_ns + 210200, 0, 0, 0, 0,
           0, 0, 0, 5001, 0 from process;
  insert into collective(process_id, call_id, api, comm_id, seq, count, datatype, bytes, op, peer, rank, nranks,
                         stream, start_ns, end_ns, callsite, group_id, result, pystack)
    select id, 5000, (select id from api where name = 'ncclAllReduce'), 1, 0, 1024, 7, 4096, 0, -1, 0, 1, 11,
           start_ns + 200100, start_ns + 200200, 0, 777000, 0, 0 from process;
  insert into ext_corr(process_id, external_id, correlation) select id, 777000, 880 from process;
  insert into cupti_api(process_id, domain, cbid, tid, start_ns, end_ns, correlation, result)
    select id, 1, 211, 1, start_ns + 210110, start_ns + 210190, 880, 0 from process;
  insert into gpu_op(process_id, kind, device, context, stream_id, name_id, start_ns, end_ns, bytes, correlation)
    select id, 1, 0, 1, 9, 0, start_ns + 210300, start_ns + 210900, 0, 880 from process;"
same_windowed "a grouped collective's kernel in the window after its call" "$tmp/group.db" 2
expect "... its GPU time is its kernel's" "$(python3 -c "import json,sys
print(sum(c['total_ns'] for c in json.load(open(sys.argv[1]))['collectives']))" "$tmp/win.json")" 600

# Recordings of the golden tests (tests/data/golden), changed where the
# workloads never go.  A collective of rank 0's own, with no kernel, before
# the rest: rank 0's collectives are numbered one apart from the others'.
# The ranks' summaries, put aside a window at a time, must each be read as
# its own (a cache once shared by the ranks read rank 0's numbers for
# rank 1's, and the job's step came out 2.4% off, called unreliable).
sqlite3 "$tmp/numbered.db" < "$s/tests/data/golden/sim-straggler/input.sql"
q "$tmp/numbered.db" "insert into collective select process_id, 999, api, 12345, 0, count, datatype, bytes, op, peer,
    rank, 1, stream, start_ns - 1000, start_ns - 900, callsite, group_id, result, pystack from collective
    where process_id = (select min(process_id) from collective) and seq = 0"
same_windowed "a rank whose collectives are numbered apart from the others'" "$tmp/numbered.db" 50
# ... and, read whole or not, the job's figures are those without that
# collective (no other rank is in it): every rank's summary now waits in
# the scratch store, so a mix-up would show read whole as well
sqlite3 "$tmp/plain_straggler.db" < "$s/tests/data/golden/sim-straggler/input.sql"
job() { "$rep" --format json "$@" | python3 -c "import json, sys
j = json.load(sys.stdin)['whatif_job']; print(j['step_ms_now'], j['step_ms_all_fixed'], j['reliable'])"; }
expect "... its job's step and all fixed as without that collective, reliable" \
  "$(job "$tmp/numbered.db"):$(GPUTRACE_REPORT_WINDOW_ROWS=50 job "$tmp/numbered.db" 2> /dev/null)" \
  "$(job "$tmp/plain_straggler.db"):$(job "$tmp/plain_straggler.db")"
# Two all-reduces called 30 ms before their kernels are launched (as a
# grouped call waits for its ncclGroupEnd): read again for the what-if, a
# window at a time, each must wait for its kernel's window as the first
# reading did (the second reading once took every collective as settled,
# and the ranks lost two of their twelve from the replay together: all
# fixed 37.35 ms a step against 30.29 read whole)
sqlite3 "$tmp/early.db" < "$s/tests/data/golden/sim-train_demo/input.sql"
q "$tmp/early.db" "update collective set start_ns = start_ns - 30000000 where seq in (4, 8)"
same_windowed "collectives called long before their kernels" "$tmp/early.db" 12

finish
