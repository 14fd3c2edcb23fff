#!/bin/sh
# tracer_std_fds.sh: errno and the standard descriptors as the program
# finds them untraced (tests/apps/std_fds.c; docs/tracer-guarantees.md):
# - errno at main: the tracer's load-time constructors (realpath's
#   readlink) left EINVAL there;
# - a program started with stdin closed: SQLite, opening the tracer's file,
#   put /dev/null on fd 0 for good (read(0) then returned 0 where it was
#   EBADF, and the program's next open got fd 11 where it got 0);
# - fd 2 a pipe whose reader is gone, or a file at RLIMIT_FSIZE: the
#   tracer's own line on stderr ("tracing is off", or an environment
#   variable's warning) raised SIGPIPE or SIGXFSZ, and killed the program
#   (exit 141 or 153) at its first CUDA call, traced only.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
export GPUTRACE_ONE_FILE=1
lib="$(cd "$b/.libs" && pwd)/libgputrace.so"
app="$b/tests/apps/std_fds"
traced() { GPUTRACE_OUTPUT="$tmp/t.db" LD_PRELOAD="$lib" "$@"; }

expect "errno at main, traced as untraced" "$(traced "$app" errno 2> /dev/null)" "$("$app" errno)"
rm -f "$tmp/t.db"*
expect "stdin closed: read(0) and the next open, traced as untraced" \
  "$(traced "$app" stdin <&- 2> /dev/null)" "$("$app" stdin <&- 2> /dev/null)"
expect "stdin closed: the trace was written" "$(q "$tmp/t.db" "select count(*) > 0 from process")" 1

# an output the tracer cannot write: it says so on stderr, a dead pipe
touch "$tmp/afile"
out=$(GPUTRACE_OUTPUT="$tmp/afile/x.db" LD_PRELOAD="$lib" "$app" pipe 2> /dev/null); rc=$?
expect "stderr a pipe with no reader, the tracer's line on it: the program runs on" "$rc:$out" "0:done"
# and an environment variable's warning, at start
out=$(GPUTRACE_FLUSH_MS=5 traced "$app" pipe 2> /dev/null); rc=$?
expect "stderr a pipe with no reader, a warning on it: the program runs on" "$rc:$out" "0:done"
# stderr a file at the size limit
head -c 4096 /dev/zero > "$tmp/err"
rc_of() { (ulimit -f 4; "$@" > /dev/null 2>> "$tmp/err"; echo $?); }
expect "stderr a file at RLIMIT_FSIZE, the tracer's line on it: the exit status untraced's" \
  "$(GPUTRACE_OUTPUT="$tmp/afile/x.db" LD_PRELOAD="$lib" rc_of "$app" stdin < /dev/null)" "$(rc_of "$app" stdin < /dev/null)"
finish
