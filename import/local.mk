# import: `gputrace import`, traces of other tools (Kineto JSON, Nsight
# Systems SQLite) written into our schema; linked into gputrace (the
# command) and gputrace-report (which imports such inputs itself).
IMPORT_SOURCES = import/import.h import/import.c import/json_stream.h import/json_stream.c import/json_tree.c \
  import/out_db.h import/out_db.c import/kineto.c import/kineto_map.h import/kineto_map.c import/nsys.c \
  format/api_ids.h format/api_table.h format/api_table.c format/cupti_cbids.h
gputrace_SOURCES += $(IMPORT_SOURCES) format/cupti_cbids.c common/term_text.h common/term_text.c
gputrace_CFLAGS += $(ZLIB_CFLAGS)
gputrace_LDADD += $(ZLIB_LIBS)
gputrace_report_SOURCES += $(IMPORT_SOURCES) viewer/read/import_inputs.h viewer/read/import_inputs.c \
  format/ours.h format/ours.c \
  viewer/write/import_notes.c format/schema.c
gputrace_report_CFLAGS += $(ZLIB_CFLAGS)
gputrace_report_LDADD += $(ZLIB_LIBS)
# the tests of the import, and the real traces they read (tests/data/traces/README.md)
EXTRA_DIST += tests/e2e/import_traces.sh tests/e2e/import_traces.py tests/e2e/import_fuzz.sh tests/e2e/import_fuzz.py \
  tests/e2e/import_roundtrip.sh tests/e2e/import_roundtrip.py tests/e2e/import_hta.sh tests/e2e/import_hta.py \
  tests/data/traces
# hostile inputs to the importers (issue 33's probe), listed here with the
# import's other tests
TESTS += tests/e2e/import_probe.sh
EXTRA_DIST += tests/e2e/import_probe.sh tests/e2e/import_probe.py
