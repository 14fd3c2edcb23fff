#!/bin/sh
# workloads.sh: every workload in tests/apps runs to completion as 4
# simulated ranks with correct all-reduced gradients; the hang workload is
# reported as hung by the launcher (exit 124) and leaves no shared memory.
set -u
b=${top_builddir:-.}
run="$b/tests/sim/gpusim-run"
fail=0
for app in overlapped scalar_read device_sync pageable_upload allreduce_compute_stream straggler desync train_demo serialized_upload; do
  out=$("$run" -n 4 --timeout 60 "$b/tests/apps/$app" 2>&1); rc=$?
  ok=$(printf '%s\n' "$out" | grep -c "gradients \(ok\|unchecked\)")
  if [ $rc -ne 0 ] || [ "$ok" -ne 4 ]; then
    echo "FAIL: $app (exit $rc, $ok of 4 ranks ok)"; printf '%s\n' "$out"; fail=1
  else
    echo "ok: $app"
  fi
done
# run in the background only to learn the launcher's pid, which names its
# session's segments: other tests running at the same time have their own
"$run" -n 4 --timeout 2 "$b/tests/apps/hang" >/dev/null 2>&1 &
pid=$!
wait $pid; rc=$?
if [ $rc -ne 124 ]; then echo "FAIL: hang exited $rc, expected 124"; fail=1; else echo "ok: hang reported as hung"; fi
if ls /dev/shm 2>/dev/null | grep -q "^gpusim-s${pid}t"; then
  echo "FAIL: shared memory segments left behind:"; ls /dev/shm | grep "^gpusim-s${pid}t"; fail=1
fi
exit $fail
