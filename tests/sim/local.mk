# tests/sim: the GPU simulator, a test double that is never installed.
check_LTLIBRARIES += tests/sim/libgpusim.la
tests_sim_libgpusim_la_SOURCES = \
  tests/sim/sim_internal.h tests/sim/sim_stream.c tests/sim/sim_device.c \
  tests/sim/sim_memory.c tests/sim/sim_cupti.c tests/sim/sim_cupti_callbacks.c tests/sim/sim_cupti_events.c tests/sim/sim_driver.c tests/sim/sim_nvcc_abi.c tests/sim/sim_inject.c \
  tests/sim/sim_nccl.h tests/sim/sim_nccl.c tests/sim/sim_nccl_init.c tests/sim/sim_nccl_shm.c tests/sim/sim_nccl_reduce.c tests/sim/sim_nccl_comms.c \
  tests/sim/sim_model_env.h tests/sim/sim_model_env.c \
  tests/sim/sim_nccl_profiler.h tests/sim/sim_nccl_profiler.c
# a rank's simulated host: its realtime clock and name (sim_clock.c), its boot id (sim_boot_id.c)
tests_sim_libgpusim_la_SOURCES += tests/sim/sim_clock.c tests/sim/sim_boot_id.c
# NCCL's lazy point-to-point connection set-up (sim_nccl_connect.c)
tests_sim_libgpusim_la_SOURCES += tests/sim/sim_nccl_connect.c
# NCCL 2.28's copy-engine collectives and the driver's batched copies (docs/nccl-ce.md)
tests_sim_libgpusim_la_SOURCES += tests/sim/sim_nccl_ce.h tests/sim/sim_nccl_ce.c tests/sim/sim_driver_batch.c
# -rpath makes libtool build a shared library that is still not installed.
# each API's own frame stays on the stack (no tail calls into the
# simulator's internals), as the real runtime's entry points do: a stack
# taken in a CUPTI callback is cut below the API the program called
tests_sim_libgpusim_la_CFLAGS = $(AM_CFLAGS) -fno-optimize-sibling-calls
tests_sim_libgpusim_la_LDFLAGS = $(AM_LDFLAGS) -rpath $(abs_builddir)/tests/sim -avoid-version -shared
tests_sim_libgpusim_la_LIBADD = -lm -ldl -lrt

check_PROGRAMS += tests/sim/gpusim-run
tests_sim_gpusim_run_SOURCES = tests/sim/gpusim-run.c
# The same simulator as a static archive, linked into a workload as nvcc's
# default static cudart is: the tracer's wrappers cannot see its calls, and
# only CUPTI's records (the driver's injection, sim_inject.c) can.
check_LIBRARIES += tests/sim/libgpusim_static.a
tests_sim_libgpusim_static_a_SOURCES = $(tests_sim_libgpusim_la_SOURCES)
tests_sim_libgpusim_static_a_CFLAGS = $(AM_CFLAGS) -fno-optimize-sibling-calls
