#!/bin/sh
# report_html_page.sh: runs report_html_page.py (see there): the HTML page's
# finding cards (one per problem), cost bars against the wall time, the
# step chart's axes and the heatmap's colour scale.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
exec python3 "${top_srcdir:-.}/tests/e2e/report_html_page.py" "${top_builddir:-.}" "${top_srcdir:-.}"
