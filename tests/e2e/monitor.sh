#!/bin/sh
# monitor.sh: monitor mode (docs/monitor.md) on the simulator: every
# trigger writes a window on every rank of a shared run directory (a hang
# at 2 and 4 ranks, a slowdown, `gputrace dump`, `gputrace capture`, a
# request as the program ends, two requests at once), the window keeps
# only its last seconds, the report reads a window as a run and names the
# cause, a window that cannot be written costs one line and nothing else,
# per-host run directories each get their own, and the program's exit
# status, signals, fork and exec are what they are untraced.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
. "${top_srcdir:-.}/tests/e2e/monitorlib.sh"

field() { sqlite3 "$1" "$2" 2>/dev/null; }

# 1. a hang: the last rank stops before an all-reduce; the others block
# in a sync.  One request, every rank's window (the stopped one's too)
for n in 2 4; do
  r="$tmp/hang$n"
  GPUTRACE_HANG_S=2 GPUTRACE_SLOWDOWN=0 traced_bg "$r" "$n" "$b/tests/apps/hang"
  wait_windows "$r" "$n" 40; got=$?
  stop_bg
  expect "hang, $n ranks: a window from every rank" "$got" 0
  expect "hang, $n ranks: one request, one window directory" "$(windows "$r" | wc -l | tr -d ' ')" 1
  w=$(windows "$r" | head -n 1)
  [ -n "$w" ] || w="$tmp/none"
  reasons=$(for f in "$w"/*.db; do field "$f" "select reason from window"; done | sort -u | tr '\n' ' ')
  expect "hang, $n ranks: each window says why" "$reasons" "hang "
  # found within GPUTRACE_HANG_S and a few seconds of the call that hung
  # (the bound here is loose: the figure is docs/monitor.md's, measured)
  late=0
  for f in "$w"/*.db; do
    s=$(field "$f" "select (w.at_ns - min(i.start_ns)) / 1000000 from window w, inflight i")
    [ -n "$s" ] && [ "$s" -gt 20000 ] && late=$((late + 1))
  done
  expect "hang, $n ranks: windows written within 20 s of the hang" "$late" 0
  "$b/gputrace-report" "$w" > "$tmp/rep" 2>&1; rc=$?
  expect "hang, $n ranks: the report reads the window" "$rc" 0
  last=$((n - 1))
  grep -q "comm.hang" "$tmp/rep" && grep -q "rank(s) $last never entered\|that rank(s) $last never" "$tmp/rep"
  expect "hang, $n ranks: the report names rank $last as the one not in the collective" "$?" 0
done

# 2. a slowdown: rank 1's steps become 40% longer from step 30 on; a
# window whose report names rank 1 and where its time went
# A step of a loaded machine can pass 1.25 times the median before the
# planted slowdown: its window is taken, and the planted one, less than
# GROUP_MS (2 s) later, joins that request and makes no window of its own
# (collector/monitor.c).  Such a run was perturbed, not wrong: it is run
# again, up to 3 times, and only while an early window says so.
tries=0
while :; do
  tries=$((tries + 1))
  r="$tmp/slow$tries"
  GPUTRACE_OUTPUT="$r" LD_PRELOAD="$lib" GPUTRACE_SLOWDOWN=1.25 GPUTRACE_COOLDOWN_S=0 APP_STEPS=150 \
    "$run" -n 2 --timeout 60 "$b/tests/apps/slowdown" > "$tmp/app.out" 2>&1
  rc=$?
  found=0 early=0
  for w in $(windows "$r"); do
    for f in "$w"/*.db; do
      # the slow step's window: the first at step 28 or later of the steps
      # counted (on a loaded machine a rank may find a later step 1.25x
      # slower too, near the end, whose window pairs a file written as its
      # rank exited with one cut while running: mon-exit_and_cut's case)
      step=$(field "$f" "select cast(substr(detail, 6, instr(substr(detail, 6), ' ')) as integer) from window
                         where reason = 'slowdown'")
      [ -n "$step" ] && [ "$step" -ge 27 ] && [ "$found" = 0 ] && found="$w"
      [ -n "$step" ] && [ "$step" -lt 27 ] && early="$step"
    done
  done
  [ "$found" = 0 ] && [ "$early" != 0 ] && [ "$tries" -lt 3 ] || break
  note "slowdown: a window at step $early, before the planted slowdown (a loaded machine): run again"
done
expect "slowdown: the program runs as untraced (exit 0, gradients ok)" \
  "$rc:$(grep -c 'gradients ok' "$tmp/app.out")" "0:2"
if [ "$found" = 0 ]; then
  bad "slowdown: a window for the slow steps"
  for w in $(windows "$r"); do note "$(field "$w/$(ls "$w" | head -n 1)" "select reason, detail from window")"; done
else
  ok "slowdown: a window for the slow steps"
  expect "slowdown: both ranks wrote it" "$(ndb "$found")" 2
  "$b/gputrace-report" "$found" > "$tmp/rep" 2>&1
  # which rank the report names is a verdict on timing, and the window
  # holds the steps before the slowdown too: over the whole window a rank
  # a little late in every step before can outweigh the planted one (seen
  # on CI: rank 0 named the straggler, the windows 89 ms apart).  The
  # golden fixture mon-slowdown holds the report's split of such a window
  # at the onset to the planted rank; here, what the tracer wrote for it:
  # when the slow steps began, the start of the step before the one that
  # set it off (the report's step numbers, as the words' own).  Those
  # agree where the requester's window holds its steps from its first: once
  # on CI (the normal suite beside others) the report numbered the onset's
  # step 2 of a trigger at 34.  Where the window holds fewer steps before
  # the onset than the monitor counted, the numbers cannot be compared
  # (nor an onset a step early told from it): skipped, the window described;
  # an onset late, or none, still fails
  trig=$(field "$(ls "$found"/*.db | head -n 1)" "select cast(substr(detail, 6, instr(substr(detail, 6), ' ')) as integer) from window")
  "$b/gputrace-report" --format json "$found" 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin)["run"].get("slowdown") or {}
me = [r for r in s.get("ranks", []) if r["rank"] == s.get("requester_rank")]
print(s.get("requester_rank") is not None, me[0]["first_slow_step"] if me else None, me[0]["steps"][0] if me else -1)' > "$tmp/j" 2>&1
  read -r asked first before < "$tmp/j"
  if [ "${asked:-}" != True ] || [ "${before:--1}" -ge "$((${trig:-0} - 2))" ]; then
    expect "slowdown: the window says when the slow steps began: the requester's step before the one that set it off" \
      "$asked $first" "True $((${trig:-0} - 1))"
  else
    skip "slowdown: the window says when the slow steps began: the requester's step before the one that set it off" \
      "the requester's window holds ${before} steps before the onset, the monitor counted $((${trig:-0} - 2)) (cut: $(for f in "$found"/*.db; do field "$f" "select cut_rows || ' rows, from ' || ((from_ns - (select start_ns from process)) / 1000000) || ' ms' from window"; done | tr '\n' ' '))"
  fi
  # the onset on the requester's own clock, in its own window row only
  # (the realtime clock can step against it: collector/monitor.c)
  own=0 others=0
  for f in "$found"/*.db; do
    v=$(field "$f" "select count(*) from window w, process p where w.onset_ns > p.start_ns
                    and w.request like '%-' || p.host || '-' || p.pid")
    o=$(field "$f" "select count(*) from window w, process p where w.onset_ns is not null
                    and w.request not like '%-' || p.host || '-' || p.pid")
    own=$((own + ${v:-0})) others=$((others + ${o:-0}))
  done
  expect "slowdown: the requester's window row says when its slow steps began on its own clock, no other's" \
    "$own:$others" "1:0"
  grep -q "^the slow steps against those before" "$tmp/rep"
  expect "slowdown: the report splits the window there" "$?" 0
  # each rank wrote its window at its own moment, some inside a collective
  # the other had not entered yet: a collective in progress, no hang.  The
  # report calls a wait of a second or more among running ranks a hang
  # (viewer/analyse/analysis_comm.c, LIVE_HANG_NS), so the check holds
  # where no rank stood still that long: on a loaded machine a rank (or its
  # simulated GPU) descheduled for a second looks like one that never came
  # (seen 1 run in 7 beside a sanitizer suite).  Stood still: the longest
  # time between two calls' starts in a process, any thread.
  still=$(q "$found" "select coalesce(max(s - p), 0) from (select start_ns s, lag(start_ns)
    over (partition by process_id order by start_ns) p from api_call)")
  note "slowdown: the longest a rank of the window made no call: $((${still:-0} / 1000000)) ms"
  if [ "${still:-0}" -ge 900000000 ]; then
    skip "slowdown: no comm.hang in a window of ranks still running" \
      "a rank made no call for $((still / 1000000)) ms (a loaded machine)"
  else
    expect "slowdown: no comm.hang in a window of ranks still running" "$(grep -c "comm.hang" "$tmp/rep")" 0
  fi
fi
steps=$(for f in "$r"/*.db; do field "$f" "select sum(n) from mon_step"; done | sort -u | tr '\n' ' ')
expect "slowdown: each rank's file holds its steps, all 150 (the first two, before train_step was known for the steps' name, too)" "$steps" "150 "
# the report of the run directory itself: its aggregates, and the windows to read
"$b/gputrace-report" "$r" > "$tmp/rep" 2>&1; rc=$?
expect "slowdown: the report reads the monitored run's own files" "$rc" 0
grep -q "^note: a monitored run" "$tmp/rep" && [ "$found" != 0 ] && grep -qF "$found (slowdown, 2 files)" "$tmp/rep"
expect "slowdown: ... says it is a monitored run and lists its slowdown window" "$?" 0
expect "slowdown: ... gives each rank's steps" "$(grep -c "^  rank [01] (pid [0-9]*): 150 steps of train_step" "$tmp/rep")" 2
expect "slowdown: ... in lines of 100 columns at most" "$(awk 'length > 100' "$tmp/rep" | wc -l | tr -d ' ')" 0
"$b/gputrace-report" --format json "$r" 2> /dev/null |
  python3 -c 'import json, sys; d = json.load(sys.stdin)["run"]["monitor"]
print(sorted(x["steps"] for x in d["ranks"]), all(x["collectives"] > 0 for x in d["ranks"]),
      [w["reason"] for w in d["windows"]].count("slowdown") >= 1)' > "$tmp/j" 2>&1
expect "slowdown: ... and so does its JSON (run.monitor)" "$(cat "$tmp/j")" "[150, 150] True True"

# 2b. a blip: one step of rank 1 30 ms longer (2.2x), then none: no
# slowdown, which takes two slow steps in a row (collector/mon_agg.c).
# Run up to 3 times while a window is found: on a loaded machine two
# steps in a row can pass 1.8x by themselves (one blip each before, which
# the planted slowdown above was taken into)
tries=0
while :; do
  tries=$((tries + 1))
  r="$tmp/blip$tries"
  GPUTRACE_OUTPUT="$r" LD_PRELOAD="$lib" GPUTRACE_SLOWDOWN=1.8 GPUTRACE_COOLDOWN_S=0 APP_STEPS=50 \
    APP_SLOW_FROM=30 APP_SLOW_UNTIL=31 APP_SLOW_US=30000 \
    "$run" -n 2 --timeout 60 "$b/tests/apps/slowdown" > "$tmp/app.out" 2>&1
  rc=$?
  nwin=$(windows "$r" | wc -l | tr -d ' ')
  [ "$nwin" != 0 ] && [ "$tries" -lt 3 ] || break
  note "blip: $(field "$(ls "$(windows "$r" | head -n 1)"/*.db | head -n 1)" "select detail from window"): run again"
done
expect "blip: the program runs as untraced (exit 0, gradients ok)" "$rc:$(grep -c 'gradients ok' "$tmp/app.out")" "0:2"
expect "blip: one slow step makes no slowdown window" "$nwin" 0

# 3. gputrace dump: every rank writes its window; the window keeps only
# its last second (GPUTRACE_WINDOW_S=1) of host records
r="$tmp/dump"
APP_STEPS=100000 GPUTRACE_WINDOW_S=1 traced_bg "$r" 2 "$b/tests/apps/train_demo"
wait_dbs "$r" 2
sleep 3
"$b/gputrace" dump "$r" --wait 20 > "$tmp/dump.out" 2>&1; rc=$?
stop_bg
expect "dump: exit 0" "$rc" 0
grep -q "^2 of 2 process(es) wrote their window" "$tmp/dump.out"
expect "dump: says both ranks wrote their window" "$?" 0
w=$(windows "$r" | head -n 1)
[ -n "$w" ] || w="$tmp/none"
f=$(ls "$w"/*.db 2>/dev/null | head -n 1)
[ -n "$f" ] || f="$tmp/none.db"
expect "dump: the window says it was asked for" "$(field "$f" "select reason from window")" request
# rows older than the window's start are gone, and the process row, names
# and communicators stay.  The window spans its second and back to the
# note before it: notes are taken at writer passes every 250 ms (1 to 1.25
# s), later when the writer is late (2.15 s once in a CI run beside a
# build): so not a fixed bound, but the run's start dropped, at least
# half a second of its 3 s or more
span=$(field "$f" "select (at_ns - from_ns) / 1000000 from window")
life=$(field "$f" "select (w.at_ns - p.start_ns) / 1000000 from window w, process p")
[ -n "$span" ] && [ -n "$life" ] && [ "$span" -ge 1000 ] && [ $((span + 500)) -le "$life" ]
expect "dump: the window spans its second and a note, the run's start dropped ($span of $life ms)" "$?" 0
expect "dump: no host record older than the window" \
  "$(field "$f" "select count(*) from api_call, window where api_call.start_ns < window.from_ns - 500000000")" 0
expect "dump: the window keeps the process, its communicator and names" \
  "$(field "$f" "select (select count(*) from process) || (select count(*) > 0 from comm) || (select count(*) > 0 from label)")" 111
"$b/gputrace-report" "$w" > /dev/null 2>&1
expect "dump: the report reads the window" "$?" 0
"$b/gputrace" dump "$tmp/no-such-run" > /dev/null 2> "$tmp/err"; rc=$?
expect "dump: a run directory that is not there: exit 1, one line" "$rc:$(wc -l < "$tmp/err" | tr -d ' ')" "1:1"
# a run recorded in full (no --monitor): no process answers a request, so
# none is made (it was, and dump exited 0); its files hold every record
GPUTRACE_MODE=full "$b/gputrace" record -o "$tmp/fullrec" -- "$b/tests/sim/gpusim-run" -n 2 "$b/tests/apps/threads" 1 10 > /dev/null 2>&1
"$b/gputrace" dump "$tmp/fullrec" > /dev/null 2> "$tmp/err"; rc=$?
expect "dump of a run recorded without --monitor: exit 1, one line, no request left in it" \
  "$rc:$(wc -l < "$tmp/err" | tr -d ' '):$(grep -c 'not recorded with --monitor' "$tmp/err"):$(ls -A "$tmp/fullrec" | grep -vc '\.db$')" "1:1:1:0"
"$b/gputrace" metrics "$tmp/fullrec" > "$tmp/out" 2> "$tmp/err"; rc=$?
expect "metrics of a run recorded without --monitor: exit 1, one line, nothing printed" \
  "$rc:$(wc -l < "$tmp/err" | tr -d ' '):$(grep -c 'not recorded with --monitor' "$tmp/err"):$(wc -c < "$tmp/out" | tr -d ' ')" "1:1:1:0"

# 4. gputrace capture: from one instant, for a second, on every rank
r="$tmp/cap"
APP_STEPS=100000 traced_bg "$r" 2 "$b/tests/apps/train_demo"
wait_dbs "$r" 2
"$b/gputrace" capture "$r" --seconds 1 --wait 20 > "$tmp/cap.out" 2>&1; rc=$?
stop_bg
expect "capture: exit 0, both ranks" "$rc:$(grep -c '^2 of 2' "$tmp/cap.out")" "0:1"
w=$(windows "$r" | head -n 1)
[ -n "$w" ] || w="$tmp/none"
f=$(ls "$w"/*.db 2>/dev/null | head -n 1)
[ -n "$f" ] || f="$tmp/none.db"
expect "capture: the window says so" "$(field "$f" "select reason from window")" capture
"$b/gputrace" capture "$r" > /dev/null 2> "$tmp/err"
expect "capture without --seconds: exit 2" "$?" 2

# 5. two requests at once (two dumps in the same second): one window each
r="$tmp/two"
APP_STEPS=100000 traced_bg "$r" 2 "$b/tests/apps/train_demo"
wait_dbs "$r" 2
"$b/gputrace" dump "$r" > /dev/null & a=$!
"$b/gputrace" dump "$r" > /dev/null
wait $a
wait_windows "$r" 2 20
sleep 2.5
stop_bg
expect "two requests at once: one window directory" "$(windows "$r" | wc -l | tr -d ' ')" 1
expect "two requests at once: one window per rank in it" "$(ndb "$(windows "$r" | head -n 1)")" 2

# 5b. two requests queued, 2.5 s apart (more than GROUP_MS: two windows),
# both settled at a process's next look (as when its looks came late): it
# takes both in that look, not one a look, a second apart, so that every
# rank writes each window near the moment the others do (a rank once wrote
# a slowdown window 5.5 s after the other: section 2)
r="$tmp/queued"
APP_STEPS=100000 traced_bg "$r" 2 "$b/tests/apps/train_demo"
wait_dbs "$r" 2
sleep 4.5
now=$(($(date +%s%N) / 1000000))
# both at once (a look between two files' creation would take one, and
# the other a look later): made in a directory of their own that then
# becomes the requests' (a rename over the empty or missing one)
mkdir -p "$r/requests.new" "$r/requests"
echo "queued by the test" > "$r/requests.new/$((now - 4000))-request-test-1"
echo "queued by the test" > "$r/requests.new/$((now - 1500))-request-test-2"
mv -T "$r/requests.new" "$r/requests" || mv "$r/requests.new"/* "$r/requests/"
k=0
while [ $k -lt 100 ]; do
  full=0
  for w in $(windows "$r"); do [ "$(ndb "$w")" -ge 2 ] && full=$((full + 1)); done
  [ "$full" -ge 2 ] && break
  sleep 0.2; k=$((k + 1))
done
stop_bg
expect "two requests queued: two windows of both ranks" "$full" 2
# per rank, how far apart its two windows were taken (ms), less the first
# window's writing (from its moment to its file's last write, on the wall
# clock through the process's offset): a look writes the windows it takes
# one after the other, and under the sanitizers one window's writing took
# 1.4-7.6 s, which put the second that far after the first in one look
apart=$(python3 - $(windows "$r") <<'EOF2'
import glob, os, sqlite3, sys
seen = {}
for w in sys.argv[1:]:
    for f in glob.glob(os.path.join(w, "*.db")):
        db = sqlite3.connect("file:%s?mode=ro" % f, uri=True)
        rank, off = db.execute("select rank, clock_offset_ns from process").fetchone()
        at = db.execute("select at_ns from window").fetchone()[0]
        db.close()
        seen.setdefault(rank, []).append((at, os.stat(f).st_mtime_ns - (at + off)))
out = []
for rank, v in sorted(seen.items()):
    if len(v) == 2:
        (a1, write1), (a2, _) = sorted(v)
        out.append("%d" % ((a2 - a1 - max(write1, 0)) // 1000000))
print(" ".join(out))
EOF2
)
note "two requests queued: each rank's second window taken $apart ms after its first was written"
expect "two requests queued: each rank wrote both in one look (under 800 ms apart, a look is 1 s)" \
  "$(echo "$apart" | awk '{ n = 0; for (i = 1; i <= NF; i++) n += ($i < 800); print n }')" 2

# 6. a request made while the program runs, once its ranks trace, is
# answered: by a look, or by the final pass where the program ends within
# the second a request waits (6b: by the final pass alone).  Made 0.5 s
# after the launch, under load it came before the ranks began tracing,
# and a request older than a process is not for it: no window (CI's
# sanitizer pass)
r="$tmp/end"
mkdir -p "$r/requests"
(wait_dbs "$r" 2; "$b/gputrace" dump "$r" > /dev/null) &
APP_STEPS=60 GPUTRACE_OUTPUT="$r" LD_PRELOAD="$lib" "$run" -n 2 --timeout 60 "$b/tests/apps/train_demo" > "$tmp/app.out" 2>&1
rc=$?
wait
expect "request while the program runs: the program exits 0" "$rc" 0
expect "request while the program runs: both ranks wrote their window" "$(ndb "$(windows "$r" | head -n 1)")" 2

# 6b. a window written by the final pass holds CUPTI's last records: a
# request dated a minute ahead is taken by no look while the program runs
# (a request is taken once a second old), only at its end.  The window was
# written before the final CUPTI flush, so a collective of the last ~100 ms
# had no kernel in it (a rank's window at exit beside another's cut while
# running was then a false comm.hang: mon-exit_and_cut's source.md)
r="$tmp/endgpu"
mkdir -p "$r/requests"
ms=$(( $(date +%s%N) / 1000000 + 60000 ))
: > "$r/requests/$ms-request-test"
APP_STEPS=20 GPUTRACE_OUTPUT="$r" LD_PRELOAD="$lib" "$run" -n 2 --timeout 60 "$b/tests/apps/train_demo" > "$tmp/app.out" 2>&1
rc=$?
w=$(windows "$r" | head -n 1)
[ -n "$w" ] || w="$tmp/none"
ends=$(for f in "$w"/*.db; do field "$f" "select end_reason from process"; done | sort | tr '\n' ' ')
expect "request at the end: exit 0, both windows written as the ranks exited" "$rc:$ends" "0:exit exit "
for f in "$w"/*.db; do
  # each collective of the window (its call is in it, so its kernel
  # started after the window's start) with its kernel
  got=$(q "$f" "select count(*), count(*) - (select count(distinct call_id) from collective_kernel) from collective")
  expect "request at the end: $(basename "$f")'s collectives all have their kernels (count, without)" \
    "${got#*|}" 0
  note "request at the end: $(basename "$f"): ${got%|*} collectives"
done
expect "request at the end: no temporary file left" "$(ls -a "$w" | grep -c tmp)" 0

# 7. a window that cannot be written (its directory's name taken by a
# file): one line, and the program is unchanged.  The request is made once
# both ranks trace (a look takes it, or the final pass if the program ends
# first): dated 0.8 s after the launch, a rank that a loaded machine
# started later took it for one older than itself, not its own, and said
# nothing (under the sanitizers beside 12 busy loops: 1 s, 1 run in 3)
r="$tmp/nowrite"
mkdir -p "$r/requests"
APP_STEPS=100 traced_bg "$r" 2 "$b/tests/apps/train_demo"
wait_dbs "$r" 2
ms=$(( $(date +%s%N) / 1000000 ))
: > "$r/window-$ms-request-test"
: > "$r/requests/$ms-request-test"
wait "$pid"
rc=$?
expect "window not written: the program exits 0 with its gradients ok" "$rc:$(grep -c 'gradients ok' "$tmp/app.out")" "0:2"
expect "window not written: one line per rank says so" \
  "$(grep -c "the window for $ms-request-test was not written: .*; the program runs on" "$tmp/app.out")" 2

# 8. run directories not shared by all ranks (one per host): each host's
# ranks write their windows into their own
r="$tmp/split"
mkdir -p "$r"
cat > "$tmp/split.sh" <<EOF
#!/bin/sh
GPUTRACE_OUTPUT="$r/host\$((RANK / 2))" exec "\$@"
EOF
chmod +x "$tmp/split.sh"
GPUTRACE_HANG_S=2 GPUTRACE_SLOWDOWN=0 LD_PRELOAD="$lib" "$run" -n 4 --timeout 60 "$tmp/split.sh" "$b/tests/apps/hang" > "$tmp/app.out" 2>&1 &
pid=$!
wait_windows "$r/host0" 2 40; a=$?
wait_windows "$r/host1" 2 40; c=$?
stop_bg
expect "per-host run directories: each host's ranks write their windows" "$a $c" "0 0"
if [ "$a $c" != "0 0" ]; then # what there is, to tell why (seen once, under the sanitizers on CI)
  note "per-host: $(cd "$r" && find . | sort | tr '\n' ' ')"
  note "per-host: the program said: $(grep -v '^rank' "$tmp/app.out" | head -n 20 | tr '\n' '|')"
fi

# 9. the program's own signal handling, fork and exec, as untraced
app="$b/tests/apps/lifecycle"
for mode in term_exit resethand view mask vfork execl; do
  r="$tmp/life-$mode"
  if [ "$mode" = term_exit ]; then
    : > "$tmp/out"
    GPUTRACE_OUTPUT="$r" LD_PRELOAD="$lib" timeout -s KILL 20 "$app" term_exit > "$tmp/out" 2>&1 &
    t=$!
    k=0; while [ $k -lt 200 ] && ! grep -q '^ready' "$tmp/out"; do sleep 0.05; k=$((k + 1)); done
    kill -TERM "$(sed -n 's/^ready //p' "$tmp/out")" 2>/dev/null
    wait $t
    expect "lifecycle term_exit under --monitor: the handler's _exit(7)" "$?" 7
    continue
  fi
  timeout -s KILL 20 "$app" "$mode" > "$tmp/plain" 2>&1; want=$?
  GPUTRACE_OUTPUT="$r" LD_PRELOAD="$lib" timeout -s KILL 20 "$app" "$mode" > "$tmp/out" 2>&1; got=$?
  grep -v '^calls: \|^gputrace' "$tmp/plain" > "$tmp/plain.f"
  grep -v '^calls: \|^gputrace' "$tmp/out" > "$tmp/out.f"
  expect "lifecycle $mode under --monitor: exit status as untraced" "$got" "$want"
  cmp -s "$tmp/plain.f" "$tmp/out.f"
  expect "lifecycle $mode under --monitor: output as untraced" "$?" 0
done
r="$tmp/fork"
# (under the sanitizers a child can hang: ASan's allocator, in this
# compiler's runtime, takes no lock around fork, so a child whose first
# CUDA call opens its database (SQLite allocates) waits for ever on the
# allocator's lock when another of the parent's threads held it at the
# fork, as caught with gdb: ... sqlite3_free <- create (collector/db.c)
# <- gt_writer_open <- activate_once; 3 runs of 20 under load had one such
# child.  fork_busy kills a child after 10 s: there the whole run may
# take that long for each, so the sanitizer build gets the time; the hangs
# themselves are fork_busy.sh's to count, the normal build's to forbid)
limit=30
[ -z "${GT_SANITIZED:-}" ] || limit=120
GPUTRACE_OUTPUT="$r" LD_PRELOAD="$lib" timeout -s KILL $limit "$b/tests/apps/fork_busy" 50 > "$tmp/out" 2>&1
expect "fork_busy under --monitor: exit 0" "$?" 0
finish
