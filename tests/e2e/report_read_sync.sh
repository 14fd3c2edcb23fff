#!/bin/sh
# report_read_sync.sh: a stream sync right after a device-to-host
# cudaMemcpyAsync (pinned memory) is the host's read of the copy, needed
# however soon the copy was done: never sync.redundant ("remove it" would
# make the read race the copy), and a scalar read when it reads a few
# bytes.  The recording of cu_scalar_read is edited so that every copy
# ended before its sync began, as a fast GPU (or a lucky moment) makes it:
# on the trace as recorded, this depended on timing (one run in three
# called a rank's first read redundant).
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
db="$tmp/read.db"
GPUTRACE_ONE_FILE=1 "$b/gputrace" record -o "$db" -- "$b/tests/sim/gpusim-run" -n 1 "$b/tests/apps/cu_scalar_read" > /dev/null 2>&1
expect "cu_scalar_read runs traced" $? 0
"$b/gputrace" expand "$db" > /dev/null
# each copy that began before its read's sync ends 1 us before that sync
# begins (one that began after it, behind work still queued, is left: its
# sync waited for it)
sync_after="(SELECT min(c.start_ns) FROM api_call_named c WHERE c.api_name = 'cudaStreamSynchronize'
  AND c.start_ns >= (SELECT a.end_ns FROM cupti_api a WHERE a.process_id = gpu_op.process_id
  AND a.correlation = gpu_op.correlation AND a.domain = 1))"
qw "$db" "UPDATE gpu_op SET end_ns = $sync_after - 1000
         WHERE kind = 2 AND copy_kind = 2 AND start_ns < $sync_after - 1000" > /dev/null
moved=$(q "$db" "SELECT count(*) FROM gpu_op g WHERE g.kind = 2 AND g.copy_kind = 2 AND g.end_ns < (SELECT min(c.start_ns)
     FROM api_call_named c WHERE c.api_name = 'cudaStreamSynchronize' AND c.start_ns >= g.start_ns)")
expect "most copies end before their syncs begin ($moved of 20)" "$([ "$moved" -ge 10 ] && echo yes)" yes
expect "every read's sync is a scalar read, none redundant" \
  "$("$b/gputrace-report" --format json "$db" | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(sum(f["count"] for f in d["findings"] if f["kind"] == "sync.scalar_read"),
      sum(f["count"] for f in d["findings"] if f["kind"] == "sync.redundant"))')" "20 0"
finish
