#!/bin/sh
# import_no_gpu.sh: runs import_no_gpu.py (see there): real traces without
# their GPU records (CUPTI's range profiler, an export without its GPU tables)
# get the note and no analysis that needs GPU times.
set -eu
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
exec python3 "${top_srcdir:-.}/tests/e2e/import_no_gpu.py" "${top_builddir:-.}" "${top_srcdir:-.}"
