#!/bin/sh
# tracer_kill.sh: random SIGKILLs of 4 and 8 simulated ranks traced by
# `gputrace record` at the default layout (a run directory, one file per
# process).  For each kill: every rank's records are stored up to the flush
# interval before it (the last stored call's end, or the start of a call it
# was blocked in, against the time of the kill), no rank dropped a record,
# and no process waited in its first CUDA call (from its activation to its
# first call's start), a process joining the busy run included (a child
# forked while the GPU is busy is fork_busy.sh's).
# A kill whose only fault is a time past its bound is tried up to twice
# more (a busy machine can stall every process at once: 1 kill in 50
# there); a rank missing or without a call stored, a record dropped, or
# three slow tries in a row fail.
# GPUTRACE_TEST_KILLS=N kills of each size (default 10); GPUTRACE_TEST_SEED
# repeats a run's delays (each run prints its seed).
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
flush=100  # GPUTRACE_FLUSH_MS of the ranks
# ms on top: one commit, and what starts it late on a busy machine (170
# kills on a loaded 2-core machine: the worst rank of a kill lost 70 ms
# (median), at most 164 ms)
slack=75
# ms a process may take from its activation to its first call: opening its
# file, starting CUPTI and the writer (at most 237 ms there; waiting for a
# shared file's lock, 1.2 s there and up to 10 s elsewhere)
wait_max=500
# the sanitizer build runs the tracer several times slower: its commits,
# and its activation, take three times as long
if readelf -d "$b/.libs/libgputrace.so" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
  slack=225 wait_max=1500
fi
kills=${GPUTRACE_TEST_KILLS:-10}
seed=${GPUTRACE_TEST_SEED:-$(date +%s)}
note "seed $seed"
# the delays: after every rank has opened its file, 0.2-1.2 s
delays=$(awk -v s="$seed" -v n="$((2 * kills))" 'BEGIN { srand(s); for (i = 0; i < n; i++) printf "%.2f\n", 0.2 + rand() }')

# one_kill N DELAY: a run of N ranks of scalar_read (a sync every step, as
# training does), a late process joining it, SIGKILL of every rank after
# DELAY
one_kill() {
  n=$1 delay=$2
  dir="$tmp/k$n-$delay.db"
  GPUTRACE_QUIET=1 GPUTRACE_FLUSH_MS=$flush APP_STEPS=1000000 "$b/gputrace" record -o "$dir" -- \
    "$b/tests/sim/gpusim-run" -n "$n" --timeout 60 "$b/tests/apps/scalar_read" > /dev/null 2>&1 &
  launcher=$!
  k=0 # every rank writing (a run directory), or the file there (one file)
  while [ $k -lt 500 ] && [ ! -f "$dir" ] && [ "$(ls "$dir" 2>/dev/null | grep -c '\.db$')" -lt "$n" ]; do
    sleep 0.02; k=$((k + 1))
  done
  # ... and every rank's first calls committed: a kill before is a rank
  # with nothing stored, which a loaded machine's slow start made a hard
  # failure, not the tracer (the delay counts from here)
  if [ -d "$dir" ]; then
    while [ $k -lt 1000 ]; do
      stored=0
      for f in "$dir"/*.db; do
        c=$(sqlite3 "$f" "select (select count(*) from api_call) + (select count(*) from api_call_block)" 2>/dev/null)
        [ "${c:-0}" -gt 0 ] && stored=$((stored + 1))
      done
      [ $stored -ge "$n" ] && break
      sleep 0.02; k=$((k + 1))
    done
  fi
  # (killed if it has not ended in 30 s: never a hung test)
  GPUTRACE_QUIET=1 GPUTRACE_FLUSH_MS=$flush GPUTRACE_OUTPUT="$dir" LD_PRELOAD="$b/.libs/libgputrace.so" \
    timeout -s KILL 30 "$b/tests/apps/threads" 1 100 > /dev/null &
  joiner=$!
  sleep "$delay"
  ranks=$(pgrep -P $launcher) # the launcher execs gpusim-run: the ranks are its children
  # the clock read right after the kills, in the process that kills (a
  # `date` started after them can take tens of ms on a busy machine)
  killed=$(python3 -c 'import os, sys, time
for p in sys.argv[1:]: os.kill(int(p), 9)
print(time.clock_gettime_ns(time.CLOCK_REALTIME))' $ranks)
  wait $launcher $joiner
  # per process: rank (-1: the joiner), its last record's realtime, drops,
  # ns from activation to its first call, its calls stored
  files=$dir; [ -d "$dir" ] && files=$(ls "$dir"/*.db)
  for f in $files; do
    "$b/gputrace" expand "$f" > /dev/null
    sqlite3 "$f" "select coalesce(rank, -1), max(coalesce((select max(end_ns) from api_call where process_id = p.id), 0),
      coalesce((select max(start_ns) from inflight where process_id = p.id), 0)) + clock_offset_ns, dropped_host,
      coalesce((select min(start_ns) from api_call where process_id = p.id) - start_ns, -1),
      (select count(*) from api_call where process_id = p.id) from process p"
  done > "$tmp/m"
  awk -F'|' -v t="$killed" -v n="$n" -v d="$delay" -v lim=$((flush + slack)) -v wmax=$wait_max '
    $1 >= 0 && $5 == 0 { empty = empty " " $1 }
    $1 >= 0 { ranks++; loss = (t - $2) / 1e6; if (loss > maxloss) maxloss = loss; if (loss > lim) late = late " " $1 }
    { drop += $3; w = $4 / 1e6; if ($4 < 0 || w > maxwait) maxwait = $4 < 0 ? 1e9 : w }
    $1 < 0 { joined++ }
    END {
      what = sprintf("%d ranks killed after %s s: every rank lost <= %d ms (max %.0f), none dropped, first calls waited <= %d ms (max %.0f)",
                     n, d, lim, maxloss, wmax, maxwait)
      hard = ranks != n || joined != 1 || drop != 0 || empty != ""
      if (!hard && late == "" && maxwait <= wmax) print "ok: " what
      else printf "%s: %s: %d of %d ranks stored, %d of 1 joining process, late:%s, no call stored:%s, %d dropped\n",
                  hard ? "FAIL" : "slow", what, ranks, n, joined, late, empty, drop
    }' "$tmp/m" > "$tmp/verdict"
  rm -rf "$dir"
}

i=0
for d in $delays; do
  n=4; [ $i -ge "$kills" ] && n=8
  one_kill $n "$d"
  # a slow verdict (times only) is tried again, twice: 8 ranks on two
  # cores beside other work waited 542 ms once on the retry (a clean CI
  # run at a load average of 54).  Each after 5 s: back to back, one
  # heavy test beside them (a flood, a thousand threads) covered all
  # three (2 kills of 4 slow on the first try beside 12 busy loops under
  # the sanitizers)
  for again in 1 2; do
    grep -q '^slow:' "$tmp/verdict" || break
    note "$(cat "$tmp/verdict"); tried again"
    sleep 5
    one_kill $n "$d"
  done
  verdict=$(cat "$tmp/verdict")
  case "$verdict" in
    "ok: "*) ok "${verdict#ok: }" ;;
    *) bad "$verdict"; note "$(cat "$tmp/m")" ;;
  esac
  i=$((i + 1))
done
finish
