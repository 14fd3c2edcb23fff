#!/bin/sh
# report_width.sh: the text report's lines that name things of any length
# keep within 100 columns: golden.sh checks every fixture as it is, this
# the lines no fixture reaches.  sim-scalar_read (4 ranks, sync.scalar_read
# on each) with its ranks numbered far apart (a finding's "summed over"
# line lists them, and a list has no space to wrap at: cut to fit, ",...")
# and its range named at length (wrapped under "in").
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
rep="$b/gputrace-report"
g="${top_srcdir:-.}/tests/data/golden"
db="$tmp/w.db"
sqlite3 "$db" < "$g/sim-scalar_read/input.sql"
sqlite3 "$db" "update process set rank = 100000000 + 10000000 * (id - 1);
               update label set value = 'the loss read back for logging every step, as the tutorial does it, and printed beside the learning rate'
               where value = 'log_loss'"
"$rep" "$db" > "$tmp/w.txt" 2> "$tmp/w.err"
expect "the report of far-apart ranks and a long range name exits 0" "$?" 0
summed=$(grep -c '^    summed over 4 ranks' "$tmp/w.txt")
expect "... a finding's rank list cut to fit ($summed lines)" \
  "$(awk '/^    summed over 4 ranks \(.*,\.\.\.\), the most on rank/ && length($0) <= 100' "$tmp/w.txt" | wc -l | tr -d ' ')" \
  "$summed"
# each "in" line of the range, and the line after it where it wrapped
expect "... the range's name under \"in\", wrapped within 100 columns" \
  "$(awk '/^    in   the loss read back/ {n++; w = 1} w && length($0) > 100 {bad++} !/^    in / {w = 0}
          END {print (n > 0) ":" bad + 0}' "$tmp/w.txt")" "1:0"
expect "... the findings' headers: the rank list cut to fit" \
  "$(grep -c '^ *[0-9]*\. [a-z._]* *ranks 100000000,110000000,' "$tmp/w.txt"):$(grep '^ *[0-9]*\. ' "$tmp/w.txt" | awk 'length($0) > 100' | wc -l | tr -d ' ')" \
  "3:0"
# a run's id of any length (an imported file's name) on the first line
sqlite3 "$db" "update run set id = 'an-imported-trace-named-after-its-host-its-job-and-the-day-it-ran-' || id;
               update process set run_id = 'an-imported-trace-named-after-its-host-its-job-and-the-day-it-ran-' || run_id"
"$rep" "$db" > "$tmp/r.txt" 2> /dev/null
expect "a long run id: the first line within 100 columns" \
  "$(sed -n 1p "$tmp/r.txt" | grep -c '^gputrace report: run an-imported-trace'):$(head -n 2 "$tmp/r.txt" | awk 'length($0) > 100' | wc -l | tr -d ' ')" \
  "1:0"
# a damaged file's note: its path, SQLite's error and what was being
# read (149 columns once), wrapped under "note: "
d="$tmp/job-12345-of-a-scheduler-with-long-names"
mkdir -p "$d"
cp "$db" "$d/damaged.db"
root=$(sqlite3 "$d/damaged.db" "select rootpage from sqlite_master where name = 'api_call'")
psize=$(sqlite3 "$d/damaged.db" "pragma page_size")
printf '\377\377\377\377\377\377\377\377' | dd of="$d/damaged.db" bs=1 seek=$(( (root - 1) * psize )) conv=notrunc 2> /dev/null
"$rep" "$d/damaged.db" > "$tmp/d.txt" 2> /dev/null
expect "a damaged file's note, wrapped within 100 columns" \
  "$(awk '/^note: .*damaged.db/ {n++; if (length($0) > 100) bad++; w = 1; next} w && /^      / {if (length($0) > 100) bad++; next} {w = 0}
          /^note: / && length($0) > 100 {bad++} END {print (n > 0) ":" bad + 0}' "$tmp/d.txt")" "1:0"
# wide FILE: its lines past 100 columns, a call site's ("    at ") left out
wide() { awk 'length($0) > 100 && !/^    at /' "$1" | wc -l | tr -d ' '; }
# the slow steps' grown range named at length (its lead continues the
# line before: "   slowdown is; its steps' time grew most in range ...")
long=forward_pass_of_the_transformer_blocks_with_activation_checkpointing_on
for f in mon-slowdown mon-slowdown_alike; do
  sqlite3 "$tmp/$f.db" < "$g/$f/input.sql"
  sqlite3 "$tmp/$f.db" "update label set value = '$long' where value = 'forward'"
  "$rep" "$tmp/$f.db" > "$tmp/$f.txt" 2> /dev/null
  expect "$f: the grown range named at length, within 100 columns" \
    "$(grep -c "^   forward_pass_of_the_transformer" "$tmp/$f.txt"):$(wide "$tmp/$f.txt")" "1:0"
done
# the inputs' notes: a run directory's file with no trace, named at
# length, and a second run whose ids are long
mkdir "$tmp/dir"
sqlite3 "$tmp/dir/w.db" < "$g/sim-scalar_read/input.sql"
: > "$tmp/dir/rank-0-of-a-job-whose-scheduler-names-its-files-after-everything-it-knows.db"
"$rep" "$tmp/dir" > "$tmp/s.txt" 2> /dev/null
expect "a file of no trace named at length: its note within 100 columns" \
  "$(grep -c "^      rank-0-of-a-job-whose" "$tmp/s.txt"):$(wide "$tmp/s.txt")" "1:0"
rm "$tmp/dir/rank-0-"*
sqlite3 "$tmp/dir/w.db" "update run set start_ns = start_ns + 1000000000"
sqlite3 "$tmp/dir/r.db" < "$g/sim-scalar_read/input.sql"
sqlite3 "$tmp/dir/r.db" "update run set id = 'another-run-of-the-same-job-recorded-into-this-directory-' || id;
  update process set run_id = 'another-run-of-the-same-job-recorded-into-this-directory-' || run_id"
"$rep" "$tmp/dir" > "$tmp/o.txt" 2> /dev/null
expect "two runs of long ids: the note within 100 columns" \
  "$(grep -c '^note: the inputs hold 2 runs' "$tmp/o.txt"):$(wide "$tmp/o.txt")" "1:0"
finish
