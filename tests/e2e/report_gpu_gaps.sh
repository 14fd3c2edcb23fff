#!/bin/sh
# report_gpu_gaps.sh: a gpu_gap table (the stretches the program's own
# profiler held CUPTI: docs/schema.md) is untrusted input like any other.
# On hand-profiler_gaps' rows with a million hostile stretches besides
# (overlapping, never ended, backwards, negative, text, at the clock's
# ends) the report answers, in bounded time (each look-up a search, the
# stretches joined first), and says what the rows amount to; read a
# window at a time, the same as whole; and of a
# million small disjoint ones, those where the GPU idled are left out of
# its idle, those where it ran change nothing.
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
fix="$s/tests/data/golden"
mk() { rm -f "$1"; sqlite3 "$1" < "$fix/hand-schema.sql" && sqlite3 "$1" < "$fix/hand-profiler_gaps/rows.sql"; }

# read a window at a time (windows are cut where nothing is recorded: in a
# stretch, often), the same findings, costs and ledger as read whole
mk "$tmp/hand.db"
whole=$("$b/gputrace-report" --format json "$tmp/hand.db" | python3 "$s/tests/e2e/report_gpu_gaps.py")
for rows in 1 2 3 4; do
  expect "read in windows of $rows rows: the same findings and ledger as whole" \
    "$(GPUTRACE_REPORT_WINDOW_ROWS=$rows "$b/gputrace-report" --format json "$tmp/hand.db" 2>/dev/null |
       python3 "$s/tests/e2e/report_gpu_gaps.py")" "$whole"
done

mk "$tmp/hostile.db"
sqlite3 "$tmp/hostile.db" "WITH RECURSIVE c(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM c WHERE i < 1000000)
  INSERT INTO gpu_gap SELECT 1, i, 100000 + (i * 7919 % 16000000),
    CASE WHEN i % 997 = 0 THEN NULL WHEN i % 7 = 0 THEN -5
         ELSE 100000 + (i * 7919 % 16000000) + (i % 1000) END FROM c;
  INSERT INTO gpu_gap VALUES(1, -1, 'x', 'y'), (1, -2, 9223372036854775807, NULL),
    (1, -3, -9223372036854775807, 9223372036854775807), (2, -4, 1, 2), (1, -5, NULL, NULL);"
out=$("$b/gputrace-report" --format json "$tmp/hostile.db" 2> "$tmp/err")
expect "a million hostile stretches: the report answers" "$? $(wc -l < "$tmp/err")" "0 0"
expect "... its JSON says where the records end: the first stretch never ended" \
  "$(printf '%s' "$out" | python3 -c '
import json, sys
r = json.load(sys.stdin)["ranks"][0]
print(r["gpu_gaps_ns"][-1][1], r["gpu_records_until_ns"] > 0)')" "None True"

# 250,000 stretches of 1 ns where the GPU idled (3.00-4.00 ms) and 700,000
# where it ran K4 (10.60-12.00 ms): not_recorded is the first stretch's
# 5 ms and the idle ones' 250,000 ns; where it ran, it ran
mk "$tmp/many.db"
sqlite3 "$tmp/many.db" "DELETE FROM gpu_gap WHERE idx = 1;
  WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 249999)
  INSERT INTO gpu_gap SELECT 1, 2 + i, 3000000 + i * 4, 3000000 + i * 4 + 1 FROM c;
  WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 699999)
  INSERT INTO gpu_gap SELECT 1, 300000 + i, 10600000 + i * 2, 10600000 + i * 2 + 1 FROM c;"
expect "950,000 small stretches: those where the GPU idled are not_recorded, not those where it ran" \
  "$("$b/gputrace-report" --format json "$tmp/many.db" | python3 -c '
import json, sys
d = json.load(sys.stdin)
b = {x["bucket"]: x["ns"] for x in d["ledger"][0]["buckets"]}
print(len(d["ranks"][0]["gpu_gaps_ns"]), b["not_recorded"], b["compute"], sum(b.values()) == d["ledger"][0]["life_ns"])')" \
  "950001 5250000 4390000 True"

finish
