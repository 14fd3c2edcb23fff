#!/bin/sh
# report_join_static.sh: the join of a static build's calls, traced through
# the driver's injection (CUPTI's callbacks recorded its syncs, copies and
# frees; only CUPTI's records list the rest), on a recording where the join
# moved CUPTI's records by different offsets on either side of a stretch's
# edge (tests/data/joins/cu_overlapped_static.sql: cu_overlapped_static, a
# database of this tracer with its paths and host name taken out).  There
# the report lost 19 of 85 cudaEventRecord calls only CUPTI saw, each taken
# for a call that the record before it made, by moved times (a record
# nested in another is compared in CUPTI's own clock now; 13 to 27 calls
# lost on every recording of it made here), and when the event sync was moved early, as a
# wrong offset between the two clocks moves it, the cudaEventRecord CUPTI
# made just before it came after it and the sync waited for an event never
# recorded (the calls only CUPTI saw are put in CUPTI's order of calls among
# the joined ones now: viewer/read/cupti_order.c).
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
fixture="${top_srcdir:-.}/tests/data/joins/cu_overlapped_static.sql"
sqlite3 "$tmp/st.db" < "$fixture"
# the report's calls of one API (its Kineto export's cuda_runtime events)
calls_of() { rm -rf "$tmp/k"; "$b/gputrace-report" --kineto "$tmp/k" "$1" > /dev/null && python3 -c '
import glob, json, sys
ev = json.load(open(glob.glob(sys.argv[1] + "/*.json")[0]))["traceEvents"]
print(sum(e.get("cat") == "cuda_runtime" and e["name"] == sys.argv[2] for e in ev))' "$tmp/k" "$2"; }
unplaced() { "$b/gputrace-report" --format json "$1" | python3 -c '
import json, sys
print(" ".join(str(r["unscoped_syncs"]) for r in json.load(sys.stdin)["ranks"]))'; }
# each runtime record of an API no callback recorded is a call of its own
for api in cudaEventRecord:135 cudaEventQuery:138 cudaStreamWaitEvent:147 __cudaLaunchKernel:505; do
  expect "every ${api%:*} CUPTI recorded is a call" "$(calls_of "$tmp/st.db" "${api%:*}")" \
    "$(q "$tmp/st.db" "select count(*) from cupti_api where domain = 1 and cbid = ${api#*:}")"
done
expect "the event sync placed" "$(unplaced "$tmp/st.db")" 0
# the event sync's call moved earlier by nine tenths of its gap to the
# call before it on its thread
cp "$tmp/st.db" "$tmp/moved.db"
qw "$tmp/moved.db" "update api_call set start_ns = start_ns - (select (s.start_ns - max(c.end_ns)) * 9 / 10
  from api_call s join api a on a.id = s.api and a.name = 'cudaEventSynchronize' join api_call c
  on c.tid = s.tid and c.end_ns < s.start_ns) where api in (select id from api where name = 'cudaEventSynchronize')"
expect "the event sync moved early: still placed" "$(unplaced "$tmp/moved.db")" 0
expect "the event sync moved early: every cudaEventRecord still a call" "$(calls_of "$tmp/moved.db" cudaEventRecord)" \
  "$(q "$tmp/st.db" "select count(*) from cupti_api where domain = 1 and cbid = 135")"
finish
