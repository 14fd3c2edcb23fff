#!/bin/sh
# import_kineto_args.sh: runs import_kineto_args.py (see there): a
# Kineto trace's NCCL kernels and metadata read as PyTorch and Kineto write
# them (sends and receives numbered apart, distributedInfo after the
# events, all_to_allv, a host pid as small as a device's).
set -eu
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
exec python3 "${top_srcdir:-.}/tests/e2e/import_kineto_args.py" "${top_builddir:-.}"
