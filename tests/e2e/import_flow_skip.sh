#!/bin/sh
# import_flow_skip.sh: a Kineto flow event ("ph": "s" or "f") has the rest
# of it skipped unparsed as soon as its "ph" is read, but only where that
# rest lies in the reader's buffer: a trace cut short inside a flow stops
# with the message the parse gives there (the skipper would say "inside a
# value"), and the events read before it are counted as they were.  And a
# whole trace's flows still count as events, nothing made of them.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
gt="$b/gputrace"
kernel='{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2,"args":{"device":0,"stream":7,"correlation":1}}'
flow='{"ph": "f", "id": 1, "pid": 0, "tid": 7, "ts": 1, "cat": "ac2g", "name": "ac2g", "bp": "e"}'
printf '{"traceEvents":[%s,\n%s,\n%s]}\n' "$kernel" "$flow" "$flow" > "$tmp/whole.json"
"$gt" import -q -o "$tmp/whole.db" "$tmp/whole.json" 2> "$tmp/err"
expect "a trace with flows: imported" "$?:$(sqlite3 "$tmp/whole.db" 'SELECT count(*) FROM gpu_op')" "0:1"

# cut inside the last flow, after a member and its comma: the parse's
# words (a member's name was due), not the skipper's
printf '{"traceEvents":[%s,\n%s,\n%s' "$kernel" "$flow" '{"ph": "f", "id": 1, "pid": 0, ' > "$tmp/cut.json"
"$gt" import -q -o "$tmp/cut.db" "$tmp/cut.json" 2> "$tmp/err"
rc=$?
expect "cut inside a flow: a partial import" "$rc" "1"
if grep -q "truncated: the file ends where '\"' was due" "$tmp/err" &&
   ! grep -q "inside a value" "$tmp/err"; then
  ok "cut inside a flow: the parse's message, not the skipper's"
else
  bad "cut inside a flow: the parse's message, not the skipper's ($(head -1 "$tmp/err"))"
fi
expect "cut inside a flow: the events before it counted" \
  "$(sqlite3 "$tmp/cut.db" "SELECT count(*) FROM import_note WHERE note LIKE '%; 2 events before it were read'")" "1"
finish
