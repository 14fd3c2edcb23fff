#!/bin/sh
# timed_driver.sh DRIVER ARGS...: runs automake's test driver and adds the
# test's wall time to test-times.txt in the build directory, so that a CI log
# can say which tests its time went to (scripts/check.sh prints the slowest).
# The driver's exit status is kept; one short append per test, atomic under
# make -j.
log=
prev=
for a in "$@"; do
  [ "$prev" = "--log-file" ] && log=$a
  prev=$a
done
start=$(date +%s%N)
"$@"
rc=$?
end=$(date +%s%N)
printf '%d.%02d %s\n' $(((end - start) / 1000000000)) $((((end - start) / 10000000) % 100)) \
  "${log%.log}" >>test-times.txt
exit $rc
