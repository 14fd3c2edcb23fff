#!/bin/sh
# import_traces.sh: runs import_traces.py (see there): the real traces of
# tests/data/traces imported and reported, checked against what the raw
# traces say.
set -eu
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
exec python3 "${top_srcdir:-.}/tests/e2e/import_traces.py" "${top_builddir:-.}" "${top_srcdir:-.}"
