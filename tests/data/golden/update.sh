#!/bin/sh
# update.sh [BUILD_DIR] [FIXTURE...]: rewrites the golden tests' expected
# outputs (README.md) from the report as it is now, for an intended change
# of what the report says: review `git diff tests/data/golden` before
# committing it.  BUILD_DIR defaults to the source tree's build/
# (scripts/build.sh); FIXTURE... to all of them.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
build=$top/build
if [ $# -gt 0 ] && [ -x "$1/gputrace-report" ]; then build=$1; shift; fi
top_builddir=$(cd "$build" && pwd) top_srcdir=$top exec sh "$top/tests/e2e/golden.sh" --update "$@"
