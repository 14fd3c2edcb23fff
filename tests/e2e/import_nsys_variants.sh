#!/bin/sh
# import_nsys_variants.sh: runs import_nsys_variants.py (see there): Nsight
# Systems exports as nsys writes them (driver names ending in _v2, event
# records, nsys 2024's META_DATA_EXPORT, open ranges).
set -eu
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
exec python3 "${top_srcdir:-.}/tests/e2e/import_nsys_variants.py" "${top_builddir:-.}" "${top_srcdir:-.}"
