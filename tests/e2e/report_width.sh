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
finish
