#!/bin/sh
# import_collective_args.sh: runs import_collective_args.py (see there): a
# Kineto trace's NCCL kernels read as PyTorch writes their args (sends and
# receives numbered apart, distributedInfo after the events, all_to_allv).
set -eu
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
exec python3 "${top_srcdir:-.}/tests/e2e/import_collective_args.py" "${top_builddir:-.}"
