#!/bin/sh
# block_formats.sh: the bulk blocks' two layouts (format/block_codec.h).
# The tracer and the importer write them compact (format 2) unless
# GPUTRACE_BLOCK_FORMAT=1 asks for packed structs; the same records either
# way: an import (deterministic) gives the same report and, expanded, the
# same rows in both; a recording's blocks are a fraction of the packed
# bytes, and read as their rows are.  A compact block cut short is refused
# whole: skipped by the report, refused by `gputrace expand`, kept by
# `gputrace merge`.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
gt="$b/gputrace"
rep="$b/gputrace-report"
lib="$b/.libs/libgputrace.so"
qr() { sqlite3 -readonly "$1" "$2"; }
formats="select group_concat(f) from (select distinct format f from api_call_block union select distinct format from cupti_api_block
  union select distinct format from gpu_op_block union select distinct format from nvtx_range_block order by 1)"

# an import, both ways: every record in a block (GPUTRACE_BULK_AFTER=0)
trace="$s/tests/data/traces/hta-sampled-128/sampled_rank-0.json.gz"
GPUTRACE_BULK_AFTER=0 "$gt" import -q -o "$tmp/c.db" "$trace" 2> "$tmp/err"
expect "import, compact: done" "$?:$(wc -l < "$tmp/err")" "0:0"
GPUTRACE_BULK_AFTER=0 GPUTRACE_BLOCK_FORMAT=1 "$gt" import -q -o "$tmp/p.db" "$trace" 2> "$tmp/err"
expect "import, packed: done" "$?:$(wc -l < "$tmp/err")" "0:0"
expect "import: compact blocks by default, packed when asked" "$(qr "$tmp/c.db" "$formats") $(qr "$tmp/p.db" "$formats")" "2 1"
sizes="select sum(n), sum(length(data)) from (select n, data from gpu_op_block union all select n, data from cupti_api_block)"
read -r nc bc <<EOF
$(qr "$tmp/c.db" "$sizes" | tr '|' ' ')
EOF
read -r np bp <<EOF
$(qr "$tmp/p.db" "$sizes" | tr '|' ' ')
EOF
expect "import: as many records either way" "$nc" "$np"
expect "import: compact, a quarter of the packed bytes at most ($bc against $bp for $nc records)" \
  "$((nc > 2000 && bc * 4 <= bp))" 1
"$rep" --format json "$tmp/c.db" > "$tmp/c.json"
"$rep" --format json "$tmp/p.db" > "$tmp/p.json"
expect "import: the same report from either layout" "$(test -s "$tmp/c.json" && cmp -s "$tmp/c.json" "$tmp/p.json" && echo same)" same
"$gt" expand "$tmp/c.db" > /dev/null && "$gt" expand "$tmp/p.db" > /dev/null
rows="select group_concat(x, ';') from (select kind||','||device||','||stream_id||','||name_id||','||start_ns||','||end_ns||','||
  coalesce(bytes,'')||','||coalesce(correlation,'') x from gpu_op union all select domain||','||cbid||','||tid||','||start_ns||','||
  end_ns||','||correlation from cupti_api order by x)"
expect "import: expanded, the same rows from either layout" \
  "$(qr "$tmp/c.db" "$rows" | cksum) $(qr "$tmp/c.db" "select count(*) > 1000 from gpu_op")" "$(qr "$tmp/p.db" "$rows" | cksum) 1"

# a recording: 2 ranks of the simulated overlapped workload, blocks only
GPUTRACE_BULK_AFTER=0 GPUTRACE_ONE_FILE=1 GPUTRACE_LIB="$lib" "$gt" record -o "$tmp/r.db" -- \
  "$b/tests/sim/gpusim-run" -n 2 "$b/tests/apps/overlapped" > /dev/null 2>&1
expect "record: compact blocks in every table" "$(qr "$tmp/r.db" "$formats") $(qr "$tmp/r.db" "select (select count(*) from api_call_block) > 0
  and (select count(*) from cupti_api_block) > 0 and (select count(*) from gpu_op_block) > 0 and (select count(*) from nvtx_range_block) > 0")" "2 1"
perrec="select sum(length(data)) * 1.0 / sum(n) <= 16 from (select n, data from api_call_block union all select n, data from gpu_op_block)"
expect "record: calls and GPU operations 16 bytes a record at most (72 and 64 packed)" "$(qr "$tmp/r.db" "$perrec")" 1
GPUTRACE_BULK_AFTER=0 GPUTRACE_ONE_FILE=1 GPUTRACE_BLOCK_FORMAT=1 GPUTRACE_LIB="$lib" "$gt" record -o "$tmp/rp.db" -- \
  "$b/tests/sim/gpusim-run" -n 2 "$b/tests/apps/overlapped" > /dev/null 2>&1
expect "record, GPUTRACE_BLOCK_FORMAT=1: packed blocks" "$(qr "$tmp/rp.db" "$formats")" 1
"$rep" --format json "$tmp/rp.db" > /dev/null
expect "record, packed: the report reads it" "$?" 0
calls="select (select count(*) from api_call) + (select coalesce(sum(n), 0) from api_call_block)"
ncalls=$(qr "$tmp/r.db" "$calls")

# a compact block cut short by a byte: not half read
api_calls() { python3 -c 'import json, sys; print(sum(r["api_calls"] for r in json.load(open(sys.argv[1]))["ranks"]))' "$1"; }
# the wrapped calls alone: a lost call's CUPTI record becomes a call only
# CUPTI saw where no other call of its API was recorded (the first block
# held only setup calls in one loaded CI run, and the count came out whole)
wrapped() { python3 -c 'import json, sys; print(sum(r["api_calls"] - r["cupti_only_calls"] for r in json.load(open(sys.argv[1]))["ranks"]))' "$1"; }
"$rep" --format json "$tmp/r.db" > "$tmp/whole.json"
cp "$tmp/r.db" "$tmp/cut.db"
cut="(select min(rowid) from api_call_block)"
lost=$(qr "$tmp/cut.db" "select n from api_call_block where rowid = $cut")
sqlite3 "$tmp/cut.db" "update api_call_block set data = substr(data, 1, length(data) - 1) where rowid = $cut"
"$rep" --format json "$tmp/cut.db" > "$tmp/cut.json" 2> "$tmp/err"
expect "a block cut short: the report reads the rest" "$?:$(test -s "$tmp/cut.json" && echo json)" "0:json"
cp "$tmp/cut.db" "$tmp/cut2.db"
"$gt" expand "$tmp/cut2.db" > /dev/null 2> "$tmp/err"
expect "a block cut short: gputrace expand refuses the file, one line, nothing changed" \
  "$?:$(wc -l < "$tmp/err"):$(grep -c 'a call block of another format or damaged; nothing changed' "$tmp/err"):$(qr "$tmp/cut2.db" "select count(*) from api_call")" \
  "1:1:1:$(qr "$tmp/cut.db" "select count(*) from api_call")"
"$gt" merge "$tmp/m.db" "$tmp/cut.db" > /dev/null 2> "$tmp/err"
expect "a block cut short: gputrace merge keeps it as it was, makes rows of the rest" \
  "$?:$(qr "$tmp/m.db" "select count(*) || ':' || sum(n) from api_call_block"):$(qr "$tmp/m.db" "select count(*) from api_call")" \
  "0:1:$lost:$((ncalls - lost))"
"$rep" --format json "$tmp/m.db" > "$tmp/m.json"
expect "a block cut short: the report counts the calls of the rest, as it does their rows in the merged file" \
  "$(api_calls "$tmp/cut.json") $(($(wrapped "$tmp/cut.json") < $(wrapped "$tmp/whole.json")))" "$(api_calls "$tmp/m.json") 1"
finish
