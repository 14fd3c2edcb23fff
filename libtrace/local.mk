# libtrace + collector: libgputrace.so, what runs inside the traced program.
lib_LTLIBRARIES += libgputrace.la
libgputrace_la_SOURCES = \
  format/api_ids.h format/record.h collector/state.h collector/state.c collector/say.h collector/say.c collector/visibility.h collector/hash.h \
  collector/clock.h collector/clock.c collector/config.h collector/config.c common/printable.h common/printable.c common/utf8.h \
  collector/procfile.h collector/procfile.c \
  collector/tbuf.h collector/tbuf.c collector/callsite.h collector/callsite.c \
  collector/intern.h format/row_block.h format/block_codec.h format/block_codec.c format/call_block.h format/nvtx_block.h format/capi_block.h format/gpu_block.h format/nvtx_payload_sql.h collector/strtab.h collector/strtab.c collector/pyframes.h collector/pyframes.c collector/pylayout.h collector/pylayout.c \
  collector/modules.h collector/modules.c \
  format/schema.h format/schema.c format/api_table.h format/api_table.c collector/db.h collector/db.c collector/db_batch.h collector/db_batch.c collector/boot_id.h collector/boot_id.c \
  collector/cupti_sub.h collector/cupti_sub.c collector/cupti_work.h collector/cupti_work.c collector/plugin_ring.h collector/plugin_ring.c collector/plugin_store.h collector/plugin_store.c collector/fdguard.h collector/fdguard.c collector/xfsz.h collector/writer.h collector/writer_int.h collector/writer.c collector/writer_rows.c collector/writer_ctl.c collector/stage.h collector/stage.c collector/membudget.h collector/membudget.c \
  collector/monitor.h collector/monitor.c collector/mon_agg.h collector/mon_agg.c collector/mon_gpu.h collector/mon_gpu.c collector/mon_prom.h collector/mon_prom.c collector/ownfile.h collector/ownfile.c collector/window.h collector/window.c collector/requests.h collector/requests.c \
  libtrace/trace.h libtrace/real.h libtrace/real.c libtrace/wrap_dl.c libtrace/inject.c libtrace/cupti_calls.h libtrace/cupti_calls.c libtrace/lifecycle.h libtrace/activate.c libtrace/signals.c libtrace/exec_exit.c libtrace/record_end.c \
  libtrace/memreg.h libtrace/memreg.c libtrace/commreg.h libtrace/commreg.c libtrace/p2p_seq.h libtrace/p2p_seq.c \
  libtrace/per_thread_decls.h libtrace/wrap_runtime.c libtrace/wrap_memory.c libtrace/wrap_driver.c libtrace/wrap_nccl.c \
  libtrace/nccl_comm.h libtrace/nccl_comm.c libtrace/wrap_nccl_comm.c libtrace/wrap_nccl_mem.c \
  libtrace/nvtx_inject.h libtrace/nvtx_inject.c libtrace/nvtx_payload.h libtrace/nvtx_payload.c \
  libtrace/wrap_fd.c libtrace/wrap_cupti.c \
  libtrace/nccl_profiler_abi.h libtrace/nccl_profiler.h libtrace/nccl_profiler.c libtrace/nccl_profiler_v.c libtrace/nccl_profiler_env.c
# Compiled with default visibility, the wrappers not marked one by one; the
# link exports exactly libtrace/exports.map (made from exports.map.in and
# the API list): the wrappers and entry points; every other symbol is local.
libgputrace_la_CFLAGS = $(AM_CFLAGS) $(PRODUCT_WARN_CFLAGS) $(SQLITE_CFLAGS) -fvisibility=default
libgputrace_la_LIBADD = $(SQLITE_LIBS) -ldl
libgputrace_la_LDFLAGS = $(AM_LDFLAGS) -avoid-version -shared \
  -Wl,--version-script=libtrace/exports.map -Wl,--no-undefined-version
EXTRA_libgputrace_la_DEPENDENCIES = libtrace/exports.map
libtrace/exports.map: $(srcdir)/libtrace/exports.map.in $(srcdir)/format/api_ids.h
	$(AM_V_GEN)$(MKDIR_P) libtrace && \
	  $(CC) -E -P -x c -imacros $(srcdir)/format/api_ids.h $(srcdir)/libtrace/exports.map.in > $@-t && mv $@-t $@
CLEANFILES += libtrace/exports.map
EXTRA_DIST += libtrace/exports.map.in

