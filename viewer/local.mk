# viewer: gputrace-report, which reads a database and never touches a GPU.
# Its rooms follow the data: read/ (databases into the model), model/ (the
# in-memory run and its indexes), analyse/ (findings and summaries), write/
# (text, JSON, Chrome and Kineto traces); the driver sits at the top.
bin_PROGRAMS += gputrace-report
gputrace_report_SOURCES = \
  viewer/report_main.c viewer/proc_pass.h viewer/proc_report.h viewer/proc_report.c \
  viewer/read/db_open.h viewer/read/db_open.c viewer/read/load_run.c viewer/read/load_proc.c \
  viewer/read/correlate.h viewer/read/correlate.c viewer/read/cupti_calls.h viewer/read/cupti_calls.c \
  viewer/read/plugin_join.h viewer/read/plugin_join.c viewer/analyse/hang_depth.h viewer/analyse/hang_depth.c \
  viewer/read/sort_by_time.h viewer/read/sort_by_time.c viewer/read/rowruns.h viewer/read/rowruns.c \
  viewer/read/windows.h viewer/read/windows.c \
  viewer/model/model.h viewer/model/model_internal.h viewer/model/timeline.h viewer/model/timeline.c \
  viewer/model/idmap.h viewer/model/idmap.c viewer/model/sites.c viewer/model/ranges.c \
  viewer/model/tmpstore.h viewer/model/tmpstore.c \
  viewer/analyse/findings.h viewer/analyse/findings.c viewer/analyse/analysis_sync.c \
  viewer/analyse/analysis_gpu.c viewer/analyse/analysis_comm.c viewer/analyse/coll_spill.h \
  viewer/analyse/coll_spill.c viewer/analyse/summary.h viewer/analyse/summary.c \
  viewer/analyse/kernel_summary.c viewer/analyse/failed_calls.c \
  viewer/write/term_text.h viewer/write/term_text.c viewer/write/out_paths.h viewer/write/out_paths.c \
  viewer/write/json.h viewer/write/json.c viewer/write/output.h viewer/write/output_text.c \
  viewer/write/output_json.c viewer/write/chrome_trace.c viewer/write/kineto_export.c \
  collector/db_guard.h collector/db_guard.c collector/schema.h collector/row_block.h \
  collector/call_block.h collector/nvtx_block.h collector/capi_block.h collector/gpu_block.h \
  collector/rundir.h collector/rundir.c
gputrace_report_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
gputrace_report_LDADD = $(SQLITE_LIBS)
