#!/bin/sh
# boot_id.sh: two machines with one host name are two hosts.  The process
# row records the kernel's boot id (process.boot_id, docs/schema.md); the
# report groups ranks by (host name, boot id), so the clock alignment fits
# the second machine's clock instead of taking it for the first's.  The
# simulator puts rank 1 on a machine of its own with the same name
# (GPUSIM_HOSTNAME for all, GPUSIM_BOOT_ID for rank 1) whose realtime clock
# is 200 ms ahead: far beyond what a loaded machine's scheduling moves (a
# 5 ms shift was found 3.9 ms off, and a rank the load held back was a
# true straggler, in 6 runs of 10 beside 4 busy loops).  Files without the column (written before it) still read,
# and the tracer adds the column to such a file it appends to.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
export GPUSIM_LIB="$b/tests/sim/.libs/libgpusim.so"
gt="$b/gputrace"
run="$b/tests/sim/gpusim-run"
other=0b0e0000-0000-4000-8000-00000000000b
real=$(cat /proc/sys/kernel/random/boot_id)

GPUSIM_HOSTNAME=simhost GPUSIM_BOOT_ID="1:$other" GPUSIM_CLOCK_SHIFT_NS=1:200000000 \
  "$gt" record -f -o "$tmp/two" -- "$run" -n 4 "$b/tests/apps/overlapped" > /dev/null 2>&1
expect "overlapped, rank 1 on another machine named alike: runs" $? 0
expect "each process row holds its machine's boot id: rank 1 the simulated one, the others this machine's" \
  "$(q "$tmp/two" "select group_concat(rank || '=' || (case boot_id when '$other' then 'other' when '$real' then 'real' else boot_id end), ' ') from (select rank, boot_id from process order by rank)")" \
  "0=real 1=other 2=real 3=real"
"$b/gputrace-report" --format json "$tmp/two" > "$tmp/two.json"
expect "the report reads it" $? 0
hosts() { # the hosts of a report's clock alignment, and the findings the shift would make:
  # rank 1 a straggler by about the shift, at every step, or a mismatch or hang
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = d["clock_alignment"]
print(c["hosts_total"], sorted((h["host"], h["ranks"], h["reference"] or (h["aligned"] and abs(h["offset_ns"] - 200e6) < 20e6)) for h in c["hosts"]),
      sorted(set(f["kind"] for f in d["findings"] if f["kind"] in ("comm.mismatch", "comm.hang") or
                 (f["kind"] == "comm.straggler" and f.get("straggler_rank") == 1 and
                  (f.get("per_iteration") or {}).get("median_ns", 0) > 100e6))))' "$1"
}
expect "two hosts of one name: rank 1's is aligned to the reference (its 200 ms found, +-20), no false straggler" \
  "$(hosts "$tmp/two.json")" "2 [('simhost', '0,2-3', True), ('simhost', '1', True)] []"
"$b/gputrace-report" "$tmp/two" > "$tmp/two.txt"
expect "the text report tells the two apart by their boot ids" \
  "$(grep -c "^simhost (boot 0b0e0000) *1 " "$tmp/two.txt") $(grep -c "^simhost (boot ${real%%-*}) *0,2-3 " "$tmp/two.txt")" "1 1"

# a file from before the column: read as before, hosts told apart by name only
GPUTRACE_ONE_FILE=1 GPUSIM_HOSTNAME=simhost "$gt" record -f -o "$tmp/old.db" -- "$run" -n 2 "$b/tests/apps/overlapped" > /dev/null 2>&1
expect "a run into one file: runs" $? 0
sqlite3 "$tmp/old.db" "ALTER TABLE process DROP COLUMN boot_id"
expect "... made a file without the column" "$(sqlite3 "$tmp/old.db" "select count(*) from pragma_table_info('process') where name = 'boot_id'")" 0
"$b/gputrace-report" --format json "$tmp/old.db" > "$tmp/old.json"
expect "such a file still reads: one host" "$?:$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["clock_alignment"]["hosts_total"])' "$tmp/old.json")" "0:1"
# the tracer appending to it adds the column and fills it, and leaves the old rows be
GPUTRACE_ONE_FILE=1 GPUTRACE_OUTPUT="$tmp/old.db" LD_PRELOAD="$b/.libs/libgputrace.so" "$b/tests/apps/device_sync" > /dev/null 2>&1
expect "a process appended to it: runs" $? 0
expect "... its row has the boot id, the older rows none" \
  "$(sqlite3 "$tmp/old.db" "select count(*) filter (where boot_id = '$real') || ' ' || count(*) filter (where boot_id is null) from process")" "1 2"
expect "... and the report reads the file" "$("$b/gputrace-report" --format json "$tmp/old.db" > /dev/null 2>&1; echo $?)" 0
finish
