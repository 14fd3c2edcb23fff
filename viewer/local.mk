# viewer: gputrace-report, which reads a database and never touches a GPU.
bin_PROGRAMS += gputrace-report
gputrace_report_SOURCES = \
  viewer/report_main.c viewer/term_text.h viewer/term_text.c viewer/out_paths.h viewer/out_paths.c viewer/db_open.h viewer/db_open.c collector/db_guard.h collector/db_guard.c viewer/model.h viewer/model_internal.h viewer/model.c viewer/load_proc.c viewer/correlate.h viewer/correlate.c viewer/cupti_calls.h viewer/cupti_calls.c viewer/timeline.h viewer/timeline.c viewer/idmap.h viewer/idmap.c viewer/sites.c viewer/ranges.c viewer/sort_by_time.h viewer/sort_by_time.c viewer/rowruns.h viewer/rowruns.c \
  viewer/proc_pass.h viewer/proc_report.h viewer/proc_report.c viewer/windows.h viewer/windows.c \
  viewer/findings.h viewer/findings.c viewer/analysis_sync.c viewer/analysis_gpu.c viewer/analysis_comm.c viewer/coll_spill.h viewer/coll_spill.c viewer/tmpstore.h viewer/tmpstore.c \
  viewer/summary.h viewer/summary.c viewer/kernel_summary.c viewer/failed_calls.c viewer/json.h viewer/json.c viewer/output.h viewer/output_text.c \
  viewer/output_json.c viewer/chrome_trace.c viewer/kineto_export.c collector/schema.h collector/row_block.h collector/call_block.h collector/nvtx_block.h \
  collector/capi_block.h collector/gpu_block.h collector/rundir.h collector/rundir.c
gputrace_report_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
gputrace_report_LDADD = $(SQLITE_LIBS)
