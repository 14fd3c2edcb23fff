#!/bin/sh
# kineto_roundtrip_golden.sh: runs kineto_roundtrip_golden.py (see there) from the harness.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
exec python3 "${top_srcdir:-.}/tests/e2e/kineto_roundtrip_golden.py" "${top_builddir:-.}" "${top_srcdir:-.}"
