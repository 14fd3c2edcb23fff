#!/bin/sh
# import_jobs.sh: runs import_jobs.py (see there): traces of two jobs in
# one directory are two runs, told apart in one line.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
exec python3 "${top_srcdir:-.}/tests/e2e/import_jobs.py" "${top_builddir:-.}" "${top_srcdir:-.}"
