#!/bin/sh
# workloads.sh: every workload in tests/apps runs to completion as 4
# simulated ranks with correct all-reduced gradients; the hang workload is
# reported as hung by the launcher (exit 124) and leaves no shared memory.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
run="$b/tests/sim/gpusim-run"
for app in overlapped scalar_read device_sync pageable_upload allreduce_compute_stream straggler desync train_demo serialized_upload; do
  out=$("$run" -n 4 --timeout 60 "$b/tests/apps/$app" 2>&1); rc=$?
  n=$(printf '%s\n' "$out" | grep -c "gradients \(ok\|unchecked\)")
  if [ $rc -ne 0 ] || [ "$n" -ne 4 ]; then
    bad "$app (exit $rc, $n of 4 ranks ok)"; note "$out"
  else
    ok "$app"
  fi
done
# run in the background only to learn the launcher's pid, which names its
# session's segments: other tests running at the same time have their own
"$run" -n 4 --timeout 2 "$b/tests/apps/hang" >/dev/null 2>&1 &
pid=$!
wait $pid
expect "hang reported as hung (exit 124)" "$?" 124
expect "no shared memory segments left behind" "$(ls /dev/shm 2>/dev/null | grep "^gpusim-s${pid}t" | tr '\n' ' ')" ""
finish
