#!/bin/sh
# report_fuzz.sh: runs report_fuzz.py (see there) from the harness.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
exec python3 "${top_srcdir:-.}/tests/e2e/report_fuzz.py" "${top_builddir:-.}"
