#!/bin/sh
# import_roundtrip.sh: runs import_roundtrip.py (see there) from the harness.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
exec python3 "${top_srcdir:-.}/tests/e2e/import_roundtrip.py" "${top_builddir:-.}" "${top_srcdir:-.}"
