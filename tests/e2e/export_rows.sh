#!/bin/sh
# export_rows.sh: runs export_rows.py (see there): the Kineto
# export of processes without a rank, of sends and receives, and of a
# process on two GPUs, read back as HTA and our import read them.
set -eu
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
exec python3 "${top_srcdir:-.}/tests/e2e/export_rows.py" "${top_builddir:-.}" "${top_srcdir:-.}"
