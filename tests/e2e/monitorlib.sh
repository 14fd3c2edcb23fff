# monitorlib.sh: what the monitor-mode tests share (monitor.sh,
# monitor_hangs.sh, metrics.sh): sourced after testlib.sh, not run.
# The simulator's launcher, the tracer, and monitor mode with one trigger
# at a time (each test sets the one it tests).
run="$b/tests/sim/gpusim-run"
lib="$(cd "$b/.libs" && pwd)/libgputrace.so"
export GPUTRACE_MODE=monitor GPUTRACE_FLUSH_MS=100 GPUTRACE_SLOWDOWN=0
unset GPUTRACE_ONE_FILE

# windows DIR: the window directories of run directory DIR, one a line
windows() { ls -d "$1"/window-* 2>/dev/null; }
# ndb DIR: its databases
ndb() { ls "$1"/*.db 2>/dev/null | wc -l | tr -d ' '; }
# traced_bg RUN N APP: N ranks of APP in monitor mode into RUN, in the
# background ($pid: the launcher); stop_bg ends them
traced_bg() {
  GPUTRACE_OUTPUT="$1" LD_PRELOAD="$lib" "$run" -n "$2" --timeout 60 "$3" > "$tmp/app.out" 2>&1 &
  pid=$!
}
stop_bg() { kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
# wait_dbs RUN N: until RUN holds N process files (every rank has begun
# tracing), 40 s at most (10 s was passed once under a full parallel check:
# a dump then found no file, asked no one, and 0 windows came); fails if
# they did not come
wait_dbs() {
  k=0
  while [ $k -lt 400 ] && [ "$(ndb "$1")" -lt "$2" ]; do sleep 0.1; k=$((k + 1)); done
  [ "$(ndb "$1")" -ge "$2" ]
}
# wait_windows RUN N SECONDS: until a window of RUN holds N files
wait_windows() {
  k=0
  while [ $k -lt $(($3 * 5)) ]; do
    for w in $(windows "$1"); do [ "$(ndb "$w")" -ge "$2" ] && return 0; done
    sleep 0.2; k=$((k + 1))
  done
  return 1
}
