#!/bin/sh
# report_open_ranges.sh: a range still open where the records end reaches
# past what its thread's ranges began and ended inside it
# (viewer/model/ranges.c, open_ranges_reach).  hand-orphan_ranges' eight
# steps, no end of the process (a window's, a killed rank's), and a ninth
# step still open whose forward ended, stored, after the last call the
# process recorded: the open step reached just past the forward's start,
# and the forward, inside it, was cut there (1 ns of its 6 ms).
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
g="$s/tests/data/golden"
sed -e "s/1700000000000000000, 100000, 110000000, 0, 'exit'/1700000000000000000, 100000, NULL, NULL, NULL/" \
    -e 's/WHERE i < 9/WHERE i < 7/' -e 's/CASE WHEN i < 8 THEN 1 ELSE 0 END/1/' "$g/hand-orphan_ranges/rows.sql" > "$tmp/rows.sql"
cat >> "$tmp/rows.sql" <<'SQL'
INSERT INTO nvtx_range VALUES(1, 100, 1, 0, 3, 0, 81000000, NULL, 0, NULL, NULL);
INSERT INTO nvtx_range VALUES(1, 100, 1, 0, 4, 0, 81500000, 87500000, 1, NULL, NULL);
SQL
cat "$g/hand-schema.sql" "$tmp/rows.sql" | sqlite3 "$tmp/run.db" || skip_all "the fixture does not load"
"$b/gputrace-report" --chrome-trace "$tmp/c.json" "$tmp/run.db" > /dev/null 2>&1
got=$(python3 - "$tmp/c.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
print(" ".join("%s@%.1f+%.1f" % (e["name"], e["ts"], e["dur"]) for e in ev
               if e.get("ph") == "X" and e["name"] in ("train_step", "forward") and e["ts"] > 80000))
PY
)
expect "the open step holds its ended forward, whole" "$got" "train_step@80900.0+6500.0 forward@81400.0+6000.0"
finish
