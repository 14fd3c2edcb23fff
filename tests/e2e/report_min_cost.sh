#!/bin/sh
# report_min_cost.sh: findings that cost less than --min-cost are not
# shown (text, HTML) nor counted by --fail-on, and the text says how many
# it left out; JSON lists them, marked below_min_cost; the default is 1 ms,
# or 0.5% of the longest process's wall time where that is less; a finding
# that cost nothing (0.00 ms) is never high confidence.  Input: the
# hand-written syncs fixture (tests/data/golden/hand-syncs, 22 ms: a
# default of 0.11 ms), whose sync.redundant cost 0.00 ms and whose
# copy.serialized had its time charged to copy.pageable.
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
rep="$b/gputrace-report"
g="$s/tests/data/golden"
db="$tmp/syncs.db"
cat "$g/hand-schema.sql" "$g/hand-syncs/rows.sql" | sqlite3 "$db"
"$rep" "$db" > "$tmp/default.txt"
expect "the default leaves out the two findings of 0.00 ms, and says so" \
  "$(grep -c '^ *[0-9]*\. ' "$tmp/default.txt"):$(grep -c 'sync.redundant\|copy.serialized ' "$tmp/default.txt"):$(grep -c '^(2 more finding(s), per rank, cost less than --min-cost 0.11 ms' "$tmp/default.txt")" \
  "6:0:1"
"$rep" --min-cost 0 "$db" > "$tmp/all.txt"
expect "--min-cost 0 shows them all, with no line about it" \
  "$(grep -c '^ *[0-9]*\. ' "$tmp/all.txt"):$(grep -c 'more finding(s)' "$tmp/all.txt")" "8:0"
"$rep" --min-cost 3 "$db" > "$tmp/3.txt"
expect "--min-cost 3 shows the two that cost 3 ms or more" "$(grep -c '^ *[0-9]*\. ' "$tmp/3.txt")" 2
"$rep" --fail-on sync.redundant "$db" > /dev/null 2>&1
expect "--fail-on does not count a finding under --min-cost" "$?" 0
"$rep" --fail-on sync.redundant --min-cost 0 "$db" > /dev/null 2>&1
expect "--fail-on counts it with --min-cost 0" "$?" 3
"$rep" --min-cost 3 --fail-on sync.no_consumer "$db" > /dev/null 2>&1
expect "--fail-on honours an explicit --min-cost too" "$?" 0
"$rep" --min-cost 0 --format json "$db" > "$tmp/all.json"
"$rep" --format json "$db" > "$tmp/default.json"
expect "JSON lists every finding, those under --min-cost marked; none of 0.00 ms is high confidence" \
  "$(python3 -c 'import json, sys
a, d = (json.load(open(p))["findings"] for p in sys.argv[1:3])
below = sorted(f["kind"] for f in d if f.get("below_min_cost"))
zero_high = [f["kind"] for f in a if f["cost_ns"] < 5000 and f["confidence"] == "high"]
print(len(a), len(d), ",".join(below), len(zero_high))' "$tmp/all.json" "$tmp/default.json")" \
  "8 8 copy.serialized,sync.redundant 0"
# sim-p2p_ring's comm.exposed at one site cost 0.00 ms (its time charged
# to others) on 40 collectives, repeated, on GPU times: once "high"
sqlite3 "$tmp/p2p.db" < "$g/sim-p2p_ring/input.sql"
expect "a finding of 0.00 ms is not high confidence, whatever its kind's rule" "$("$rep" --min-cost 0 --format json \
  "$tmp/p2p.db" | python3 -c 'import json, sys
fs = json.load(sys.stdin)["findings"]
print(sum(f["cost_ns"] < 5000 for f in fs) > 0, sum(f["cost_ns"] < 5000 and f["confidence"] == "high" for f in fs))')" \
  "True 0"
"$rep" --html "$tmp/r.html" "$db" > /dev/null
expect "the HTML page shows the same six, and says two were left out" \
  "$(grep -o 'class="finding"' "$tmp/r.html" | wc -l | tr -d ' '):$(grep -c '2 more finding(s), per rank, cost less than --min-cost 0.11 ms' "$tmp/r.html")" "6:1"
"$rep" --min-cost -1 "$db" > /dev/null 2> "$tmp/err"
expect "a negative --min-cost is bad usage" "$?" 2
expect "--help documents --min-cost and its default" "$("$rep" --help | grep -c -e '--min-cost MS' -e '0.5% of the longest')" 2
finish
