# viewer: gputrace-report, which reads a database and never touches a GPU.
# Its rooms follow the data: read/ (databases into the model), model/ (the
# in-memory run and its indexes), analyse/ (findings and summaries), write/
# (text, JSON, Chrome and Kineto traces); the driver sits at the top.
bin_PROGRAMS += gputrace-report
gputrace_report_SOURCES = \
  viewer/report_main.c viewer/report_cli.h viewer/report_cli.c viewer/proc_report.h viewer/proc_report.c viewer/huge_pages.h viewer/huge_pages.c \
  viewer/read/db_open.h viewer/read/db_open.c viewer/read/load_internal.h viewer/read/load_run.c viewer/read/load_threads.h viewer/read/load_threads.c viewer/read/load_proc.c viewer/read/load_colls.h viewer/read/load_colls.c viewer/read/boot_ids.c viewer/read/gap_inflight.h viewer/read/gap_inflight.c viewer/read/monitor_windows.c viewer/read/monitor_run.c \
  viewer/read/correlate.h viewer/read/correlate.c viewer/read/nest_claim.h viewer/read/nest_claim.c viewer/read/join_clock.h viewer/read/join_clock.c viewer/read/cupti_calls.h viewer/read/cupti_calls.c viewer/read/legacy_streams.h viewer/read/legacy_streams.c viewer/read/cupti_order.h viewer/read/cupti_order.c format/cupti_cbids.h format/cupti_cbids.c \
  viewer/read/plugin_join.h viewer/read/plugin_join.c viewer/write/plugin_notes.h viewer/write/plugin_notes.c viewer/read/plugin_ce.h viewer/read/plugin_ce.c viewer/read/nccl_ce_calls.h viewer/read/nccl_ce_calls.c viewer/read/sync_records.h viewer/read/sync_records.c viewer/read/source_text.h viewer/read/source_text.c viewer/analyse/hang_depth.h viewer/analyse/hang_depth.c viewer/analyse/hang_place.h viewer/analyse/hang_place.c \
  viewer/model/sort_by_time.h viewer/model/sort_by_time.c viewer/read/rowruns.h viewer/read/rowruns.c \
  viewer/read/windows.h viewer/read/windows.c viewer/read/load.h viewer/read/load_ranges.c viewer/read/stack_text.c viewer/read/symbolize.h viewer/read/symbolize.c \
  viewer/model/model.h viewer/model/timeline.h viewer/model/timeline.c \
  viewer/model/handles.h viewer/model/stream_map.h viewer/model/stream_map.c viewer/model/stream_keys.h viewer/model/stream_keys.c viewer/model/idmap.h viewer/model/idmap.c viewer/model/api.c viewer/model/sites.c viewer/model/ranges.c viewer/model/steps.h viewer/model/steps.c viewer/model/liveness.c viewer/model/ivals.c \
  viewer/model/tmpstore.h viewer/model/tmpstore.c viewer/model/tmpfiles.h viewer/model/tmpfiles.c \
  viewer/analyse/findings.h viewer/analyse/findings.c viewer/analyse/finding_marks.c viewer/analyse/analysis_sync.c viewer/analyse/analysis_setup.h viewer/analyse/analysis_setup.c \
  viewer/analyse/stream_deps.h viewer/analyse/stream_deps.c viewer/analyse/proc_pass.h viewer/analyse/proc_pass.c viewer/analyse/passes.h viewer/analyse/passes.c \
  viewer/analyse/attribution.h viewer/analyse/attribution.c viewer/analyse/straggler_place.c \
  viewer/analyse/replay.h viewer/analyse/replay.c viewer/analyse/replay_wake.c viewer/analyse/whatif.c \
  viewer/analyse/whatif_int.h viewer/analyse/whatif_paths.c \
  viewer/analyse/whatif_joint.h viewer/analyse/whatif_joint.c viewer/analyse/whatif_job.c \
  viewer/analyse/ledger.h viewer/analyse/ledger.c viewer/analyse/ledger_int.h viewer/analyse/ledger_resolve.c viewer/analyse/ledger_gpus.c viewer/analyse/slowdown.h viewer/analyse/slowdown.c viewer/analyse/finding_steps.c viewer/analyse/host_blocked.h viewer/analyse/host_blocked.c \
  viewer/write/charges_out.h viewer/write/charges_out.c viewer/write/ledger_out.h viewer/write/ledger_out.c viewer/write/whatif_out.h viewer/write/whatif_out.c viewer/write/text_wrap.h viewer/write/text_wrap.c viewer/write/whatif_html.c viewer/write/devices_out.h viewer/write/devices_out.c \
  viewer/analyse/analysis_gpu.c viewer/analyse/analysis_comm.c viewer/analyse/coll_spill.h \
  viewer/analyse/coll_spill.c viewer/analyse/summary.h viewer/analyse/summary.c \
  viewer/analyse/kernel_summary.c viewer/analyse/failed_calls.c \
  common/term_text.h common/term_text.c viewer/write/out_paths.h viewer/write/out_paths.c \
  viewer/write/out_file.h viewer/write/out_file.c viewer/write/input_notes.h viewer/write/input_notes.c viewer/write/window_notes.h viewer/write/window_notes.c viewer/write/slowdown_out.h viewer/write/slowdown_out.c viewer/write/monitor_notes.h viewer/write/monitor_notes.c \
  viewer/write/json.h viewer/write/json.c viewer/write/output.h viewer/write/output_text.c \
  viewer/write/output_json.c viewer/write/finding_out.h viewer/write/finding_json.c viewer/write/finding_text.c viewer/write/unknown_comm.h viewer/write/unknown_comm.c viewer/write/order_notes.h viewer/write/order_notes.c viewer/analyse/order_match.h viewer/analyse/order_match.c viewer/model/comm_kernels.h viewer/model/comm_kernels.c viewer/write/chrome_trace.c viewer/write/kineto_export.c \
  viewer/write/html.h viewer/write/html_report.c viewer/write/html_charts.c viewer/write/html_tables.c \
  format/db_guard.h format/db_guard.c format/schema.h format/row_block.h format/block_codec.h format/block_codec.c \
  format/call_block.h format/nvtx_block.h format/capi_block.h format/gpu_block.h \
  format/rundir.h format/rundir.c
gputrace_report_CFLAGS = $(AM_CFLAGS) $(PRODUCT_WARN_CFLAGS) $(SQLITE_CFLAGS)
gputrace_report_LDADD = $(SQLITE_LIBS)
# the hosts' clocks aligned from the collectives, point-to-point pairs
gputrace_report_SOURCES += viewer/analyse/clock_align.h viewer/analyse/clock_align.c \
  viewer/write/output_crossrank.h viewer/write/output_crossrank.c viewer/trace_pass.h viewer/trace_pass.c \
  viewer/analyse/analysis_p2p.h viewer/analyse/analysis_p2p.c
# the processes on several workers, merged in process order
gputrace_report_SOURCES += viewer/proc_jobs.h viewer/proc_jobs.c viewer/analyse/findings_merge.c \
  viewer/analyse/summary_merge.c viewer/write/chrome_writer.h viewer/write/chrome_part.h viewer/write/chrome_part.c
gputrace_report_LDADD += -lm
# The report's objects in one archive, for the unit tests of its parts on
# synthetic records (tests/unit/local.mk): each test links the real code
# it calls, the linker taking from the archive only what is needed.  The
# archive holds report_main.o too (automake cannot leave one source out of
# a list); a test links Criterion's library before the archive, so that
# main is Criterion's and report_main.o is never taken.
check_LIBRARIES += viewer/libreport.a
viewer_libreport_a_SOURCES = $(gputrace_report_SOURCES)
viewer_libreport_a_CFLAGS = $(gputrace_report_CFLAGS)
