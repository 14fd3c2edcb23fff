#!/bin/sh
# tracer_own_closes.sh: the tracer closes its own descriptors and lets go of
# the libraries it opened with the C library's close and dlclose, never
# through the program-facing ones: a program's descriptor or library
# tracker (tests/apps/fd_tracker.c, preloaded) must not see a close of a
# descriptor, or a dlclose of a handle, that the program never had; nor
# may the tracer's own dlclose go through its dlclose wrapper, which makes
# every wrapper resolve its real function again.
# The workload (a Triton-like launcher, the simulator opened RTLD_LOCAL)
# makes no pipe and no dlclose; GPUTRACE_CUPTI_LIB names a library without
# CUPTI, which the tracer opens, finds wanting, and closes; the writer's
# pipes are closed when tracing ends.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
export GPUTRACE_QUIET=1 GPUTRACE_ONE_FILE=1 GPUTRACE_CUPTI_LIB=libm.so.6
sim="$b/tests/sim/.libs/libgpusim.so"
lib="$b/.libs/libgputrace.so"
tracker="$b/tests/apps/.libs/libfd_tracker.so"
run() { # NAME PRELOAD
  GPUTRACE_OUTPUT="$tmp/$1.db" LD_PRELOAD="$2" "$b/tests/apps/triton_launch" "$sim" > "$tmp/$1.out" 2> "$tmp/$1.err"
  expect "$1: the program ran" "$?" 0
}
run untraced "$tracker"
expect "untraced: the tracker sees nothing of the program's" "$(grep -c fd_tracker "$tmp/untraced.err")" 0
# before us in the global scope, as the program's own definitions are
run before "$tracker $lib"
expect "tracker first: calls recorded" "$(q "$tmp/before.db" "select count(*) > 0 from api_call_named")" 1
expect "tracker first: the process's end recorded" "$(q "$tmp/before.db" "select count(*) from process where end_ns > 0")" 1
expect "tracker first: none of the tracer's pipes closed through it" "$(grep -c 'close of a pipe' "$tmp/before.err")" 0
expect "tracker first: none of the tracer's dlcloses through it" "$(grep -c 'dlclose' "$tmp/before.err")" 0
# after us, as `gputrace record` puts the user's LD_PRELOAD
run after "$lib $tracker"
expect "tracker after: the process's end recorded" "$(q "$tmp/after.db" "select count(*) from process where end_ns > 0")" 1
expect "tracker after: none of the tracer's pipes closed through it" "$(grep -c 'close of a pipe' "$tmp/after.err")" 0
finish
