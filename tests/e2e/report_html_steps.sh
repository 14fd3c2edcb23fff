#!/bin/sh
# report_html_steps.sh: runs report_html_steps.py (see there): the HTML
# page's step chart takes the ProfilerStep ranges, not operator ranges
# numbered by occurrence, and the page lists what was not checked.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
exec python3 "${top_srcdir:-.}/tests/e2e/report_html_steps.py" "${top_builddir:-.}" "${top_srcdir:-.}"
