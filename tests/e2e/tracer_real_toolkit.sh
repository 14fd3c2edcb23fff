#!/bin/sh
# tracer_real_toolkit.sh: the tracer over the toolkit's real libcudart,
# libnccl and libcupti, and the driver's libcuda (or the toolkit's stub of
# it), rather than the simulator (tests/apps/real_toolkit.c).
# Without a GPU every call fails: the program must see exactly what it sees
# untraced (output, each result, errno, exit status), CUPTI must decline
# in one line, and every wrapped call must be recorded with its real
# result.  On a machine with a GPU the calls succeed and the comparison
# still holds.  Skipped where the toolkit ships no libcudart, libnccl
# or libcuda stub.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
app="$b/tests/apps/real_toolkit"
if [ ! -x "$app" ]; then
  skip_all "the toolkit's libcudart, libnccl and libcuda stub were not found at configure time"
fi

# no driver installed: the toolkit's stub of libcuda stands in (it fails
# every call, as the runtime does without a driver)
if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  mkdir "$tmp/stub"
  ln -s "${CUDA_HOME:-/usr/local/cuda}/lib64/stubs/libcuda.so" "$tmp/stub/libcuda.so.1"
  LD_LIBRARY_PATH="$tmp/stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export LD_LIBRARY_PATH
fi
"$app" > "$tmp/untraced.out" 2> "$tmp/untraced.err"
untraced=$?
GPUTRACE_OUTPUT="$tmp/real.db" LD_PRELOAD="$b/.libs/libgputrace.so" "$app" > "$tmp/traced.out" 2> "$tmp/traced.err"
traced=$?
expect "exit status passes through" "$traced" "$untraced"
expect "the program's output (every result, errno) is the same traced" "$(cmp -s "$tmp/untraced.out" "$tmp/traced.out" && echo same)" same
[ -s "$tmp/traced.out" ] && ok "the program ran" || bad "the program printed nothing"
expect "stderr: only the tracer's lines added" "$(grep -v '^gputrace: ' "$tmp/traced.err" | cmp -s - "$tmp/untraced.err" && echo same)" same
expect "at most one line from the tracer" "$(grep -c '^gputrace: ' "$tmp/traced.err" | awk '{print ($1 <= 1)}')" 1
expect "the real CUPTI was loaded and said what it did" \
  "$(q "$tmp/real.db" "select cupti_status = 'active' or cupti_status like 'CUPTI refused%' from process")" 1
expect "the real NCCL's version recorded" "$(q "$tmp/real.db" "select nccl_version > 20000 from process")" 1
expect "ended by exit with the program's status" "$(q "$tmp/real.db" "select end_reason || ' ' || exit_code from process")" "exit $untraced"

# every wrapped call, in order, with the result the program printed (the
# lines marked "(untraced)" are calls the tracer does not wrap)
grep -v '(untraced)\|^errno ' "$tmp/untraced.out" > "$tmp/want"
q "$tmp/real.db" "select api_name || ' ' || result from api_call_named order by start_ns" > "$tmp/got"
expect "every wrapped call recorded with its real result, in order" "$(cmp -s "$tmp/want" "$tmp/got" && echo same)" same
[ "$fail" -eq 0 ] || diff "$tmp/want" "$tmp/got" | head -20
expect "the report counts every call that returned an error" \
  "$("$b/gputrace-report" --format json "$tmp/real.db" | python3 -c 'import json, sys; print(json.load(sys.stdin)["failed_calls_total"])')" \
  "$(awk '$2 != 0' "$tmp/want" | wc -l | tr -d ' ')"

# every NCCL entry point the tracer wraps is one the real libnccl defines,
# by that name (a wrapper of a name NCCL lacks would never be called)
nccl_lib=$(ldd "$app" | awk '/libnccl\.so/ { print $3; exit }')
if [ -n "$nccl_lib" ] && command -v nm > /dev/null; then
  nm -D --defined-only "$nccl_lib" | awk '{ print $NF }' | sort -u > "$tmp/nccl_syms"
  q "$tmp/real.db" "select name from api where name like 'nccl%' order by name" > "$tmp/wrapped_nccl"
  expect "every wrapped NCCL name is defined by the real $(basename "$nccl_lib") (nm -D)" \
    "$(sort "$tmp/wrapped_nccl" | comm -23 - "$tmp/nccl_syms" | tr '\n' ' ')" ""
  expect "the NCCL 2.28 entry points are among the wrapped ones" \
    "$(grep -c -x 'ncclCommInitRankScalable\|ncclCommShrink\|ncclGroupSimulateEnd\|ncclRedOpCreatePreMulSum\|ncclRedOpDestroy\|ncclMemAlloc\|ncclMemFree\|ncclCommRegister\|ncclCommDeregister\|ncclCommWindowRegister\|ncclCommWindowDeregister\|ncclCommGetAsyncError\|ncclCommFinalize\|ncclCommRevoke' "$tmp/wrapped_nccl")" 14
else
  skip "the program's libnccl" "no nm, or the program's libnccl not found by ldd"
fi

# A program nvcc built against the real runtime: its <<<>>> launch reaches
# libcudart.so.13 as __cudaLaunchKernel, which the tracer wraps; its static
# build imports no CUDA symbol at all (only CUPTI, loaded by the driver
# through CUDA_INJECTION64_PATH, could see it, and the toolkit's stub
# driver loads nothing).  Either way the program must not change.
for build in shared static; do
  cu="$b/tests/apps/cu_real_launch_$build"
  [ -x "$cu" ] || { skip "nvcc $build build" "not made (no nvcc at configure time)"; continue; }
  if [ "${GT_SANITIZED:-0}" = 1 ]; then
    # nvcc's program is not instrumented: the sanitizer runtime, loaded
    # after its libraries as the preloaded tracer's dependency, cannot start
    # (it looks up the dynamic linker's symbols with RTLD_NEXT)
    skip "nvcc $build build" "not under the sanitizer build's tracer"
    continue
  fi
  "$cu" > "$tmp/cu.$build.untraced" 2>&1
  want=$?
  GPUTRACE_OUTPUT="$tmp/cu.$build.db" CUDA_INJECTION64_PATH="$b/.libs/libgputrace.so" LD_PRELOAD="$b/.libs/libgputrace.so" \
    "$cu" > "$tmp/cu.$build.traced" 2> "$tmp/cu.$build.err"
  expect "nvcc $build build: exit status passes through" $? "$want"
  expect "nvcc $build build: the same output traced" "$(cmp -s "$tmp/cu.$build.untraced" "$tmp/cu.$build.traced" && echo same)" same
done
if [ -x "$b/tests/apps/cu_real_launch_shared" ] && [ "${GT_SANITIZED:-0}" != 1 ]; then
  expect "nvcc shared build: its <<<>>> launch recorded as __cudaLaunchKernel with its real result" \
    "$(q "$tmp/cu.shared.db" "select group_concat(api_name || ' ' || result, ', ') from (select api_name, result from api_call_named order by start_ns)")" \
    "$(grep -v '^errno' "$tmp/cu.shared.untraced" | sed 's/$/, /' | tr -d '\n' | sed 's/, $//')"
  expect "nvcc static build: no dynamic CUDA import" "$(nm -D --undefined-only "$b/tests/apps/cu_real_launch_static" | grep -c ' cuda\| __cuda')" 0
fi

finish
