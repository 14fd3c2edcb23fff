#!/bin/sh
# report_single.sh: a single process that no launcher gave a rank (a plain
# `gputrace record -- ./prog`) is named by its pid, never "rank -1", and
# not as "all ranks" or "across ranks": the rank columns read "-" beside
# its pid, its findings "pid N", the headers drop "all ranks"; a GPU whose
# name was not recorded is named by its device number, not "-".  Input:
# the hand-written syncs fixture (tests/data/golden/hand-syncs) with its
# rank, world and GPU name taken out, as such a run leaves them.
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
g="$s/tests/data/golden"
db="$tmp/single.db"
{ cat "$g/hand-schema.sql" "$g/hand-syncs/rows.sql"
  echo "UPDATE process SET rank = NULL, local_rank = NULL, world_size = NULL, gpu_name = NULL;"; } | sqlite3 "$db"
"$b/gputrace-report" --html "$tmp/r.html" "$db" > "$tmp/r.txt" 2> "$tmp/err"
expect "the report of a single unranked process exits 0" "$?" 0
expect "no \"rank -1\", \"all ranks\" or \"across ranks\" in the text" \
  "$(grep -c -e 'rank -1' -e 'all ranks' -e 'across ranks' "$tmp/r.txt")" 0
expect "its rows read \"-\" for the rank, beside its pid and its GPU's number" \
  "$(grep -c '^-     1000     GPU 0 ' "$tmp/r.txt")" 1
expect "its findings name it by its pid" \
  "$(grep -c '^ *[0-9]*\. [a-z._]* *pid 1000 ' "$tmp/r.txt")" "$(grep -c '^ *[0-9]*\. ' "$tmp/r.txt")"
expect "what its findings account for names it by its pid" "$(grep -c '^  pid 1000: 10.8 of ' "$tmp/r.txt")" 1
expect "no \"rank -1\" or \"across ranks\" in the HTML page" \
  "$(grep -c -e 'rank -1' -e 'across ranks' -e '<td>-1</td>' "$tmp/r.html")" 0
expect "the page's findings name it by its pid" "$(grep -o 'on pid 1000</h3>' "$tmp/r.html" | wc -l | tr -d ' ')" \
  "$(grep -o 'class="finding"' "$tmp/r.html" | wc -l | tr -d ' ')"
finish
