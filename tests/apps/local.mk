# tests/apps: workloads that run on the simulator, each with planted problems
# documented at its top.  Built for `make check` (and by the demo).
APP_COMMON = tests/apps/app_train.h tests/apps/app_train.c
check_PROGRAMS += \
  tests/apps/overlapped tests/apps/scalar_read tests/apps/autograd_thread tests/apps/device_sync \
  tests/apps/pageable_upload tests/apps/allreduce_compute_stream \
  tests/apps/straggler tests/apps/data_stall tests/apps/desync tests/apps/hang tests/apps/train_demo tests/apps/slowdown \
  tests/apps/threads tests/apps/api_surface tests/apps/api_surface_ptsz tests/apps/serialized_upload
tests_apps_overlapped_SOURCES = tests/apps/overlapped.c $(APP_COMMON)
tests_apps_overlapped_LDADD = $(SIM_LIBS)
tests_apps_overlapped_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_overlapped_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_scalar_read_SOURCES = tests/apps/scalar_read.c $(APP_COMMON)
tests_apps_scalar_read_LDADD = $(SIM_LIBS)
tests_apps_scalar_read_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_scalar_read_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_autograd_thread_SOURCES = tests/apps/autograd_thread.c $(APP_COMMON)
tests_apps_autograd_thread_LDADD = $(SIM_LIBS) -lpthread
tests_apps_autograd_thread_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_autograd_thread_DEPENDENCIES = tests/sim/libgpusim.la
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
tests_apps_data_stall_SOURCES = tests/apps/data_stall.c $(APP_COMMON)
tests_apps_data_stall_LDADD = $(SIM_LIBS)
tests_apps_data_stall_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_data_stall_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_straggler_SOURCES = tests/apps/straggler.c $(APP_COMMON)
tests_apps_straggler_LDADD = $(SIM_LIBS)
tests_apps_straggler_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_straggler_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_desync_SOURCES = tests/apps/desync.c $(APP_COMMON)
tests_apps_desync_LDADD = $(SIM_LIBS)
tests_apps_desync_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_desync_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_slowdown_SOURCES = tests/apps/slowdown.c $(APP_COMMON)
tests_apps_slowdown_LDADD = $(SIM_LIBS)
tests_apps_slowdown_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_slowdown_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_hang_SOURCES = tests/apps/hang.c $(APP_COMMON)
tests_apps_hang_LDADD = $(SIM_LIBS)
tests_apps_hang_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_hang_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_train_demo_SOURCES = tests/apps/train_demo.c $(APP_COMMON)
tests_apps_train_demo_LDADD = $(SIM_LIBS)
tests_apps_train_demo_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_train_demo_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_threads_SOURCES = tests/apps/threads.c tests/apps/go_file.h
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
# counts a process's fsync and fdatasync calls (tests/e2e/tracer_nosync.sh)
check_LTLIBRARIES += tests/apps/libcount_syncs.la
tests_apps_libcount_syncs_la_SOURCES = tests/apps/count_syncs.c
tests_apps_libcount_syncs_la_LIBADD = -ldl
tests_apps_libcount_syncs_la_LDFLAGS = -module -avoid-version -shared -rpath $(abs_builddir)/tests/apps
# counts a process's fresh mappings of one size (tests/e2e/tracer_cupti_buffers.sh)
check_LTLIBRARIES += tests/apps/libcount_maps.la
tests_apps_libcount_maps_la_SOURCES = tests/apps/count_maps.c
tests_apps_libcount_maps_la_LIBADD = -ldl
tests_apps_libcount_maps_la_LDFLAGS = -module -avoid-version -shared -rpath $(abs_builddir)/tests/apps
# sees a process's closes of pipes and its dlcloses (tests/e2e/tracer_own_closes.sh)
check_LTLIBRARIES += tests/apps/libfd_tracker.la
tests_apps_libfd_tracker_la_SOURCES = tests/apps/fd_tracker.c
tests_apps_libfd_tracker_la_LIBADD = -ldl
tests_apps_libfd_tracker_la_LDFLAGS = -module -avoid-version -shared -rpath $(abs_builddir)/tests/apps
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
# ways of loading the CUDA runtime and NCCL (tests/e2e/tracer_loading.sh):
# a program that opens plugins by path, plugins linked against the
# simulator (and, where found, against the toolkit's real libraries), and
# two copies of a stand-in runtime with different sonames
check_PROGRAMS += tests/apps/load_ways
tests_apps_load_ways_SOURCES = tests/apps/load_ways.c
tests_apps_load_ways_LDADD = -ldl
LIB_FLAGS = -avoid-version -shared -rpath $(abs_builddir)/tests/apps
PLUGIN_FLAGS = -module -avoid-version -shared -rpath $(abs_builddir)/tests/apps
check_LTLIBRARIES += tests/apps/libload_plugin_sim.la tests/apps/libload_outer_sim.la
tests_apps_libload_plugin_sim_la_SOURCES = tests/apps/load_plugin.c
tests_apps_libload_plugin_sim_la_LIBADD = -L$(abs_top_builddir)/tests/sim/.libs -lgpusim -ldl
tests_apps_libload_plugin_sim_la_LDFLAGS = $(LIB_FLAGS) -Wl,-rpath,$(abs_top_builddir)/tests/sim/.libs
tests_apps_libload_plugin_sim_la_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_libload_outer_sim_la_SOURCES = tests/apps/load_outer.c
tests_apps_libload_outer_sim_la_LIBADD = tests/apps/libload_plugin_sim.la
tests_apps_libload_outer_sim_la_LDFLAGS = $(PLUGIN_FLAGS)
if REAL_TOOLKIT_LIBS
check_LTLIBRARIES += tests/apps/libload_plugin_real.la tests/apps/libload_outer_real.la
endif
tests_apps_libload_plugin_real_la_SOURCES = tests/apps/load_plugin.c
tests_apps_libload_plugin_real_la_LIBADD = -L$(CUDA_HOME)/lib64 -lcudart -lnccl -ldl
tests_apps_libload_plugin_real_la_LDFLAGS = $(LIB_FLAGS) -Wl,-rpath,$(CUDA_HOME)/lib64
tests_apps_libload_outer_real_la_SOURCES = tests/apps/load_outer.c
tests_apps_libload_outer_real_la_LIBADD = tests/apps/libload_plugin_real.la
tests_apps_libload_outer_real_la_LDFLAGS = $(PLUGIN_FLAGS)
check_LTLIBRARIES += tests/apps/libtwo_copies_1.la tests/apps/libtwo_copies_2.la tests/apps/libtwo_copies_user_a.la tests/apps/libtwo_copies_user_b.la tests/apps/libmissing_user.la
tests_apps_libmissing_user_la_SOURCES = tests/apps/missing_user.c
tests_apps_libmissing_user_la_LIBADD = tests/apps/libtwo_copies_1.la
tests_apps_libmissing_user_la_LDFLAGS = $(PLUGIN_FLAGS)
tests_apps_libtwo_copies_1_la_SOURCES = tests/apps/two_copies_lib.c
tests_apps_libtwo_copies_1_la_CPPFLAGS = $(AM_CPPFLAGS) -DCOPY=1
tests_apps_libtwo_copies_1_la_LDFLAGS = $(LIB_FLAGS)
tests_apps_libtwo_copies_2_la_SOURCES = tests/apps/two_copies_lib.c
tests_apps_libtwo_copies_2_la_CPPFLAGS = $(AM_CPPFLAGS) -DCOPY=2
tests_apps_libtwo_copies_2_la_LDFLAGS = $(LIB_FLAGS)
tests_apps_libtwo_copies_user_a_la_SOURCES = tests/apps/two_copies_user.c
tests_apps_libtwo_copies_user_a_la_CPPFLAGS = $(AM_CPPFLAGS) -DUSER=a
tests_apps_libtwo_copies_user_a_la_LIBADD = tests/apps/libtwo_copies_1.la
tests_apps_libtwo_copies_user_a_la_LDFLAGS = $(PLUGIN_FLAGS)
tests_apps_libtwo_copies_user_b_la_SOURCES = tests/apps/two_copies_user.c
tests_apps_libtwo_copies_user_b_la_CPPFLAGS = $(AM_CPPFLAGS) -DUSER=b
tests_apps_libtwo_copies_user_b_la_LIBADD = tests/apps/libtwo_copies_2.la
tests_apps_libtwo_copies_user_b_la_LDFLAGS = $(PLUGIN_FLAGS)
# .cu workloads: compiled by nvcc with -cudart none, linked against the
# simulator, whose kernel bodies for them are in cu_kernels_sim.c; the same
# files build unchanged against the real runtime (tests/gpu/run.sh)
NVCC_FLAGS = -cudart none -g -O2 -I$(top_srcdir)
CU_APPS = tests/apps/cu_scalar_read tests/apps/cu_scalar_read_ptsz tests/apps/cu_scalar_read_static \
  tests/apps/cu_overlapped tests/apps/cu_allreduce_compute_stream
if HAVE_NVCC
check_PROGRAMS += $(CU_APPS)
endif
EXTRA_DIST += tests/apps/cu_scalar_read.cu tests/apps/cu_train.h tests/apps/cu_train.cu tests/apps/cu_overlapped.cu \
  tests/apps/cu_allreduce_compute_stream.cu
CLEANFILES += tests/apps/*.cu.o
tests/apps/%.cu.o: $(top_srcdir)/tests/apps/%.cu
	$(AM_V_GEN)$(MKDIR_P) tests/apps && $(NVCC) $(NVCC_FLAGS) -c -o $@ $<
# the same file with per-thread default streams: __cudaLaunchKernel_ptsz
tests/apps/%.ptsz.cu.o: $(top_srcdir)/tests/apps/%.cu
	$(AM_V_GEN)$(MKDIR_P) tests/apps && $(NVCC) $(NVCC_FLAGS) --default-stream per-thread -c -o $@ $<
tests_apps_cu_scalar_read_SOURCES = tests/apps/cu_kernels_sim.c
tests_apps_cu_scalar_read_LDADD = tests/apps/cu_scalar_read.cu.o $(SIM_LIBS) -lstdc++
tests_apps_cu_scalar_read_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_cu_scalar_read_DEPENDENCIES = tests/apps/cu_scalar_read.cu.o tests/sim/libgpusim.la
tests_apps_cu_scalar_read_ptsz_SOURCES = tests/apps/cu_kernels_sim.c
tests_apps_cu_scalar_read_ptsz_LDADD = tests/apps/cu_scalar_read.ptsz.cu.o $(SIM_LIBS) -lstdc++
tests_apps_cu_scalar_read_ptsz_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_cu_scalar_read_ptsz_DEPENDENCIES = tests/apps/cu_scalar_read.ptsz.cu.o tests/sim/libgpusim.la
# linked with the static simulator, as nvcc links libcudart_static.a by
# default: no dynamic CUDA symbol; only the kernel bodies and the
# simulator's CUPTI (which a real program would load as libcupti.so) are
# exported
tests_apps_cu_scalar_read_static_SOURCES = tests/apps/cu_kernels_sim.c
tests_apps_cu_scalar_read_static_LDADD = tests/apps/cu_scalar_read.cu.o tests/sim/libgpusim_static.a -lstdc++ -lm -ldl -lrt
tests_apps_cu_scalar_read_static_LDFLAGS = $(AM_LDFLAGS) -Wl,--export-dynamic-symbol=gpusim_kernel_* -Wl,--export-dynamic-symbol=cupti*
tests_apps_cu_scalar_read_static_DEPENDENCIES = tests/apps/cu_scalar_read.cu.o tests/sim/libgpusim_static.a
# names past the usual limits (tests/e2e/report_hostile.sh)
check_PROGRAMS += tests/apps/long_names
tests_apps_long_names_SOURCES = tests/apps/long_names.c
tests_apps_long_names_LDADD = $(SIM_LIBS) -ldl -lpthread
tests_apps_long_names_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_long_names_DEPENDENCIES = tests/sim/libgpusim.la
# signals, fork/vfork, exec and exit inside a traced program (tests/e2e/tracer_signals.sh)
check_PROGRAMS += tests/apps/lifecycle
tests_apps_lifecycle_SOURCES = tests/apps/lifecycle.c
tests_apps_lifecycle_LDADD = $(SIM_LIBS) -lpthread
tests_apps_lifecycle_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_lifecycle_DEPENDENCIES = tests/sim/libgpusim.la
# errno and the standard descriptors traced as untraced (tests/e2e/tracer_std_fds.sh)
check_PROGRAMS += tests/apps/std_fds
tests_apps_std_fds_SOURCES = tests/apps/std_fds.c
tests_apps_std_fds_LDADD = $(SIM_LIBS)
tests_apps_std_fds_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_std_fds_DEPENDENCIES = tests/sim/libgpusim.la
# nvcc's own builds against the real runtime, shared and static
# (tests/e2e/tracer_real_toolkit.sh): linked by nvcc, as a user's are
EXTRA_DIST += tests/apps/cu_real_launch.cu
if HAVE_NVCC
if REAL_TOOLKIT_LIBS
check_SCRIPTS = tests/apps/cu_real_launch_shared tests/apps/cu_real_launch_static
CLEANFILES += tests/apps/cu_real_launch_shared tests/apps/cu_real_launch_static
endif
endif
tests/apps/cu_real_launch_shared: $(top_srcdir)/tests/apps/cu_real_launch.cu
	$(AM_V_GEN)$(MKDIR_P) tests/apps && $(NVCC) -cudart shared -O2 -Xlinker -rpath -Xlinker $(CUDA_HOME)/lib64 -o $@ $<
tests/apps/cu_real_launch_static: $(top_srcdir)/tests/apps/cu_real_launch.cu
	$(AM_V_GEN)$(MKDIR_P) tests/apps && $(NVCC) -O2 -o $@ $<
# a launcher that opens the driver and takes its entry points itself, as
# Triton's does (tests/e2e/tracer_loading.sh)
check_PROGRAMS += tests/apps/triton_launch
tests_apps_triton_launch_SOURCES = tests/apps/triton_launch.c
tests_apps_triton_launch_LDADD = -ldl
tests_apps_triton_launch_LDFLAGS = $(AM_LDFLAGS) -rdynamic
# a program that subscribes to CUPTI itself, as torch.profiler does (tests/e2e/tracer_cuda13.sh)
check_PROGRAMS += tests/apps/own_profiler
tests_apps_own_profiler_SOURCES = tests/apps/own_profiler.c
tests_apps_own_profiler_LDADD = $(SIM_LIBS)
tests_apps_own_profiler_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_own_profiler_DEPENDENCIES = tests/sim/libgpusim.la
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
check_PROGRAMS += tests/apps/own_activity
tests_apps_own_activity_SOURCES = tests/apps/own_activity.c
tests_apps_own_activity_LDADD = $(SIM_LIBS)
tests_apps_own_activity_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_own_activity_DEPENDENCIES = tests/sim/libgpusim.la
check_PROGRAMS += tests/apps/long_kernel
tests_apps_long_kernel_SOURCES = tests/apps/long_kernel.c
tests_apps_long_kernel_LDADD = $(SIM_LIBS)
tests_apps_long_kernel_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_long_kernel_DEPENDENCIES = tests/sim/libgpusim.la
check_PROGRAMS += tests/apps/fork_busy
tests_apps_fork_busy_SOURCES = tests/apps/fork_busy.c
tests_apps_fork_busy_LDADD = $(SIM_LIBS)
tests_apps_fork_busy_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_fork_busy_DEPENDENCIES = tests/sim/libgpusim.la
check_PROGRAMS += tests/apps/paced_calls
tests_apps_paced_calls_SOURCES = tests/apps/paced_calls.c tests/apps/go_file.h
tests_apps_paced_calls_LDADD = $(SIM_LIBS)
tests_apps_paced_calls_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_paced_calls_DEPENDENCIES = tests/sim/libgpusim.la
check_PROGRAMS += tests/apps/flood_threads
tests_apps_flood_threads_SOURCES = tests/apps/flood_threads.c tests/apps/go_file.h
tests_apps_flood_threads_LDADD = $(SIM_LIBS) -lpthread
tests_apps_flood_threads_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_flood_threads_DEPENDENCIES = tests/sim/libgpusim.la
check_PROGRAMS += tests/apps/limits
tests_apps_limits_SOURCES = tests/apps/limits.c
tests_apps_limits_LDADD = $(SIM_LIBS) -ldl -lpthread
tests_apps_limits_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_limits_DEPENDENCIES = tests/sim/libgpusim.la
# the training step of app_train.c as CUDA C++ (cu_train.cu), with the
# overlapped twin and the all-reduce on the compute stream planted
tests/apps/cu_train.cu.o tests/apps/cu_overlapped.cu.o tests/apps/cu_allreduce_compute_stream.cu.o: \
  $(top_srcdir)/tests/apps/cu_train.h
tests_apps_cu_overlapped_SOURCES = tests/apps/cu_kernels_sim.c
tests_apps_cu_overlapped_LDADD = tests/apps/cu_overlapped.cu.o tests/apps/cu_train.cu.o $(SIM_LIBS) -lstdc++
tests_apps_cu_overlapped_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_cu_overlapped_DEPENDENCIES = tests/apps/cu_overlapped.cu.o tests/apps/cu_train.cu.o tests/sim/libgpusim.la
tests_apps_cu_allreduce_compute_stream_SOURCES = tests/apps/cu_kernels_sim.c
tests_apps_cu_allreduce_compute_stream_LDADD = tests/apps/cu_allreduce_compute_stream.cu.o tests/apps/cu_train.cu.o $(SIM_LIBS) -lstdc++
tests_apps_cu_allreduce_compute_stream_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_cu_allreduce_compute_stream_DEPENDENCIES = tests/apps/cu_allreduce_compute_stream.cu.o tests/apps/cu_train.cu.o tests/sim/libgpusim.la
# a key destructor that calls CUDA after the tracer's ran (tests/e2e/tracer.sh)
check_PROGRAMS += tests/apps/tsd_destructor
tests_apps_tsd_destructor_SOURCES = tests/apps/tsd_destructor.c
tests_apps_tsd_destructor_LDADD = $(SIM_LIBS) -lpthread
tests_apps_tsd_destructor_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_tsd_destructor_DEPENDENCIES = tests/sim/libgpusim.la
# a library that says when it is unloaded, and a plugin that looks its
# symbol up (tests/e2e/tracer_loading.sh)
check_LTLIBRARIES += tests/apps/libunload_a.la tests/apps/libunload_b.la
tests_apps_libunload_a_la_SOURCES = tests/apps/unload_lib.c
tests_apps_libunload_a_la_CPPFLAGS = $(AM_CPPFLAGS) -DUNLOAD_A
tests_apps_libunload_a_la_LDFLAGS = $(PLUGIN_FLAGS)
tests_apps_libunload_b_la_SOURCES = tests/apps/unload_lib.c
tests_apps_libunload_b_la_LIBADD = -ldl
tests_apps_libunload_b_la_LDFLAGS = $(PLUGIN_FLAGS)
# a 4-stage pipeline: point-to-point between neighbours, one stage slower
check_PROGRAMS += tests/apps/pipeline
tests_apps_pipeline_SOURCES = tests/apps/pipeline.c
tests_apps_pipeline_LDADD = $(SIM_LIBS)
tests_apps_pipeline_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_pipeline_DEPENDENCIES = tests/sim/libgpusim.la
# communicators made beyond ncclCommInitRank (comm_kinds.h), and NCCL reached
# only through a library handle (nccl_dlopen.c, py_nccl.py): tests/e2e/nccl_comms.sh
check_PROGRAMS += tests/apps/comm_scalable tests/apps/comm_shrink tests/apps/comm_split_nb tests/apps/comm_split_nb_spin tests/apps/comm_init_nb tests/apps/comm_unknown tests/apps/nccl_dlopen
COMM_KINDS = tests/apps/comm_kinds.h tests/apps/comm_kinds.c
tests_apps_comm_scalable_SOURCES = tests/apps/comm_scalable.c $(COMM_KINDS)
tests_apps_comm_scalable_LDADD = $(SIM_LIBS)
tests_apps_comm_scalable_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_comm_scalable_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_comm_shrink_SOURCES = tests/apps/comm_shrink.c $(COMM_KINDS)
tests_apps_comm_shrink_LDADD = $(SIM_LIBS)
tests_apps_comm_shrink_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_comm_shrink_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_comm_split_nb_SOURCES = tests/apps/comm_split_nb.c $(COMM_KINDS)
tests_apps_comm_split_nb_LDADD = $(SIM_LIBS)
tests_apps_comm_split_nb_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_comm_split_nb_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_comm_split_nb_spin_SOURCES = tests/apps/comm_split_nb_spin.c $(COMM_KINDS)
tests_apps_comm_split_nb_spin_LDADD = $(SIM_LIBS)
tests_apps_comm_split_nb_spin_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_comm_split_nb_spin_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_comm_init_nb_SOURCES = tests/apps/comm_init_nb.c $(COMM_KINDS)
tests_apps_comm_init_nb_LDADD = $(SIM_LIBS)
tests_apps_comm_init_nb_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_comm_init_nb_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_comm_unknown_SOURCES = tests/apps/comm_unknown.c $(COMM_KINDS)
tests_apps_comm_unknown_LDADD = $(SIM_LIBS)
tests_apps_comm_unknown_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_comm_unknown_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_nccl_dlopen_SOURCES = tests/apps/nccl_dlopen.c
tests_apps_nccl_dlopen_LDADD = -ldl
EXTRA_DIST += tests/apps/py_nccl.py
check_PROGRAMS += tests/apps/nccl_surface
tests_apps_nccl_surface_SOURCES = tests/apps/nccl_surface.c
tests_apps_nccl_surface_LDADD = $(SIM_LIBS)
tests_apps_nccl_surface_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_nccl_surface_DEPENDENCIES = tests/sim/libgpusim.la
check_PROGRAMS += tests/apps/custom_comm
tests_apps_custom_comm_SOURCES = tests/apps/custom_comm.c
tests_apps_custom_comm_LDADD = $(SIM_LIBS)
tests_apps_custom_comm_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_custom_comm_DEPENDENCIES = tests/sim/libgpusim.la
# the dependency workloads: what a sync waits for through events (docs/report.md)
check_PROGRAMS += tests/apps/pg_sync tests/apps/cpu_copy tests/apps/event_sync
EXTRA_DIST += tests/apps/deps_app.h
tests_apps_pg_sync_SOURCES = tests/apps/pg_sync.c tests/apps/app_train.h
tests_apps_pg_sync_LDADD = $(SIM_LIBS)
tests_apps_pg_sync_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_pg_sync_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_cpu_copy_SOURCES = tests/apps/cpu_copy.c
tests_apps_cpu_copy_LDADD = $(SIM_LIBS)
tests_apps_cpu_copy_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_cpu_copy_DEPENDENCIES = tests/sim/libgpusim.la
tests_apps_event_sync_SOURCES = tests/apps/event_sync.c
tests_apps_event_sync_LDADD = $(SIM_LIBS)
tests_apps_event_sync_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_event_sync_DEPENDENCIES = tests/sim/libgpusim.la
# a device-wide sync after one that waited for everything (sync.redundant), and its twin
check_PROGRAMS += tests/apps/redundant_sync
tests_apps_redundant_sync_SOURCES = tests/apps/redundant_sync.c
tests_apps_redundant_sync_LDADD = $(SIM_LIBS)
tests_apps_redundant_sync_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_redundant_sync_DEPENDENCIES = tests/sim/libgpusim.la
# a buffer freed every step: cudaFree's device-wide sync (sync.implicit), and its twin
check_PROGRAMS += tests/apps/free_each_step
tests_apps_free_each_step_SOURCES = tests/apps/free_each_step.c
tests_apps_free_each_step_LDADD = $(SIM_LIBS)
tests_apps_free_each_step_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_free_each_step_DEPENDENCIES = tests/sim/libgpusim.la
# a buffer allocated every step, the host held in cudaMalloc: host.setup
check_PROGRAMS += tests/apps/alloc_each_step
tests_apps_alloc_each_step_SOURCES = tests/apps/alloc_each_step.c
tests_apps_alloc_each_step_LDADD = $(SIM_LIBS)
tests_apps_alloc_each_step_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_alloc_each_step_DEPENDENCIES = tests/sim/libgpusim.la
# tensor.to('cuda') from pageable memory: c10's sync after the upload is the copy's
check_PROGRAMS += tests/apps/to_device
tests_apps_to_device_SOURCES = tests/apps/to_device.c
tests_apps_to_device_LDADD = $(SIM_LIBS)
tests_apps_to_device_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_to_device_DEPENDENCIES = tests/sim/libgpusim.la
# a collective every rank entered and none finished (comm.hang)
check_PROGRAMS += tests/apps/hang_inside
tests_apps_hang_inside_SOURCES = tests/apps/hang_inside.c $(APP_COMMON)
tests_apps_hang_inside_LDADD = $(SIM_LIBS)
tests_apps_hang_inside_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_hang_inside_DEPENDENCIES = tests/sim/libgpusim.la
# one process driving two GPUs (a timeline per GPU)
check_PROGRAMS += tests/apps/multi_gpu
tests_apps_multi_gpu_SOURCES = tests/apps/multi_gpu.c
tests_apps_multi_gpu_LDADD = $(SIM_LIBS)
tests_apps_multi_gpu_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_multi_gpu_DEPENDENCIES = tests/sim/libgpusim.la
check_PROGRAMS += tests/apps/model_parallel
tests_apps_model_parallel_SOURCES = tests/apps/model_parallel.c
tests_apps_model_parallel_LDADD = $(SIM_LIBS)
tests_apps_model_parallel_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_model_parallel_DEPENDENCIES = tests/sim/libgpusim.la
check_PROGRAMS += tests/apps/model_parallel_default
tests_apps_model_parallel_default_SOURCES = tests/apps/model_parallel_default.c
tests_apps_model_parallel_default_LDADD = $(SIM_LIBS)
tests_apps_model_parallel_default_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_model_parallel_default_DEPENDENCIES = tests/sim/libgpusim.la
# NCCL reached where no wrapper can see it: the simulator linked in
# statically; only NCCL's profiler plugin (and CUPTI, by injection) see
# its operations (tests/e2e/nccl_plugin.sh)
check_PROGRAMS += tests/apps/straggler_static
tests_apps_straggler_static_SOURCES = tests/apps/straggler.c $(APP_COMMON)
tests_apps_straggler_static_LDADD = tests/sim/libgpusim_static.a -lm -ldl -lrt -lpthread
tests_apps_straggler_static_LDFLAGS = $(AM_LDFLAGS) -Wl,--export-dynamic-symbol=cupti* -Wl,--export-dynamic-symbol=*_kernel
tests_apps_straggler_static_DEPENDENCIES = tests/sim/libgpusim_static.a
# a profiler plugin of the user's own, which must win over ours
check_LTLIBRARIES += tests/apps/libother_profiler.la
tests_apps_libother_profiler_la_SOURCES = tests/apps/other_profiler.c
tests_apps_libother_profiler_la_LDFLAGS = $(AM_LDFLAGS) -rpath $(abs_builddir)/tests/apps -avoid-version -shared
# the plugin's table driven without NCCL: bursts and late stops (tests/e2e/nccl_plugin.sh)
check_PROGRAMS += tests/apps/plugin_burst
tests_apps_plugin_burst_SOURCES = tests/apps/plugin_burst.c
tests_apps_plugin_burst_LDADD = -ldl
# send/recv in groups and a broadcast, for the plugin's join by peer and order (tests/e2e/nccl_plugin.sh)
check_PROGRAMS += tests/apps/p2p_ring
tests_apps_p2p_ring_SOURCES = tests/apps/p2p_ring.c
tests_apps_p2p_ring_LDADD = $(SIM_LIBS)
tests_apps_p2p_ring_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_p2p_ring_DEPENDENCIES = tests/sim/libgpusim.la
# all-gathers NCCL 2.28 runs on the copy engines (ce_allgather.c): tests/e2e/nccl_ce.sh
check_PROGRAMS += tests/apps/ce_allgather
tests_apps_ce_allgather_SOURCES = tests/apps/ce_allgather.c
tests_apps_ce_allgather_LDADD = $(SIM_LIBS)
tests_apps_ce_allgather_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_ce_allgather_DEPENDENCIES = tests/sim/libgpusim.la
# ... and with the static simulator (nvcc's default static cudart, a static NCCL): no wrapper sees NCCL
check_PROGRAMS += tests/apps/ce_allgather_static
tests_apps_ce_allgather_static_SOURCES = tests/apps/ce_allgather.c
tests_apps_ce_allgather_static_LDADD = tests/sim/libgpusim_static.a -lm -ldl -lrt -lpthread
tests_apps_ce_allgather_static_LDFLAGS = $(AM_LDFLAGS) -Wl,--export-dynamic-symbol=cupti* -Wl,--export-dynamic-symbol=*_kernel
tests_apps_ce_allgather_static_DEPENDENCIES = tests/sim/libgpusim_static.a
# the other .cu workloads linked with the static simulator too (runtime,
# driver and NCCL in the program, as nvcc's default static cudart and a
# static NCCL are): tests/e2e/cu_three_ways.sh traces each build every way
CU_STATIC_APPS = tests/apps/cu_overlapped_static tests/apps/cu_allreduce_compute_stream_static
if HAVE_NVCC
check_PROGRAMS += $(CU_STATIC_APPS)
endif
CU_STATIC_LINK = tests/apps/cu_train.cu.o tests/sim/libgpusim_static.a -lstdc++ -lm -ldl -lrt -lpthread
CU_STATIC_LINK_FLAGS = $(AM_LDFLAGS) -Wl,--export-dynamic-symbol=gpusim_kernel_* -Wl,--export-dynamic-symbol=cupti*
tests_apps_cu_overlapped_static_SOURCES = tests/apps/cu_kernels_sim.c
tests_apps_cu_overlapped_static_LDADD = tests/apps/cu_overlapped.cu.o $(CU_STATIC_LINK)
tests_apps_cu_overlapped_static_LDFLAGS = $(CU_STATIC_LINK_FLAGS)
tests_apps_cu_overlapped_static_DEPENDENCIES = tests/apps/cu_overlapped.cu.o tests/apps/cu_train.cu.o tests/sim/libgpusim_static.a
tests_apps_cu_allreduce_compute_stream_static_SOURCES = tests/apps/cu_kernels_sim.c
tests_apps_cu_allreduce_compute_stream_static_LDADD = tests/apps/cu_allreduce_compute_stream.cu.o $(CU_STATIC_LINK)
tests_apps_cu_allreduce_compute_stream_static_LDFLAGS = $(CU_STATIC_LINK_FLAGS)
tests_apps_cu_allreduce_compute_stream_static_DEPENDENCIES = tests/apps/cu_allreduce_compute_stream.cu.o tests/apps/cu_train.cu.o \
  tests/sim/libgpusim_static.a

# one communicator with copy-engine and kernel all-gathers (ce_mixed.c): tests/e2e/nccl_ce.sh
check_PROGRAMS += tests/apps/ce_mixed
tests_apps_ce_mixed_SOURCES = tests/apps/ce_mixed.c
tests_apps_ce_mixed_LDADD = $(SIM_LIBS)
tests_apps_ce_mixed_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_ce_mixed_DEPENDENCIES = tests/sim/libgpusim.la

# pipeline stages with collectives between, different send/recv counts per rank (pp_allreduce.c): tests/e2e/nccl_plugin.sh
check_PROGRAMS += tests/apps/pp_allreduce
tests_apps_pp_allreduce_SOURCES = tests/apps/pp_allreduce.c
tests_apps_pp_allreduce_LDADD = $(SIM_LIBS)
tests_apps_pp_allreduce_LDFLAGS = $(SIM_LINK_FLAGS)
tests_apps_pp_allreduce_DEPENDENCIES = tests/sim/libgpusim.la
EXTRA_DIST += tests/apps/py_layout_check.c
EXTRA_DIST += tests/apps/py_ext.c tests/apps/py_threads.py
