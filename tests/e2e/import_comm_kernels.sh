#!/bin/sh
# import_comm_kernels.sh: runs import_comm_kernels.py (see there): the NCCL
# kernels of a real Kineto trace renamed into the other communication
# libraries' kernels must still count as communication.
set -eu
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
exec python3 "${top_srcdir:-.}/tests/e2e/import_comm_kernels.py" "${top_builddir:-.}" "${top_srcdir:-.}"
