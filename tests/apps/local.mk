# tests/apps: workloads that run on the simulator, each with planted problems
# documented at its top.  Built for `make check` (and by the demo).
APP_COMMON = tests/apps/app_train.h tests/apps/app_train.c
check_PROGRAMS += \
  tests/apps/overlapped tests/apps/scalar_read tests/apps/device_sync \
  tests/apps/pageable_upload tests/apps/allreduce_compute_stream \
  tests/apps/straggler tests/apps/desync tests/apps/hang tests/apps/train_demo \
  tests/apps/threads tests/apps/api_surface tests/apps/api_surface_ptsz tests/apps/serialized_upload
tests_apps_overlapped_SOURCES = tests/apps/overlapped.c $(APP_COMMON)
tests_apps_overlapped_LDADD = $(SIM_LIBS)
tests_apps_overlapped_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_overlapped_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_scalar_read_SOURCES = tests/apps/scalar_read.c $(APP_COMMON)
tests_apps_scalar_read_LDADD = $(SIM_LIBS)
tests_apps_scalar_read_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_scalar_read_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_device_sync_SOURCES = tests/apps/device_sync.c $(APP_COMMON)
tests_apps_device_sync_LDADD = $(SIM_LIBS)
tests_apps_device_sync_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_device_sync_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_pageable_upload_SOURCES = tests/apps/pageable_upload.c $(APP_COMMON)
tests_apps_pageable_upload_LDADD = $(SIM_LIBS)
tests_apps_pageable_upload_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_pageable_upload_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_allreduce_compute_stream_SOURCES = tests/apps/allreduce_compute_stream.c $(APP_COMMON)
tests_apps_allreduce_compute_stream_LDADD = $(SIM_LIBS)
tests_apps_allreduce_compute_stream_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_allreduce_compute_stream_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_straggler_SOURCES = tests/apps/straggler.c $(APP_COMMON)
tests_apps_straggler_LDADD = $(SIM_LIBS)
tests_apps_straggler_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_straggler_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_desync_SOURCES = tests/apps/desync.c $(APP_COMMON)
tests_apps_desync_LDADD = $(SIM_LIBS)
tests_apps_desync_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_desync_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_hang_SOURCES = tests/apps/hang.c $(APP_COMMON)
tests_apps_hang_LDADD = $(SIM_LIBS)
tests_apps_hang_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_hang_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_train_demo_SOURCES = tests/apps/train_demo.c $(APP_COMMON)
tests_apps_train_demo_LDADD = $(SIM_LIBS)
tests_apps_train_demo_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_train_demo_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_threads_SOURCES = tests/apps/threads.c
tests_apps_threads_LDADD = $(SIM_LIBS)
tests_apps_threads_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_threads_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_api_surface_SOURCES = tests/apps/api_surface.c
tests_apps_api_surface_LDADD = $(SIM_LIBS)
tests_apps_api_surface_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_api_surface_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_api_surface_ptsz_SOURCES = tests/apps/api_surface.c
tests_apps_api_surface_ptsz_CPPFLAGS = $(AM_CPPFLAGS) -DCUDA_API_PER_THREAD_DEFAULT_STREAM=1
tests_apps_api_surface_ptsz_LDADD = $(SIM_LIBS)
tests_apps_api_surface_ptsz_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_api_surface_ptsz_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_serialized_upload_SOURCES = tests/apps/serialized_upload.c $(APP_COMMON)
tests_apps_serialized_upload_LDADD = $(SIM_LIBS)
tests_apps_serialized_upload_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_serialized_upload_DEPENDENCIES = tests/sim/libgpusim.la
check_PROGRAMS += tests/apps/nvtx_api
tests_apps_nvtx_api_SOURCES = tests/apps/nvtx_api.c
tests_apps_nvtx_api_LDADD = $(SIM_LIBS) -ldl -lpthread
tests_apps_nvtx_api_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_nvtx_api_DEPENDENCIES = tests/sim/libgpusim.la
# another NVTX tool, for the test that the user's NVTX_INJECTION64_PATH wins
check_LTLIBRARIES += tests/apps/libnvtx_other_tool.la
tests_apps_libnvtx_other_tool_la_SOURCES = tests/apps/nvtx_other_tool.c
tests_apps_libnvtx_other_tool_la_LDFLAGS = -module -avoid-version -shared -rpath $(abs_builddir)/tests/apps
# kernels for the Python workloads (py_train.py), which reach them through ctypes
check_LTLIBRARIES += tests/apps/libpykernels.la
tests_apps_libpykernels_la_SOURCES = tests/apps/py_kernels.c
tests_apps_libpykernels_la_LDFLAGS = -module -avoid-version -shared -rpath $(abs_builddir)/tests/apps
EXTRA_DIST += tests/apps/py_train.py tests/apps/pylib/site-packages/faketorch.py
# the toolkit's real libcudart and libnccl, traced (tests/e2e/tracer_real_toolkit.sh)
if REAL_TOOLKIT_LIBS
check_PROGRAMS += tests/apps/real_toolkit
endif
EXTRA_DIST += tests/apps/real_toolkit.c
tests_apps_real_toolkit_SOURCES = tests/apps/real_toolkit.c
# libcuda from the stubs: the driver itself is found at run time (the test
# points a machine without one at the stub)
tests_apps_real_toolkit_LDADD = -L$(CUDA_HOME)/lib64 -lcudart -lnccl -L$(CUDA_HOME)/lib64/stubs -lcuda
tests_apps_real_toolkit_LDFLAGS = $(AM_LDFLAGS) -Wl,-rpath,$(CUDA_HOME)/lib64
# programs for the tests of the tracer inside troubled processes
# (tests/e2e/tracer_files.sh, tests/e2e/tracer_limits.sh)
check_PROGRAMS += tests/apps/fd_takeover
tests_apps_fd_takeover_SOURCES = tests/apps/fd_takeover.c
tests_apps_fd_takeover_LDADD = $(SIM_LIBS)
tests_apps_fd_takeover_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_fd_takeover_DEPENDENCIES = tests/sim/libgpusim.la
check_PROGRAMS += tests/apps/many_threads
tests_apps_many_threads_SOURCES = tests/apps/many_threads.c
tests_apps_many_threads_LDADD = $(SIM_LIBS) -lpthread
tests_apps_many_threads_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_many_threads_DEPENDENCIES = tests/sim/libgpusim.la
check_PROGRAMS += tests/apps/limits
tests_apps_limits_SOURCES = tests/apps/limits.c
tests_apps_limits_LDADD = $(SIM_LIBS) -ldl -lpthread
tests_apps_limits_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_limits_DEPENDENCIES = tests/sim/libgpusim.la
