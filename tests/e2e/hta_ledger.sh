#!/bin/sh
# hta_ledger.sh: runs hta_ledger.py (see there): the report's per-rank
# ledger against Holistic Trace Analysis on the real Kineto traces: HTA's
# figures as pinned in tests/data/traces/hta-figures.json, or with
# GPUTRACE_HTA_LIVE=1 (or GPUTRACE_HTA_PIN=FILE) from HTA itself, from the
# virtual environment hta_venv.sh makes (the pinned version).
set -eu
# HTA's figures do not depend on the build, and the report reads the same
# real traces under the sanitizers in ledger_traces.sh and import_hta.sh
if [ -n "${GT_SANITIZED:-}" ]; then
  echo "1..0 # SKIP HTA's figures do not depend on the build; the report reads these traces under the sanitizers in ledger_traces.sh"
  exit 0
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
b=${top_builddir:-.}
if [ "${GPUTRACE_HTA_LIVE:-}" = 1 ] || [ -n "${GPUTRACE_HTA_PIN:-}" ]; then
  . "${top_srcdir:-.}/tests/e2e/hta_venv.sh"
  exec python3 "${top_srcdir:-.}/tests/e2e/hta_ledger.py" "$b" "${top_srcdir:-.}" "$venv/bin/python"
fi
exec python3 "${top_srcdir:-.}/tests/e2e/hta_ledger.py" "$b" "${top_srcdir:-.}"
