#!/bin/sh
# import_fuzz.sh: runs import_fuzz.py (see there) from the harness.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
exec python3 "${top_srcdir:-.}/tests/e2e/import_fuzz.py" "${top_builddir:-.}" "${top_srcdir:-.}"
