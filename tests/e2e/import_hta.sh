#!/bin/sh
# import_hta.sh: runs import_hta.py (see there) from the harness, with
# Holistic Trace Analysis from the virtual environment kineto_hta.sh makes
# (the same pinned version; made here if missing).
set -eu
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
b=${top_builddir:-.}
venv=${GPUTRACE_HTA_VENV:-$b/hta-venv}
HTA_VERSION=0.5.0
if ! "$venv/bin/python" -c "import hta, sys; sys.exit(hta.__version__ != '$HTA_VERSION')" 2>/dev/null; then
  echo "installing holistictraceanalysis==$HTA_VERSION into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "holistictraceanalysis==$HTA_VERSION"
fi
exec python3 "${top_srcdir:-.}/tests/e2e/import_hta.py" "$b" "${top_srcdir:-.}" "$venv/bin/python"
