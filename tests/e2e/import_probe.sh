#!/bin/sh
# import_probe.sh: runs import_probe.py (see there): hostile inputs to the
# importers and to the report on what they read.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
exec python3 "${top_srcdir:-.}/tests/e2e/import_probe.py" "${top_builddir:-.}" "${top_srcdir:-.}"
