#!/bin/sh
# import_hta.sh: runs import_hta.py (see there) from the harness, with
# Holistic Trace Analysis from the virtual environment hta_venv.sh makes
# (the pinned version kineto_hta.sh uses too).
set -eu
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
b=${top_builddir:-.}
. "${top_srcdir:-.}/tests/e2e/hta_venv.sh"
exec python3 "${top_srcdir:-.}/tests/e2e/import_hta.py" "$b" "${top_srcdir:-.}" "$venv/bin/python"
