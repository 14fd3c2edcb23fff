#!/bin/sh
# kineto_hta.sh: runs kineto_hta.py (see there) from the harness, with
# Holistic Trace Analysis installed from the Python package index into a
# virtual environment (hta_venv.sh: pinned; reused when it is there already).
set -eu
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
b=${top_builddir:-.}
. "${top_srcdir:-.}/tests/e2e/hta_venv.sh"
exec python3 "${top_srcdir:-.}/tests/e2e/kineto_hta.py" "$b" "${top_srcdir:-.}" "$venv/bin/python"
