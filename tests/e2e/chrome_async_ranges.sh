#!/bin/sh
# chrome_async_ranges.sh: NVTX ranges in the Chrome trace as Perfetto reads
# them.  A push/pop range nests, and is a complete slice ("X") on its
# thread; a start/end range (nvtxRangeStart/End, Nsight Systems' kind 60)
# may cross others by design, and Perfetto drops a complete slice that
# crosses another on its track (slice_drop_overlapping_complete_event), so
# it is an async slice of its process ("b" and "e", one id).  Neither is
# cut by the report's repair of crossing push/pop ranges (their clock:
# viewer/model/ranges.c): the phases and the trace keep both lengths.  The hand-written
# syncs fixture, with a push/pop range "step" at 3.5-9 ms and a start/end
# range "prefetch" at 8-12.5 ms on its thread (both in gaps between its
# calls: a range that cut a call would cross it).
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
g="$s/tests/data/golden"
{ cat "$g/hand-schema.sql" "$g/hand-syncs/rows.sql"
  echo "INSERT INTO label VALUES(1, 901, 'step'), (1, 902, 'prefetch');"
  echo "INSERT INTO nvtx_range VALUES(1, 100, 1, 0, 901, 0, 3500000, 9000000, 0, 1, NULL);"
  echo "INSERT INTO nvtx_range VALUES(1, 100, 2, 0, 902, 0, 8000000, 12500000, 0, 2, NULL);"; } | sqlite3 "$tmp/r.db"
timeout 30 "$b/gputrace-report" --format json --chrome-trace "$tmp/t.json" "$tmp/r.db" > "$tmp/r.json" 2> "$tmp/err"
expect "the report runs" "$?:$(cat "$tmp/err")" "0:"
expect "the Chrome trace: the push/pop range a complete slice, the start/end range a b/e pair of one process-scoped id" \
  "$(python3 -c 'import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
step = [(e["ph"], e["ts"], e.get("dur")) for e in ev if e.get("name") == "step" and e.get("cat") == "nvtx"]
pre = [e for e in ev if e.get("name") == "prefetch" and e.get("cat") == "nvtx"]
# one id, scoped to the process (id2.local; Perfetto takes a plain "id" as
# global, and two ranks'"'"' ranges of one name and index would share a track)
ids = {json.dumps(e.get("id2")) for e in pre if "id" not in e and set(e.get("id2", {})) == {"local"}}
pair = sorted(e["ph"] for e in pre) == ["b", "e"] and len(ids) == 1
span = [e["ts"] for e in sorted(pre, key=lambda e: e["ph"])]
print(step[0][0], round(step[0][2], 3), pair, round(span[1] - span[0], 3) if pair else None)' "$tmp/t.json")" \
  "X 5500.0 True 4500.0"
expect "... and no complete slice crosses another on its track" "$(python3 -c 'import json, sys, collections
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
tracks = collections.defaultdict(list)
for e in ev:
    if e.get("ph") == "X":
        tracks[(e["pid"], e["tid"])].append((round(e["ts"] * 1000), round((e["ts"] + e.get("dur", 0)) * 1000)))
bad = 0
for v in tracks.values():
    v.sort(key=lambda x: (x[0], -x[1]))
    stack = []
    for a, b in v:
        while stack and stack[-1] <= a:
            stack.pop()
        bad += bool(stack and b > stack[-1])
        stack.append(b)
print(bad)' "$tmp/t.json")" 0
expect "the phases: step whole (5.5 ms), not cut where prefetch starts" "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print([(p["name"], p["wall_ns"]) for p in d["phases"] if p["name"] == "step"])' "$tmp/r.json")" \
  "[('step', 5500000)]"
finish
