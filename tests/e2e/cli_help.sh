#!/bin/sh
# cli_help.sh: `gputrace record --help` prints record's own usage (its
# line, what it does, its options and settings), not every command's;
# `gputrace --help` still lists every command; a bad option to record
# shows record's usage.
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
"$b/gputrace" record --help > "$tmp/record" 2>&1
expect "record --help exits 0" "$?" 0
expect "record --help: record's line first, no other command" \
  "$(head -n 1 "$tmp/record" | cut -c1-22):$(grep -c -e '^ *gputrace dump' -e '^ *gputrace merge' -e '^ *gputrace import' "$tmp/record")" \
  "usage: gputrace record:0"
expect "record --help: its options and settings" \
  "$(grep -c -e '^  -o RUN' -e '^  --monitor' -e '^  GPUTRACE_CUPTI=' "$tmp/record")" 3
"$b/gputrace" --help > "$tmp/all" 2>&1
expect "gputrace --help: every command" \
  "$(grep -c -e '^usage: gputrace record' -e '^ *gputrace dump' -e '^ *gputrace merge' -e '^ *gputrace import' "$tmp/all")" 4
"$b/gputrace" record --no-such-option > /dev/null 2> "$tmp/bad"
expect "record with a bad option: exit 2, record's usage" \
  "$?:$(head -n 1 "$tmp/bad"):$(grep -c '^ *gputrace dump' "$tmp/bad")" \
  "2:gputrace record: unknown option '--no-such-option':0"
# merge and expand: their own help on stdout, exit 0 (it was "usage",
# exit 2, as for a wrong call); a wrong call still exit 2
for c in merge expand; do
  "$b/gputrace" $c --help > "$tmp/out" 2> "$tmp/err"
  expect "$c --help: exit 0, its usage first on stdout, nothing on stderr" \
    "$?:$(head -n 1 "$tmp/out" | cut -d' ' -f1-3):$(wc -l < "$tmp/out" | awk '{print ($1 > 3)}'):$(wc -c < "$tmp/err")" \
    "0:usage: gputrace $c:1:0"
done
"$b/gputrace" merge > /dev/null 2>&1
expect "merge with no arguments: exit 2" "$?" 2
finish
