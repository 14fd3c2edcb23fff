#!/bin/sh
# report_hang.sh: how long a hang has lasted, and where the ranks that
# never reached it were (docs/report.md, comm.hang), on the hand-written
# recordings of tests/data/golden: the golden test holds their outputs
# byte for byte; this one says what in them matters, and checks the HTML
# page, which the golden test does not keep.
#   hand-hang_heartbeat: read while running; the wait runs to the
#     writers' heartbeats, 15 s after the last records (and to the last
#     records once the heartbeat table is gone: an older file);
#   hand-hang_places: the three places (a call in flight, an open NVTX
#     range, host code);
#   hand-window: monitor windows said at the top, the ranks no file holds,
#     the window's detail escaped in the HTML page;
#   gpu-h200-train_py (a PyTorch loop on an H200, world of one) as if
#     killed: a communicator of one rank waits for nobody, and NCCL runs
#     its collectives as copies of its own, with no kernel of NCCL's to
#     end: never a hang (every all-reduce of it was called one before).
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
g="$s/tests/data/golden"
rep="$b/gputrace-report"

load() { cat "$g/hand-schema.sql" "$g/$1/rows.sql" | sqlite3 "$tmp/$1.db"; }
# hang_fact DB EXPR: a Python expression over the comm.hang finding `h`
# and the report `r`, printed
hang_fact() {
  "$rep" --format json "$1" | python3 -c "
import json, sys
r = json.load(sys.stdin)
h = [f for f in r['findings'] if f['kind'] == 'comm.hang']
h = h[0] if h else {}
print(repr(($2)))"
}

load hand-hang_heartbeat
load hand-hang_places
load hand-window

db=$tmp/hand-hang_heartbeat.db
expect "the wait runs to the heartbeat, 15 s after the last records" "$(hang_fact "$db" "h.get('wait_ns')")" 15000000000
expect "rank 1, which never called it, named in host code since its last call (8.51 ms)" \
  "$(hang_fact "$db" "[(p['rank'], p['in'], p['since_ns']) for p in h.get('places', [])]")" "[(1, 'host', 8510000)]"
"$rep" "$db" > "$tmp/hb.txt"
if grep -q "rank 1 in host code since 8.51 ms into the run" "$tmp/hb.txt"; then ok "the text report names where rank 1 was"
else bad "the text report names where rank 1 was ($(grep -A4 comm.hang "$tmp/hb.txt"))"; fi
sqlite3 "$db" "DROP TABLE heartbeat"
expect "without a heartbeat table (an older file) the wait runs to the last records" \
  "$(hang_fact "$db" "h.get('wait_ns')")" 50000

db=$tmp/hand-hang_places.db
expect "the three places: a call in flight, the innermost open range, host code" \
  "$(hang_fact "$db" "[(p['rank'], p['in'], p.get('api'), p.get('callsite'), p.get('range'), p['since_ns']) for p in h['places']]")" \
  "[(1, 'call', 'cudaMemcpy', 'load_batch (train.py:88)', None, 8500000), (2, 'range', None, None, 'data_loading', 7500000), (3, 'host', None, None, None, 6510000)]"
"$rep" --html "$tmp/places.html" "$db" > /dev/null
if grep -q "rank 1 blocked in cudaMemcpy since 8.50 ms into the run, at load_batch (train.py:88); rank 2 in NVTX range data_loading" "$tmp/places.html"
then ok "the HTML page names the places"; else bad "the HTML page names the places"; fi

db=$tmp/hand-window.db
"$rep" "$db" > "$tmp/win.txt"
expect "the text report says first that these are monitor windows" "$(sed -n 2p "$tmp/win.txt" | cut -c1-40)" \
  "note: these are monitor windows, not who"
# (the request on a line of its own where the line would pass 100 columns)
if grep -A1 "rank 0 (pid 5000): 5000.00 to 20000.00 ms into the run (15000.00 ms), for hang$" "$tmp/win.txt" |
   grep -q "^        request hang-0001$"
then ok "each window's span, reason and request"; else bad "each window's span, reason and request ($(head -8 "$tmp/win.txt"))"; fi
# a request id of every length from 1 to 24: whole beside its word, on the
# window's line or one of its own, never the word alone at a line's end
# (ids of 1-2 characters were: the room was taken as 100 columns where the
# wrap leaves 92 after its indent), and no line past 100 columns
cp "$db" "$tmp/req.db"
alone=0 wide=0
for n in $(seq 24); do
  sqlite3 "$tmp/req.db" "update window set request = substr('abcdefghijklmnopqrstuvwxyz', 1, $n)"
  "$rep" "$tmp/req.db" > "$tmp/req.txt" 2> /dev/null
  grep -q "request$" "$tmp/req.txt" && alone=$((alone + 1))
  grep -Eq "(, request|^        request) $(printf '%.*s' $n abcdefghijklmnopqrstuvwxyz)$" "$tmp/req.txt" || alone=$((alone + 1))
  awk 'length($0) > 100 {bad = 1} END {exit !bad}' "$tmp/req.txt" && wide=$((wide + 1))
done
expect "a request id of each length 1-24: whole beside its word, within 100 columns" "$alone:$wide" "0:0"
if grep -q "no window of rank(s) 2, 3" "$tmp/win.txt"; then ok "the ranks no file holds, in the text"
else bad "the ranks no file holds, in the text"; fi
expect "the JSON's windows and missing ranks" \
  "$(hang_fact "$db" "[(w['rank'], w['reason'], w['from_ns'], w['at_ns'], w['cut_rows']) for w in r['run']['monitor_windows']], r['run']['missing_ranks']")" \
  "([(0, 'hang', 5000000000, 20000000000, 0), (1, 'hang', 5000000000, 20000000000, 1200)], [2, 3])"
expect "comm.hang in a window: the wait to the heartbeat, rank 1's place" \
  "$(hang_fact "$db" "h['wait_ns'], [(p['rank'], p['in'], p['since_ns']) for p in h['places']]")" \
  "(14989000000, [(1, 'host', 5008510000)])"
"$rep" --html "$tmp/win.html" "$db" > /dev/null
if grep -q '<div id="windows">' "$tmp/win.html" && grep -q "no window of rank(s) 2, 3" "$tmp/win.html"
then ok "the HTML page says these are windows, and the ranks missing"; else bad "the HTML page says these are windows"; fi
if grep -q "&lt;script&gt;alert(1)&lt;/script&gt;" "$tmp/win.html" && ! grep -q "<script" "$tmp/win.html"
then ok "the window's detail escaped in the HTML page"; else bad "the window's detail escaped in the HTML page"; fi
# a world of one, killed: its all-reduces have no kernel (NCCL's one-rank
# path), which read as "every member entered it and none finished it"
sqlite3 "$tmp/one.db" < "$s/tests/data/golden/gpu-h200-train_py/input.sql"
sqlite3 "$tmp/one.db" "update process set end_reason = NULL, exit_code = NULL, end_ns = NULL"
"$b/gputrace-report" --format json "$tmp/one.db" > "$tmp/one.json"
expect "a world of one, killed: the report ran" "$?" 0
expect "a world of one, killed: no comm.hang; its syncs still found" \
  "$(python3 -c 'import json, sys; k = [f["kind"] for f in json.load(open(sys.argv[1]))["findings"]]
print("comm.hang" in k, "sync.scalar_read" in k)' "$tmp/one.json")" "False True"
finish
