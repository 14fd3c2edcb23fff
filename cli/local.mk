# cli: the gputrace command (record, merge, expand, import), a program of
# its own: it links the on-disk format (format/), the tracer's
# configuration (collector/config.c) and the importers, never the tracer.
bin_PROGRAMS += gputrace
gputrace_SOURCES = cli/gputrace.c cli/expand.h cli/expand.c format/db_guard.h format/db_guard.c format/row_block.h format/block_codec.h format/block_codec.c format/call_block.h \
  collector/config.h collector/config.c collector/say.h collector/say.c cli/outputs.h cli/outputs.c format/rundir.h format/rundir.c \
  format/ours.h format/ours.c common/printable.h common/printable.c \
  cli/merge.h cli/merge.c format/schema.h format/schema.c \
  cli/ask.h cli/ask.c collector/requests.h collector/requests.c cli/metrics.h cli/metrics.c collector/mon_prom.h \
  format/nvtx_block.h format/capi_block.h format/gpu_block.h format/nvtx_payload_sql.h
gputrace_CFLAGS = $(AM_CFLAGS) $(PRODUCT_WARN_CFLAGS) $(SQLITE_CFLAGS)
gputrace_LDADD = $(SQLITE_LIBS)
gputrace_CPPFLAGS = $(AM_CPPFLAGS) -DGT_LIBDIR='"$(libdir)"'
