#!/bin/sh
# tracer_loading.sh: every way a program reaches the CUDA runtime and NCCL
# through the dynamic linker (tests/apps/load_ways.c), over the simulator
# and over the toolkit's real libcudart and libnccl (with the toolkit's
# stub of libcuda where no driver is installed): linked by a plugin opened
# RTLD_GLOBAL, RTLD_LOCAL (as Python opens extension modules) or lazily, a
# chain of plugins, dlmopen into a new namespace, calls through dlsym on a
# library handle, a library opened after the first traced call, probes
# with dlsym(RTLD_DEFAULT), two copies of a runtime in one process, and
# Python's ctypes.  In each, the program must print the same (every
# result and errno) and exit the same traced as untraced, and every call
# must be recorded once.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
app="$b/tests/apps/load_ways"
libs="$b/tests/apps/.libs"
sim="$b/tests/sim/.libs/libgpusim.so"
lib="$b/.libs/libgputrace.so"
cuda="${CUDA_HOME:-/usr/local/cuda}"
export GPUTRACE_QUIET=1

# no driver installed: the toolkit's stub of libcuda stands in
if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  mkdir "$tmp/stub"
  ln -s "$cuda/lib64/stubs/libcuda.so" "$tmp/stub/libcuda.so.1"
  LD_LIBRARY_PATH="$tmp/stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export LD_LIBRARY_PATH
fi

n=0
# same NAME CALLS CMD...: runs CMD untraced and traced; the output and exit
# status must be the same, and CALLS calls recorded ('-': no database, the
# reason given by the caller)
same() {
  name=$1 calls=$2; shift 2
  n=$((n + 1))
  "$@" > "$tmp/u$n.out" 2>&1
  untraced=$?
  GPUTRACE_OUTPUT="$tmp/t$n.db" LD_PRELOAD="$lib" "$@" > "$tmp/t$n.out" 2>&1
  traced=$?
  expect "$name: exit status traced as untraced" "$traced" "$untraced"
  if cmp -s "$tmp/u$n.out" "$tmp/t$n.out"; then ok "$name: the same output traced (every result and errno)"
  else bad "$name: the output changed"; diff "$tmp/u$n.out" "$tmp/t$n.out" | head -10; fi
  if [ "$calls" = - ]; then
    [ ! -e "$tmp/t$n.db" ] && ok "$name: nothing recorded" || bad "$name: a database was written"
  else
    expect "$name: every call recorded once" "$(q "$tmp/t$n.db" 'select count(*) from api_call' 2>&1)" "$calls"
  fi
}

for kind in sim real; do
  plugin="$libs/libload_plugin_$kind.so" outer="$libs/libload_outer_$kind.so"
  if [ ! -e "$plugin" ]; then
    skip "$kind: plugins loaded every way" "the toolkit's libcudart and libnccl were not found at configure time"
    continue
  fi
  # The repro of the issue: a plugin opened RTLD_LOCAL, linked against the
  # runtime.  The wrappers once answered cudaErrorSharedObjectSymbolNotFound
  # (302) there, as dlsym(RTLD_NEXT) does not see a local scope.
  same "$kind RTLD_LOCAL" 6 "$app" local "$plugin"
  grep -q ' 302$' "$tmp/t$n.out" && bad "$kind RTLD_LOCAL: a call got 302" || ok "$kind RTLD_LOCAL: no call got 302"
  same "$kind RTLD_LOCAL, a tail call into the runtime" 1 "$app" tail "$plugin"
  same "$kind RTLD_GLOBAL" 6 "$app" global "$plugin"
  same "$kind RTLD_LAZY" 6 "$app" lazy "$plugin"
  same "$kind chain: program -> RTLD_LOCAL plugin -> library -> runtime" 6 "$app" chain "$outer"
  same "$kind opened after the first traced call" 12 "$app" late "$plugin" "$outer"
  # A program probing for CUDA with dlsym(RTLD_DEFAULT) or the program's
  # handle must find nothing when the runtime is only in a plugin's local
  # scope, as untraced: the tracer's wrappers are not a runtime.
  same "$kind probes" 6 "$app" probe "$plugin"
  expect "$kind probes: RTLD_DEFAULT finds no runtime" "$(grep -c 'probe .* cudaDeviceSynchronize NULL\|probe .* cudaStreamSynchronize NULL' "$tmp/t$n.out")" 2
  # dlsym(RTLD_NEXT) from a plugin: the C library takes "next" from the
  # plugin's own scope, so it must see the plugin as its caller, not us
  same "$kind dlsym(RTLD_NEXT) from a plugin" - "$app" next "$plugin"
  grep -q 'next cudaDeviceSynchronize from nowhere' "$tmp/t$n.out" && bad "$kind: RTLD_NEXT found nothing" || ok "$kind: RTLD_NEXT found the plugin's runtime"
  # dlmopen: the plugin and its runtime live in another namespace, where
  # neither LD_PRELOAD nor the tracer's symbols are; their calls bind there
  # and no wrapper sees them (CUPTI, loaded by the driver, is the way to
  # see them).  The program must still be unchanged.
  # (A sanitizer build's program cannot dlmopen at all: the new namespace
  # gets a second sanitizer runtime, which aborts, traced or not.)
  if "$app" dlmopen "$plugin" 2>&1 | grep -q 'ASan cannot proceed'; then
    skip "$kind dlmopen(LM_ID_NEWLM)" "the sanitizer runtime cannot be loaded into a second namespace"
  else
    same "$kind dlmopen(LM_ID_NEWLM): unchanged, unrecorded" - "$app" dlmopen "$plugin"
  fi
done

# calls through a library handle: dlopen RTLD_LOCAL + dlsym, as ctypes,
# pynccl and launchers do
same "sim calls through dlsym(handle)" 6 "$app" handle "$sim" "$sim"
expect "sim: a name the handle lacks stays NULL" "$(grep -c 'handle missing NULL' "$tmp/t$n.out")" 1
if [ -e "$libs/libload_plugin_real.so" ]; then
  same "real calls through dlsym(handle)" 6 "$app" handle "$cuda/lib64/libcudart.so.13" "$cuda/lib64/libnccl.so.2"
fi

# A launcher as Triton's: opens the driver itself, RTLD_LOCAL, launches with
# cuLaunchKernelEx from dlsym on the handle (the wrapper our dlsym hands
# out records it), then with cuLaunchKernel from cuGetProcAddress (no
# wrapper sees that one: CUPTI's driver record does, and the report makes
# it a call).  Both kernels run, traced as untraced.
# (the simulator's CUPTI is inside the driver it opens locally: named for
# the tracer, as a real libcupti would be found on its own)
GPUTRACE_CUPTI_LIB="$sim" same "Triton-like launcher" 2 "$b/tests/apps/triton_launch" "$sim"
expect "Triton-like: both kernels ran" "$(grep -c 'kernels ran 2' "$tmp/t$n.out")" 1
expect "Triton-like: the dlsym'd launch recorded by its wrapper, with its kernel" \
  "$(q "$tmp/t$n.db" "select group_concat(api_name, ' ') from (select api_name from api_call_named order by start_ns)") $(q "$tmp/t$n.db" "select count(*) from kernel where name = 'triton_kernel'")" \
  "cuLaunchKernelEx cuStreamSynchronize 2"
expect "Triton-like: the cuGetProcAddress launch in CUPTI's driver records, with its kernel" \
  "$(q "$tmp/t$n.db" "select count(*) from cupti_api a join kernel k on k.correlation = a.correlation where a.domain = 2")" 2

# dlsym(RTLD_DEFAULT) from a plugin binds as the plugin's dependency, so
# the library it found is unloaded at its own dlclose, traced as untraced
# (made from the tracer's code, the look-up pinned it until exit)
same "unload after a plugin's RTLD_DEFAULT look-up" - "$app" unload "$libs/libunload_a.so" "$libs/libunload_b.so"
expect "unload: the library goes at its dlclose" "$(grep -A1 'B closed' "$tmp/t$n.out" | tail -1)" "library A unloaded"

# two copies of a runtime (different sonames), each linked by its own
# plugin: each plugin reaches its own copy (11 and 22), traced as untraced
same "two copies: each caller its own" 4 "$app" copies "$libs/libtwo_copies_user_a.so" "$libs/libtwo_copies_user_b.so"
expect "two copies: results" "$(grep -c 'copies a 11 errno=101 b 22 errno=102' "$tmp/t$n.out")" 2

# the wrappers' answers follow the objects: a runtime copy unloaded with
# the plugin that linked it is forgotten (calling into it crashed), and an
# object that bound its own copy keeps it for every call site when another
# copy is opened RTLD_GLOBAL later (a new call site went to the new copy)
same "a plugin and its runtime closed, another plugin's own runtime" 2 "$app" closed "$libs/libtwo_copies_user_a.so" "$libs/libtwo_copies_user_b.so"
expect "closed: each plugin its own copy" "$(grep -c 'closed: a 11\|closed: then b 22' "$tmp/t$n.out")" 2
same "a second copy opened RTLD_GLOBAL later" 2 "$app" rebind "$libs/libtwo_copies_user_a.so" "$libs/libtwo_copies_2.so"
expect "rebind: the object keeps its copy" "$(grep -c 'rebind: a 11\|second call site 11' "$tmp/t$n.out")" 2

# the program's pending dlerror() message survives the tracer's start and
# look-ups (it read "libgputrace.so: undefined symbol: Py_GetVersion")
same "dlerror() after the tracer's start" 6 "$app" dlerror "$libs/libload_plugin_sim.so"
expect "dlerror: the program's own message" "$(grep -c '^dlerror: not opened /nonexistent/libnothing.so: cannot open' "$tmp/t$n.out")" 1

# preloaded and injected (as gputrace record runs a program), the tracer
# stands in front of a runtime that a plugin opened RTLD_LOCAL: it must
# leave CUPTI's one callback subscriber to the program's own profiler
# (the simulator's CUPTI, inside that plugin's runtime, named for the tracer)
"$app" subscribe "$libs/libload_plugin_sim.so" > "$tmp/sub.untraced" 2>&1
GPUTRACE_CUPTI_LIB="$sim" CUDA_INJECTION64_PATH="$lib" GPUTRACE_OUTPUT="$tmp/sub.db" LD_PRELOAD="$lib" \
  "$app" subscribe "$libs/libload_plugin_sim.so" > "$tmp/sub.traced" 2>&1
expect "a local runtime, preloaded and injected: the program's CUPTI subscriber granted" \
  "$(grep cuptiSubscribe "$tmp/sub.traced") / $(grep cuptiSubscribe "$tmp/sub.untraced")" "subscribe: cuptiSubscribe 0 / subscribe: cuptiSubscribe 0"
expect "a local runtime, preloaded and injected: its calls recorded once, by the wrappers" \
  "$(q "$tmp/sub.db" "select count(*) from api_call")" 6

# a lazily bound call that nothing defines (the wrapper took its place in
# the global scope): the dynamic linker's own error, and status 127
same "no definition anywhere: fails as untraced" 1 "$app" missing "$libs/libmissing_user.so"
expect "no definition: the dynamic linker's words" "$(grep -c 'symbol lookup error: .*libmissing_user.so: undefined symbol: cudaStreamQuery$' "$tmp/t$n.out")" 1
expect "no definition: status 127" "$traced" 127
expect "no definition: recorded as ended with status 127" "$(q "$tmp/t$n.db" 'select exit_code from process')" 127

# Python's ctypes: CDLL opens RTLD_LOCAL by default and calls through
# dlsym on its handle
cat > "$tmp/ct.py" <<'PY'
import ctypes, sys
rt = ctypes.CDLL(sys.argv[1])
nccl = ctypes.CDLL(sys.argv[2])
s = ctypes.c_void_p()
print("cudaStreamCreate", rt.cudaStreamCreate(ctypes.byref(s)))
print("cudaStreamSynchronize", rt.cudaStreamSynchronize(s))
print("cudaDeviceSynchronize", rt.cudaDeviceSynchronize())
print("ncclGroupStart", nccl.ncclGroupStart(), "ncclGroupEnd", nccl.ncclGroupEnd())
print("probe", hasattr(ctypes.CDLL(None), "cudaDeviceSynchronize"))
PY
if command -v python3 > /dev/null; then
  same "python ctypes over the simulator" 5 python3 "$tmp/ct.py" "$sim" "$sim"
  if [ -e "$libs/libload_plugin_real.so" ]; then
    same "python ctypes over the real runtime and NCCL" 5 python3 "$tmp/ct.py" "$cuda/lib64/libcudart.so.13" "$cuda/lib64/libnccl.so.2"
    expect "python: the recorded calls" "$(q "$tmp/t$n.db" "select group_concat(api_name, ' ') from (select api_name from api_call_named order by start_ns)")" \
      "cudaStreamCreate cudaStreamSynchronize cudaDeviceSynchronize ncclGroupStart ncclGroupEnd"
  fi
else
  skip "python ctypes" "python3 not found"
fi

finish
