#!/bin/sh
# report_slowdown.sh: a slowdown's window split at the moment its slow
# steps began (docs/report.md, "A slowdown's window") as the words of its
# window rows give it: the golden fixture mon-slowdown's windows with
# those words and the request's name changed, as a damaged or hand-made
# file may have them.  Words that place no onset get no split and no
# error; a requester none of the files is, the onset on the realtime
# clock; an onset after every collective, nothing to compare.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
rep="$b/gputrace-report"
src="$s/tests/data/golden/mon-slowdown/input.sql"

# variant NAME SQL: the fixture with SQL applied, as $tmp/NAME.db
variant() {
  rm -f "$tmp/$1.db"
  sqlite3 "$tmp/$1.db" < "$src" && sqlite3 "$tmp/$1.db" "$2"
}
# split NAME: exit status, then run.slowdown's requester, changed rank
# and collectives (or "none")
split() {
  "$rep" --format json "$tmp/$1.db" > "$tmp/$1.json" 2> "$tmp/$1.err"
  rc=$?
  python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["run"].get("slowdown")
print("none" if s is None else "%s %s %s" % (s["requester_rank"], s["changed_rank"], s["collectives"]))' "$tmp/$1.json" 2>&1 |
    sed "s/^/$rc /"
}

variant as_is "select 1"
expect "as recorded: split, rank 1 asked and is named" "$(split as_is)" "0 1 1 [120, 120]"
# where rank 1's time went: the 8 ms a step of host work planted in its
# forward range (tests/apps/slowdown.c), outside any traced call
"$rep" --format json "$tmp/as_is.db" 2>/dev/null | python3 -c '
import json, sys
g = json.load(sys.stdin)["run"]["slowdown"]["grown_range"]
grew, calls = (g["step_ns"][1] - g["step_ns"][0]) / 1e6, (g["calls_ns"][1] - g["calls_ns"][0]) / 1e6
print(g["rank"], g["name"], 7.5 < grew < 8.5, abs(calls) < 0.1)' > "$tmp/range.out" 2>&1
expect "... its steps grew in range forward by the planted 8 ms, none of it in calls" "$(cat "$tmp/range.out")" "1 forward True True"
# ... and not in a range outside the steps: rank 1's drain after the loop
# made 300 ms long (its process's end with it) is no step's time
variant drain "select 1" && "$b/gputrace" expand "$tmp/drain.db" > /dev/null &&
  sqlite3 "$tmp/drain.db" "update nvtx_range set end_ns = start_ns + 300000000 where process_id = 2 and depth = 0
                             and name = (select id from label where process_id = 2 and value = 'drain');
                           update process set end_ns = end_ns + 300000000 where id = 2"
"$rep" --format json "$tmp/drain.db" 2>/dev/null | python3 -c '
import json, sys
print(json.load(sys.stdin)["run"]["slowdown"]["grown_range"]["name"])' > "$tmp/drain.out" 2>&1
expect "... a 300 ms drain after the loop is no step's: still forward" "$(cat "$tmp/drain.out")" "forward"
"$rep" --html "$tmp/as_is.html" "$tmp/as_is.db" > /dev/null 2>&1
expect "... the HTML page's table, rank 1's row marked" \
  "$(grep -o '<div id="slowdown">.*</div>' "$tmp/as_is.html" | grep -o '<tr class=hot><td>[0-9]*</td>')" "<tr class=hot><td>1</td>"

# the realtime clock stepped 60 ms ahead of the requester's own between
# its start and its trigger (a time service's correction): the request's
# name says a moment 60 ms later than its clock offset gives.  The requester's own window row's onset_ns (its clock)
# places the split as recorded; without it the split moves with the step
late="update window set request = replace(request, '1796554044208-', '1796554044268-')"
variant stepped "$late; alter table window add column onset_ns integer;
  update window set onset_ns = (1796554044208 * 1000000 - 330819000) - (select clock_offset_ns from process where id = 2)
  where process_id = 2"
expect "a realtime step after the requester began: its own clock's onset splits as recorded" \
  "$(split stepped)" "0 1 1 [120, 120]"
variant stepped_words "$late"
expect "... without it, the realtime onset moves with the step (the check's own control)" \
  "$(split stepped_words | grep -c '\[120, 120\]')" 0

words() { variant "$1" "update window set detail = replace(detail, 'began 330.819 ms before the request', '$2')"; }
for bad in "began -3 ms before the request" "began 1e300 ms before the request" "began nan ms before the request" \
           "began 330.819 ms before the" "began ms before the request" "began 330.819 ms"; do
  words bad "$bad"
  expect "words '$bad': no split, no error" "$(split bad)" "0 none"
done
variant noname "update window set request = 'slowdown-host-16385'"
expect "a request's name without its moment: no split" "$(split noname)" "0 none"
variant huge "update window set request = '99999999999999999999-slowdown-host-16385'"
expect "a request's moment past any clock: no split" "$(split huge)" "0 none"

variant wrap "update window set request = replace(request, '1796554044208-', '7000000000000-'),
                              detail = replace(detail, 'began 330.819 ms', 'began 1 ms');
              update process set clock_offset_ns = -4000000000000000000 where pid = 16385"
expect "an onset past any clock the model holds: no split, no error" "$(split wrap)" "0 none"

# rank 1, which asked, on a host of its own whose realtime clock reads 50
# ms ahead (the request's moment too): its clock is aligned to rank 0's
# from the collectives, and the split is the recording's, its steps too
variant hosts "update process set host = 'hostB', clock_offset_ns = clock_offset_ns + 50000000 where pid = 16385;
               update window set request = replace(request, '1796554044208-slowdown-host-', '1796554044258-slowdown-hostB-')"
"$rep" --format json "$tmp/hosts.db" 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin)["run"]["slowdown"]
print(s["requester_rank"], s["changed_rank"], [(r["rank"], r["steps"], r["first_slow_step"]) for r in s["ranks"]],
      s["grown_range"]["name"])' > "$tmp/hosts.out" 2>&1
expect "a requester on another host, its clock 50 ms ahead: the same split" "$(cat "$tmp/hosts.out")" \
  "1 1 [(0, [30, 30], 31), (1, [30, 30], 31)] forward"

# every rank slowed alike (tests/apps/slowdown.c, APP_SLOW_RANK=all): one
# of them is always a little later than before (rank 0 0.04 -> 0.26 ms a
# collective, under 1 ms a step of the 8 ms the steps grew by): no rank is
# named; where the steps grew is said of the requester's
alike="$s/tests/data/golden/mon-slowdown_alike/input.sql"
rm -f "$tmp/alike.db"; sqlite3 "$tmp/alike.db" < "$alike"
"$rep" --format json "$tmp/alike.db" 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin)["run"]["slowdown"]
print(s["changed_rank"], s["grown_range"]["rank"] == s["requester_rank"], s["grown_range"]["name"])' > "$tmp/alike.out" 2>&1
expect "every rank slowed alike: none named, the requester's steps grew in forward" "$(cat "$tmp/alike.out")" "None True forward"
"$rep" --html "$tmp/alike.html" "$tmp/alike.db" > /dev/null 2>&1
grep -q '<p>No rank made the others wait longer in the slow steps: every rank slowed down alike\. Rank [01].s steps. time grew most in range <code>forward</code>' "$tmp/alike.html"
expect "... and so does the HTML page, no row marked" "$?:$(grep -c 'class=hot' "$tmp/alike.html")" "0:0"

variant other "update window set request = replace(request, '-host-16385', '-host-99999')"
expect "a requester none of the files is: the onset on the realtime clock, rank 1 named" "$(split other)" "0 None 1 [120, 120]"

variant late "update window set detail = replace(detail, 'began 330.819 ms', 'began 0 ms'),
                              request = replace(request, '1796554044208-', '1796554054208-')"
expect "an onset after every collective: nothing from then on, none named" "$(split late)" "0 1 None [240, 0]"
"$rep" "$tmp/late.db" > "$tmp/late.txt" 2>&1
grep -q "^=> no collective of every rank's window is from then on: nothing to compare" "$tmp/late.txt"
expect "... and the text says there is nothing to compare" "$?" 0

finish
