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

# work in flight at a hand-over (hand-inflight_gap: the stretches' starts
# read back to it, viewer/read/gap_inflight.c), its second half 200 ms
# later, with a stream sync between the lost launches and the first
# hand-over (to 7.30 ms, or to the hand-over itself, 8.00: a cut could be
# made after it) and one at 13.00 ms, 207.5 ms before the second (the
# later calls' correlations above theirs): no window is cut within 100 ms
# before a hand-over, or at it, so read a window at a time (windows of 4
# rows: cut at 13.10 ms alone) it is the same as whole; and read again (a
# second host's rank makes the Chrome trace's pass read the windows
# again) the stretches are not read back twice, nor the lost launch left out
mi() { rm -f "$1"; sqlite3 "$1" < "$fix/hand-schema.sql" && sqlite3 "$1" < "$fix/hand-inflight_gap/rows.sql"; }
for end in 7300000 7997999; do
  mi "$tmp/infl.db"
  sqlite3 "$tmp/infl.db" "UPDATE cupti_api SET correlation = correlation + 100 WHERE correlation >= 14;
    UPDATE gpu_op SET correlation = correlation + 100 WHERE correlation >= 14;
    UPDATE api_call SET start_ns = start_ns + 200000000, end_ns = end_ns + 200000000 WHERE start_ns >= 12500000;
    UPDATE cupti_api SET start_ns = start_ns + 200000000, end_ns = end_ns + 200000000 WHERE start_ns >= 12500000;
    UPDATE gpu_op SET start_ns = start_ns + 200000000, end_ns = end_ns + 200000000 WHERE start_ns >= 12500000;
    UPDATE gpu_gap SET from_ns = from_ns + 200000000 WHERE idx = 1; UPDATE process SET end_ns = end_ns + 200000000;
    INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'),
    7200000, $end, 8192, 0, 0, 0, 0, 0, 0, 30, 0); INSERT INTO cupti_api VALUES(1, 1, 131, 100, 7200100, $end, 30, 0);
    INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'),
    13000000, 13100000, 8192, 0, 0, 0, 0, 0, 0, 31, 0); INSERT INTO cupti_api VALUES(1, 1, 131, 100, 13000100, 13095000, 31, 0);"
  whole=$("$b/gputrace-report" --format json "$tmp/infl.db" | python3 "$s/tests/e2e/report_gpu_gaps.py")
  got=$(GPUTRACE_REPORT_WINDOW_ROWS=4 "$b/gputrace-report" --format json "$tmp/infl.db" 2> "$tmp/infl.err" |
        python3 "$s/tests/e2e/report_gpu_gaps.py")
  expect "work in flight at a hand-over, a sync to $end ns, read in windows of 4 rows: as whole" \
    "$(grep -o 'read in [0-9]* windows' "$tmp/infl.err") $got" "read in 2 windows $whole"
  expect "work in flight at a hand-over, a sync to $end ns: its launch read back (1.00 ms)" \
    "$("$b/gputrace-report" --format json "$tmp/infl.db" | python3 -c '
import json, sys
print(json.load(sys.stdin)["ranks"][0]["gpu_gaps_inflight_ns"])')" "[1000000, 500000]"
done
sqlite3 "$tmp/infl.db" "INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name,
  cmdline, cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason, dropped_host,
  dropped_cupti, python_status, nvtx_status, nccl_plugin_status) SELECT 2, run_id, 'host2', 2000, 1, 0, 1, 0, gpu_name,
  cmdline, 'active', clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason, 0, 0, python_status,
  nvtx_status, nccl_plugin_status FROM process WHERE id = 1"
expect "work in flight at a hand-over, read again for a Chrome trace: read back once, its launches kept" \
  "$("$b/gputrace-report" --format json --chrome-trace "$tmp/infl.json" "$tmp/infl.db" | python3 -c '
import json, sys
print(json.load(sys.stdin)["ranks"][0]["gpu_gaps_inflight_ns"])') $(python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
print(sorted({e["args"]["call_id"] for e in ev if e.get("pid") == 0 and e.get("cat") == "cuda_api"} & {12, 13, 16}))' \
  "$tmp/infl.json")" "[1000000, 500000] [12, 13, 16]"

# the same with the first stretch given back at 6.50 ms, a device sync
# at 7.00 ms after it, and the process's first GPU work after the stretch
# (the first three calls gone, two device syncs before): the stretches
# between windows and before the first work are no idle either
mk "$tmp/v2.db"
sqlite3 "$tmp/v2.db" "UPDATE gpu_gap SET to_ns = 6500000 WHERE idx = 0;
  DELETE FROM api_call WHERE call_id = 12; DELETE FROM cupti_api WHERE correlation = 12;
  UPDATE api_call SET end_ns = 6000000 WHERE call_id = 14;
  INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaDeviceSynchronize'), 7000000, 7500000,
    0, 0, 0, 0, 0, 0, 3, 20, 0);
  INSERT INTO cupti_api VALUES(1, 1, 165, 100, 7000100, 7499900, 20, 0);"
cp "$tmp/v2.db" "$tmp/v4.db"
sqlite3 "$tmp/v4.db" "DELETE FROM api_call WHERE call_id IN (10, 11); DELETE FROM cupti_api WHERE correlation IN (10, 11);
  DELETE FROM gpu_op WHERE correlation IN (10, 11);
  INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaDeviceSynchronize'), 3000000, 3500000,
    0, 0, 0, 0, 0, 0, 3, 21, 0);
  INSERT INTO cupti_api VALUES(1, 1, 165, 100, 3000100, 3499900, 21, 0);"
for v in v2 v4; do
  expect "$v, read in windows of 1 row: the same findings and ledger as whole" \
    "$(GPUTRACE_REPORT_WINDOW_ROWS=1 "$b/gputrace-report" --format json "$tmp/$v.db" 2>/dev/null |
       python3 "$s/tests/e2e/report_gpu_gaps.py")" \
    "$("$b/gputrace-report" --format json "$tmp/$v.db" | python3 "$s/tests/e2e/report_gpu_gaps.py")"
done

# a sync only CUPTI saw (a static runtime's), across a take-back at 14.50
# ms: left out as a wrapped one is, no "remove it" for it
mk "$tmp/v7.db"
sqlite3 "$tmp/v7.db" "UPDATE process SET cupti_status = 'active';
  UPDATE gpu_gap SET from_ns = 13000000, to_ns = 14500000 WHERE idx = 1;
  DELETE FROM api_call WHERE call_id IN (17, 18, 19);
  INSERT INTO cupti_api VALUES(1, 1, 165, 100, 14000000, 14700000, 19, 0);"
expect "a CUPTI-only sync across a take-back: left out (the one at 12.10 ms alone is sync.redundant)" \
  "$("$b/gputrace-report" --format json "$tmp/v7.db" | python3 -c '
import json, sys
print([(f["kind"], f["count"]) for f in json.load(sys.stdin)["findings"] if f["kind"] == "sync.redundant"])')" \
  "[('sync.redundant', 1)]"

# a hang, and a profiler started 2.9 s into it to look at it: the hang is
# still the hang (a collective in flight into a stretch is excused only
# when the stretch began within 100 ms of it)
sqlite3 "$tmp/hang.db" < "$fix/sim-hang_inside/input.sql"
cp "$tmp/hang.db" "$tmp/hang_gap.db"
sqlite3 "$tmp/hang_gap.db" "CREATE TABLE IF NOT EXISTS gpu_gap(process_id INTEGER, idx INTEGER, from_ns INTEGER,
  to_ns INTEGER, PRIMARY KEY(process_id, idx)); INSERT INTO gpu_gap VALUES(1, 0, 16026000000000, 16027000000000);"
expect "a stretch seconds into a hang: the hang is still found" \
  "$("$b/gputrace-report" "$tmp/hang_gap.db" | grep -c comm.hang)" "$("$b/gputrace-report" "$tmp/hang.db" | grep -c comm.hang)"

# a rank that never entered a hung collective, with a stretch of 10 s in
# its wait: the hang's GPU idle there is not known, 10 s less
for g in 0 1; do
  rm -f "$tmp/hh$g.db"
  sqlite3 "$tmp/hh$g.db" < "$fix/hand-schema.sql" && sqlite3 "$tmp/hh$g.db" < "$fix/hand-hang_heartbeat/rows.sql"
done
sqlite3 "$tmp/hh1.db" "CREATE TABLE gpu_gap(process_id INTEGER, idx INTEGER, from_ns INTEGER, to_ns INTEGER,
  PRIMARY KEY(process_id, idx)); INSERT INTO gpu_gap VALUES(2, 0, 1000000000, 11000000000);"
hang_idle() { "$b/gputrace-report" --format json "$1" | python3 -c '
import json, sys
print(sum(f.get("gpu_idle_ns", 0) for f in json.load(sys.stdin)["findings"] if f["kind"] == "comm.hang"))'; }
expect "a hang: a stretch in the absent rank's wait is none of its GPU idle" \
  "$(( $(hang_idle "$tmp/hh0.db") - $(hang_idle "$tmp/hh1.db") ))" 10000000000

# steps with a stretch in them: the what-if says it is rough, and why (the
# graph has the host's time there, not the GPU's work: 0.945 ms a step
# "all fixed", where every step runs a 1 ms kernel)
rm -f "$tmp/ps.db"
sqlite3 "$tmp/ps.db" < "$fix/hand-schema.sql" && sqlite3 "$tmp/ps.db" < "$fix/hand-pinned_scalar/rows.sql"
sqlite3 "$tmp/ps.db" "CREATE TABLE gpu_gap(process_id INTEGER, idx INTEGER, from_ns INTEGER, to_ns INTEGER,
  PRIMARY KEY(process_id, idx)); INSERT INTO gpu_gap VALUES(1, 0, 7900000, 13100000);
  DELETE FROM gpu_op WHERE start_ns >= 7900000 AND start_ns < 13100000;"
expect "steps with a stretch: the what-if is rough, and says why" \
  "$("$b/gputrace-report" --format json "$tmp/ps.db" | python3 -c '
import json, sys
d = json.load(sys.stdin)
w = d["whatif"][0]
print(w["reliable"], "held CUPTI 5.2 ms" in w.get("rough_why", ""), d["whatif_job"]["reliable"],
      any(f.get("whatif", {}).get("reliable") for f in d["findings"]))')" "False True False False"
expect "... and each finding's gain line says that is why" \
  "$("$b/gputrace-report" "$tmp/ps.db" | tr '\n' ' ' | tr -s ' ' | grep -c "not recorded for a while (its own profiler held CUPTI), take it as rough")" 1

# a 4 ms stretch on rank 0 of sim-straggler (its kernels there gone):
# the collectives in it have no GPU start there, and their groups are left
# out of the straggler's count rather than every rank's arrival taken from
# the host's calls (rank 1's gpu.idle was lost to idle.peer, the
# straggler's waste grew to 147.21 ms)
sqlite3 "$tmp/st0.db" < "$fix/sim-straggler/input.sql"
cp "$tmp/st0.db" "$tmp/st1.db"
sqlite3 "$tmp/st1.db" "CREATE TABLE IF NOT EXISTS gpu_gap(process_id INTEGER, idx INTEGER, from_ns INTEGER,
  to_ns INTEGER, PRIMARY KEY(process_id, idx)); INSERT INTO gpu_gap VALUES(1, 0, 14641757000000, 14641761000000);
  DELETE FROM gpu_op WHERE process_id = 1 AND start_ns >= 14641757000000 AND start_ns < 14641761000000;"
others() { "$b/gputrace-report" --format json "$1" | python3 -c '
import json, sys
print(sorted((f["kind"], f["rank"], f["waste_ns"]) for f in json.load(sys.stdin)["findings"]
             if f["kind"] == "comm.straggler" or (f["kind"] == "gpu.idle" and f["rank"] != 0)))'; }
expect "a stretch on one rank: the straggler and the other ranks' idle as without it" \
  "$(others "$tmp/st1.db")" "$(others "$tmp/st0.db")"

# the same in a slowdown's split (mon-slowdown, a 117 ms stretch on rank
# 0 before the onset, its kernels there gone): the 20 collectives in it
# are left out of who was last, not read from the host's calls
sqlite3 "$tmp/sd.db" < "$fix/mon-slowdown/input.sql"
sqlite3 "$tmp/sd.db" "CREATE TABLE IF NOT EXISTS gpu_gap(process_id INTEGER, idx INTEGER, from_ns INTEGER,
  to_ns INTEGER, PRIMARY KEY(process_id, idx)); INSERT INTO gpu_gap VALUES(1, 0, 46448654000000, 46448770900000);
  DELETE FROM gpu_op WHERE process_id = 1 AND start_ns >= 46448654000000 AND start_ns < 46448770900000;"
expect "a slowdown's split: the collectives in a stretch left out" \
  "$("$b/gputrace-report" --format json "$tmp/sd.db" 2>/dev/null | python3 -c '
import json, sys
print(json.load(sys.stdin)["run"]["slowdown"]["collectives"])')" "[100, 120]"

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
