# tests/unit: Criterion unit tests, run by `make check`.
# Tests of the report's parts link its own objects (viewer/libreport.a:
# Criterion's library first, so that main is Criterion's, viewer/local.mk)
VIEWER_TEST_LIBS = $(CRITERION_LIBS) viewer/libreport.a $(SQLITE_LIBS) $(ZLIB_LIBS) -ldl -lm
VIEWER_TEST_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS) $(SQLITE_CFLAGS)
UNIT_SIM_TESTS = tests/unit/test_sim_stream tests/unit/test_sim_memory \
  tests/unit/test_sim_cupti tests/unit/test_sim_cupti_callbacks tests/unit/test_sim_nccl \
  tests/unit/test_sim_nccl_comms
check_PROGRAMS += tests/unit/test_sim_stream tests/unit/test_sim_memory \
  tests/unit/test_sim_cupti tests/unit/test_sim_cupti_callbacks tests/unit/test_sim_nccl \
  tests/unit/test_sim_nccl_comms
TESTS += $(UNIT_SIM_TESTS)
SIM_TEST_UTIL = tests/unit/sim_test_util.h tests/unit/sim_test_util.c
tests_unit_test_sim_stream_SOURCES = tests/unit/test_sim_stream.c $(SIM_TEST_UTIL)
tests_unit_test_sim_stream_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_sim_stream_LDADD = $(SIM_LIBS) $(CRITERION_LIBS) -lm
tests_unit_test_sim_stream_LDFLAGS = $(SIM_LINK_FLAGS)
tests_unit_test_sim_stream_DEPENDENCIES = tests/sim/libgpusim.la
tests_unit_test_sim_memory_SOURCES = tests/unit/test_sim_memory.c $(SIM_TEST_UTIL)
tests_unit_test_sim_memory_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_sim_memory_LDADD = $(SIM_LIBS) $(CRITERION_LIBS) -lm
tests_unit_test_sim_memory_LDFLAGS = $(SIM_LINK_FLAGS)
tests_unit_test_sim_memory_DEPENDENCIES = tests/sim/libgpusim.la
tests_unit_test_sim_cupti_SOURCES = tests/unit/test_sim_cupti.c $(SIM_TEST_UTIL)
tests_unit_test_sim_cupti_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_sim_cupti_LDADD = $(SIM_LIBS) $(CRITERION_LIBS) -lm
tests_unit_test_sim_cupti_LDFLAGS = $(SIM_LINK_FLAGS)
tests_unit_test_sim_cupti_DEPENDENCIES = tests/sim/libgpusim.la
tests_unit_test_sim_cupti_callbacks_SOURCES = tests/unit/test_sim_cupti_callbacks.c $(SIM_TEST_UTIL)
tests_unit_test_sim_cupti_callbacks_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_sim_cupti_callbacks_LDADD = $(SIM_LIBS) $(CRITERION_LIBS) -lm
tests_unit_test_sim_cupti_callbacks_LDFLAGS = $(SIM_LINK_FLAGS)
tests_unit_test_sim_cupti_callbacks_DEPENDENCIES = tests/sim/libgpusim.la
tests_unit_test_sim_nccl_SOURCES = tests/unit/test_sim_nccl.c $(SIM_TEST_UTIL)
tests_unit_test_sim_nccl_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_sim_nccl_LDADD = $(SIM_LIBS) $(CRITERION_LIBS) -lm
tests_unit_test_sim_nccl_LDFLAGS = $(SIM_LINK_FLAGS)
tests_unit_test_sim_nccl_DEPENDENCIES = tests/sim/libgpusim.la
tests_unit_test_sim_nccl_comms_SOURCES = tests/unit/test_sim_nccl_comms.c $(SIM_TEST_UTIL)
tests_unit_test_sim_nccl_comms_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_sim_nccl_comms_LDADD = $(SIM_LIBS) $(CRITERION_LIBS) -lm
tests_unit_test_sim_nccl_comms_LDFLAGS = $(SIM_LINK_FLAGS)
tests_unit_test_sim_nccl_comms_DEPENDENCIES = tests/sim/libgpusim.la

# the report's row reading and sorting, against SQL and qsort
check_PROGRAMS += tests/unit/test_report_rows
TESTS += tests/unit/test_report_rows
tests_unit_test_report_rows_SOURCES = tests/unit/test_report_rows.c viewer/read/rowruns.h viewer/read/rowruns.c \
  viewer/model/sort_by_time.h viewer/model/sort_by_time.c format/row_block.h format/block_codec.h format/block_codec.c \
  format/call_block.h
tests_unit_test_report_rows_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS) $(SQLITE_CFLAGS)
tests_unit_test_report_rows_LDADD = $(SQLITE_LIBS) $(CRITERION_LIBS)

# the bulk blocks' compact layout: exact, small, and refused whole when damaged
check_PROGRAMS += tests/unit/test_block_codec
TESTS += tests/unit/test_block_codec
tests_unit_test_block_codec_SOURCES = tests/unit/test_block_codec.c format/block_codec.h format/block_codec.c \
  format/row_block.h format/call_block.h format/capi_block.h format/gpu_block.h format/nvtx_block.h
tests_unit_test_block_codec_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_block_codec_LDADD = $(CRITERION_LIBS)

# every rank's collectives through the report's temporary file
check_PROGRAMS += tests/unit/test_coll_spill
TESTS += tests/unit/test_coll_spill
tests_unit_test_coll_spill_SOURCES = tests/unit/test_coll_spill.c
tests_unit_test_coll_spill_CFLAGS = $(VIEWER_TEST_CFLAGS)
tests_unit_test_coll_spill_LDADD = $(VIEWER_TEST_LIBS)

# the per-thread record ring
check_PROGRAMS += tests/unit/test_tbuf
TESTS += tests/unit/test_tbuf
tests_unit_test_tbuf_SOURCES = tests/unit/test_tbuf.c collector/tbuf.h collector/tbuf.c collector/membudget.h collector/membudget.c format/record.h \
  format/nvtx_block.h format/row_block.h
tests_unit_test_tbuf_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_tbuf_LDADD = $(CRITERION_LIBS)
# munmap and pthread_setspecific wrapped: tests run another thread's step
# inside the drain's unmapping, a signal handler's call inside a claim
tests_unit_test_tbuf_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=munmap -Wl,--wrap=pthread_setspecific

# the log of the tracer's interning tables (call stacks, Python stacks)
check_PROGRAMS += tests/unit/test_intern
TESTS += tests/unit/test_intern
tests_unit_test_intern_SOURCES = tests/unit/test_intern.c collector/intern.h
tests_unit_test_intern_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_intern_LDADD = $(CRITERION_LIBS)

# the tracer's tick-to-ns map
check_PROGRAMS += tests/unit/test_clock
TESTS += tests/unit/test_clock
tests_unit_test_clock_SOURCES = tests/unit/test_clock.c collector/clock.h collector/clock.c
tests_unit_test_clock_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_clock_LDADD = $(CRITERION_LIBS)

# the map made anew in a forked child that caught it mid-write
check_PROGRAMS += tests/unit/test_clock_fork
TESTS += tests/unit/test_clock_fork
tests_unit_test_clock_fork_SOURCES = tests/unit/test_clock_fork.c collector/clock.h
tests_unit_test_clock_fork_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_clock_fork_LDADD = $(CRITERION_LIBS)

# the queue between the rings and the writer
check_PROGRAMS += tests/unit/test_stage
TESTS += tests/unit/test_stage
tests_unit_test_stage_SOURCES = tests/unit/test_stage.c collector/stage.h collector/stage.c collector/tbuf.h \
  collector/tbuf.c format/record.h collector/membudget.h collector/membudget.c
tests_unit_test_stage_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_stage_LDADD = $(CRITERION_LIBS) -lpthread

# the writer's side of fork: the prepare handler waits for a writer on its way out
check_PROGRAMS += tests/unit/test_writer_fork
TESTS += tests/unit/test_writer_fork
tests_unit_test_writer_fork_SOURCES = tests/unit/test_writer_fork.c collector/writer_int.h collector/writer_ctl.c
tests_unit_test_writer_fork_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_writer_fork_LDADD = $(CRITERION_LIBS) -lpthread
tests_unit_test_writer_fork_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=free

# what an output path names, and what record finds of an earlier run there
check_PROGRAMS += tests/unit/test_outputs
TESTS += tests/unit/test_outputs
tests_unit_test_outputs_SOURCES = tests/unit/test_outputs.c collector/config.h collector/config.c collector/say.h collector/say.c \
  cli/outputs.h cli/outputs.c format/ours.h format/ours.c common/printable.h common/printable.c \
  collector/requests.h collector/requests.c
tests_unit_test_outputs_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS) $(SQLITE_CFLAGS)
tests_unit_test_outputs_LDADD = $(SQLITE_LIBS) $(CRITERION_LIBS)

# the hosts' clocks aligned from the collectives
check_PROGRAMS += tests/unit/test_clock_align
TESTS += tests/unit/test_clock_align
tests_unit_test_clock_align_SOURCES = tests/unit/test_clock_align.c
tests_unit_test_clock_align_CFLAGS = $(VIEWER_TEST_CFLAGS)
tests_unit_test_clock_align_LDADD = $(VIEWER_TEST_LIBS)

# sends matched to their receives across ranks
check_PROGRAMS += tests/unit/test_p2p_match
TESTS += tests/unit/test_p2p_match
tests_unit_test_p2p_match_SOURCES = tests/unit/test_p2p_match.c
tests_unit_test_p2p_match_CFLAGS = $(VIEWER_TEST_CFLAGS)
tests_unit_test_p2p_match_LDADD = $(VIEWER_TEST_LIBS)

# each device's legacy stream told apart by the calling thread's device
check_PROGRAMS += tests/unit/test_legacy_streams
TESTS += tests/unit/test_legacy_streams
tests_unit_test_legacy_streams_SOURCES = tests/unit/test_legacy_streams.c
tests_unit_test_legacy_streams_CFLAGS = $(VIEWER_TEST_CFLAGS)
tests_unit_test_legacy_streams_LDADD = $(VIEWER_TEST_LIBS)

# what a sync transitively waits for: the streams' and events' dependency clocks
check_PROGRAMS += tests/unit/test_stream_deps
TESTS += tests/unit/test_stream_deps
tests_unit_test_stream_deps_SOURCES = tests/unit/test_stream_deps.c
tests_unit_test_stream_deps_CFLAGS = $(VIEWER_TEST_CFLAGS)
tests_unit_test_stream_deps_LDADD = $(VIEWER_TEST_LIBS)

# one charge per lost millisecond: the findings' claims resolved
check_PROGRAMS += tests/unit/test_attribution
TESTS += tests/unit/test_attribution
tests_unit_test_attribution_SOURCES = tests/unit/test_attribution.c viewer/analyse/attribution.h \
  viewer/analyse/attribution.c viewer/model/idmap.h viewer/model/idmap.c viewer/model/ivals.c
tests_unit_test_attribution_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS) $(SQLITE_CFLAGS)
tests_unit_test_attribution_LDADD = $(CRITERION_LIBS)
# the simulator's CUDA_EVENT and SYNCHRONIZATION records, field by field
check_PROGRAMS += tests/unit/test_sim_cupti_events
TESTS += tests/unit/test_sim_cupti_events
tests_unit_test_sim_cupti_events_SOURCES = tests/unit/test_sim_cupti_events.c $(SIM_TEST_UTIL)
tests_unit_test_sim_cupti_events_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_sim_cupti_events_LDADD = $(SIM_LIBS) $(CRITERION_LIBS) -lm
tests_unit_test_sim_cupti_events_LDFLAGS = $(SIM_LINK_FLAGS)
tests_unit_test_sim_cupti_events_DEPENDENCIES = tests/sim/libgpusim.la

# the writer's batched rows and late indexes
check_PROGRAMS += tests/unit/test_db_batch
TESTS += tests/unit/test_db_batch
tests_unit_test_db_batch_SOURCES = tests/unit/test_db_batch.c collector/db.h collector/db.c format/block_codec.h format/block_codec.c collector/db_batch.h \
  collector/db_batch.c format/schema.h format/schema.c format/api_table.h format/api_table.c collector/boot_id.h collector/boot_id.c \
  collector/procfile.h collector/procfile.c
tests_unit_test_db_batch_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS) $(SQLITE_CFLAGS)
tests_unit_test_db_batch_LDADD = $(SQLITE_LIBS) $(CRITERION_LIBS)

# The report's join of its sources, on synthetic records
# the calls only CUPTI saw put in CUPTI's order among the joined ones
check_PROGRAMS += tests/unit/test_cupti_order
TESTS += tests/unit/test_cupti_order
tests_unit_test_cupti_order_SOURCES = tests/unit/test_cupti_order.c
tests_unit_test_cupti_order_CFLAGS = $(VIEWER_TEST_CFLAGS)
tests_unit_test_cupti_order_LDADD = $(VIEWER_TEST_LIBS)
check_PROGRAMS += tests/unit/test_sort_keys
TESTS += tests/unit/test_sort_keys
tests_unit_test_sort_keys_SOURCES = tests/unit/test_sort_keys.c
tests_unit_test_sort_keys_CFLAGS = $(VIEWER_TEST_CFLAGS)
tests_unit_test_sort_keys_LDADD = $(VIEWER_TEST_LIBS)
# the join's exact and clock halves: by external id, the clocks' offset
check_PROGRAMS += tests/unit/test_join_clock
TESTS += tests/unit/test_join_clock
tests_unit_test_join_clock_SOURCES = tests/unit/test_join_clock.c tests/unit/join_test_util.h
tests_unit_test_join_clock_CFLAGS = $(VIEWER_TEST_CFLAGS)
tests_unit_test_join_clock_LDADD = $(VIEWER_TEST_LIBS)
# the join as a whole: skewed, out-of-order records of several threads
check_PROGRAMS += tests/unit/test_correlate
TESTS += tests/unit/test_correlate
tests_unit_test_correlate_SOURCES = tests/unit/test_correlate.c tests/unit/join_test_util.h
tests_unit_test_correlate_CFLAGS = $(VIEWER_TEST_CFLAGS)
tests_unit_test_correlate_LDADD = $(VIEWER_TEST_LIBS)
# NCCL's own records joined to the wrapped collectives, or standing in
check_PROGRAMS += tests/unit/test_plugin_join
TESTS += tests/unit/test_plugin_join
tests_unit_test_plugin_join_SOURCES = tests/unit/test_plugin_join.c
tests_unit_test_plugin_join_CFLAGS = $(VIEWER_TEST_CFLAGS)
tests_unit_test_plugin_join_LDADD = $(VIEWER_TEST_LIBS)
# which kernel names are communication, demangled and mangled (comm_kernels.h)
check_PROGRAMS += tests/unit/test_comm_kernels
TESTS += tests/unit/test_comm_kernels
tests_unit_test_comm_kernels_SOURCES = tests/unit/test_comm_kernels.c
tests_unit_test_comm_kernels_CFLAGS = $(VIEWER_TEST_CFLAGS)
tests_unit_test_comm_kernels_LDADD = $(VIEWER_TEST_LIBS)

# which NVTX ranges number iterations (ranges.c): named steps, not operators
check_PROGRAMS += tests/unit/test_ranges
TESTS += tests/unit/test_ranges
tests_unit_test_ranges_SOURCES = tests/unit/test_ranges.c
tests_unit_test_ranges_CFLAGS = $(VIEWER_TEST_CFLAGS)
tests_unit_test_ranges_LDADD = $(VIEWER_TEST_LIBS)

# the monitor's metrics text from aggregates fed directly (its own stubs
# for what the two files take from the rest of the tracer)
check_PROGRAMS += tests/unit/test_mon_prom
TESTS += tests/unit/test_mon_prom
tests_unit_test_mon_prom_SOURCES = tests/unit/test_mon_prom.c collector/mon_agg.h collector/mon_agg.c \
  collector/mon_gpu.h collector/mon_gpu.c \
  collector/mon_prom.h collector/mon_prom.c collector/ownfile.h collector/ownfile.c
tests_unit_test_mon_prom_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS) $(SQLITE_CFLAGS)
tests_unit_test_mon_prom_LDADD = $(SQLITE_LIBS) $(CRITERION_LIBS)

check_PROGRAMS += tests/unit/test_mon_gpu
TESTS += tests/unit/test_mon_gpu
tests_unit_test_mon_gpu_SOURCES = tests/unit/test_mon_gpu.c collector/mon_gpu.h collector/mon_gpu.c \
  collector/mon_agg.h collector/mon_agg.c
tests_unit_test_mon_gpu_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS) $(SQLITE_CFLAGS)
tests_unit_test_mon_gpu_LDADD = $(SQLITE_LIBS) $(CRITERION_LIBS)

# the dependency graph replayed: what-if predictions' engine
check_PROGRAMS += tests/unit/test_replay
TESTS += tests/unit/test_replay
tests_unit_test_replay_SOURCES = tests/unit/test_replay.c viewer/analyse/replay.h viewer/analyse/replay.c \
  viewer/analyse/replay_wake.c \
  viewer/analyse/whatif_joint.h viewer/analyse/whatif_joint.c \
  viewer/model/idmap.h viewer/model/idmap.c viewer/model/tmpstore.h viewer/model/tmpstore.c \
  viewer/model/tmpfiles.h viewer/model/tmpfiles.c
tests_unit_test_replay_CFLAGS = $(VIEWER_TEST_CFLAGS)
tests_unit_test_replay_LDADD = $(CRITERION_LIBS)

check_PROGRAMS += tests/unit/test_nest_claim
TESTS += tests/unit/test_nest_claim
tests_unit_test_nest_claim_SOURCES = tests/unit/test_nest_claim.c
tests_unit_test_nest_claim_CFLAGS = $(VIEWER_TEST_CFLAGS)
tests_unit_test_nest_claim_LDADD = $(VIEWER_TEST_LIBS)
# the JSON reader on a mapped plain file: across chunks, and a file that
# shrinks while it is read (import/json_stream.c)
check_PROGRAMS += tests/unit/test_json_map
TESTS += tests/unit/test_json_map
tests_unit_test_json_map_SOURCES = tests/unit/test_json_map.c import/json_stream.h import/json_stream.c
tests_unit_test_json_map_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS) $(ZLIB_CFLAGS)
tests_unit_test_json_map_LDADD = $(CRITERION_LIBS) $(ZLIB_LIBS) -lpthread

check_PROGRAMS += tests/unit/test_fdguard_std
TESTS += tests/unit/test_fdguard_std
tests_unit_test_fdguard_std_SOURCES = tests/unit/test_fdguard_std.c collector/fdguard.h collector/fdguard.c
tests_unit_test_fdguard_std_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_fdguard_std_LDADD = $(CRITERION_LIBS)

# liveness of a process without an end, each file by its own read moment
check_PROGRAMS += tests/unit/test_liveness
TESTS += tests/unit/test_liveness
tests_unit_test_liveness_SOURCES = tests/unit/test_liveness.c
tests_unit_test_liveness_CFLAGS = $(VIEWER_TEST_CFLAGS)
tests_unit_test_liveness_LDADD = $(VIEWER_TEST_LIBS)

# monitor mode's window in memory: what it keeps and lets go of
check_PROGRAMS += tests/unit/test_window
TESTS += tests/unit/test_window
tests_unit_test_window_SOURCES = tests/unit/test_window.c collector/window.h collector/window.c collector/ownfile.h \
  collector/ownfile.c collector/db.h collector/db.c format/block_codec.h format/block_codec.c collector/db_batch.h \
  collector/db_batch.c format/schema.h format/schema.c format/api_table.h format/api_table.c collector/boot_id.h \
  collector/boot_id.c collector/procfile.h collector/procfile.c
tests_unit_test_window_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS) $(SQLITE_CFLAGS)
tests_unit_test_window_LDADD = $(SQLITE_LIBS) $(CRITERION_LIBS)

# the model's names for GPU streams: told apart by their CUDA context
check_PROGRAMS += tests/unit/test_stream_keys
TESTS += tests/unit/test_stream_keys
tests_unit_test_stream_keys_SOURCES = tests/unit/test_stream_keys.c
tests_unit_test_stream_keys_CFLAGS = $(VIEWER_TEST_CFLAGS)
tests_unit_test_stream_keys_LDADD = $(VIEWER_TEST_LIBS)

# a window request is seen whole or not at all
check_PROGRAMS += tests/unit/test_requests
TESTS += tests/unit/test_requests
tests_unit_test_requests_SOURCES = tests/unit/test_requests.c collector/requests.h collector/requests.c
tests_unit_test_requests_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_requests_LDADD = $(CRITERION_LIBS)

# the text report's paragraphs
check_PROGRAMS += tests/unit/test_text_para
TESTS += tests/unit/test_text_para
tests_unit_test_text_para_SOURCES = tests/unit/test_text_para.c viewer/write/text_wrap.h viewer/write/text_wrap.c
tests_unit_test_text_para_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_text_para_LDADD = $(CRITERION_LIBS)
