#!/bin/sh
# import_order_match.sh: runs import_order_match.py (see there): NCCL
# kernels without collective args, matched across ranks by kernel order
# once the match is checked.
set -eu
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
exec python3 "${top_srcdir:-.}/tests/e2e/import_order_match.py" "${top_builddir:-.}" "${top_srcdir:-.}"
