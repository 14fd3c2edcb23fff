#!/bin/sh
# import_output.sh: where `gputrace import` writes, and what its -f may
# remove.  An output that is one of the inputs, or in an input directory,
# is refused before anything is removed (it unlinked the input, then
# failed and removed the output: the trace was gone); -f replaces only a
# gputrace database, never another program's file.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
gt="$b/gputrace"
mkdir "$tmp/traces"
# two ranks' Kineto traces, one kernel each
for r in 0 1; do
  printf '{"schemaVersion":1,"distributedInfo":{"backend":"nccl","rank":%d,"world_size":2},"traceEvents":[%s]}\n' "$r" \
    '{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2,"args":{"device":0,"stream":7,"correlation":1}}' \
    > "$tmp/traces/rank-$r.json"
done
cp "$tmp/traces/rank-1.json" "$tmp/rank-1.saved"
sum() { cksum < "$1"; }

"$gt" import -q -f -o "$tmp/traces/rank-1.json" "$tmp/traces/" 2> "$tmp/err"
expect "output a member of the input directory, -f: refused" "$?:$(wc -l < "$tmp/err")" "2:1"
expect "... and the trace is as it was" "$(sum "$tmp/traces/rank-1.json")" "$(sum "$tmp/rank-1.saved")"
ln "$tmp/traces/rank-1.json" "$tmp/other-name.json"
"$gt" import -q -f -o "$tmp/other-name.json" "$tmp/traces/rank-1.json" 2> /dev/null
expect "output another name of an input (same inode), -f: refused, kept" \
  "$?:$(sum "$tmp/traces/rank-1.json")" "2:$(sum "$tmp/rank-1.saved")"
"$gt" import -q -o "$tmp/traces/new.db" "$tmp/traces" 2> /dev/null
expect "a new output in the input directory: refused, nothing made" "$?:$(ls "$tmp/traces" | wc -l)" "2:2"

# -f and what is not ours
sqlite3 "$tmp/theirs.db" "create table accounts(id integer primary key, owner text); insert into accounts values(1, 'ada')"
"$gt" import -q -f -o "$tmp/theirs.db" "$tmp/traces" 2> "$tmp/err"
expect "-f on another program's database: refused, kept" \
  "$?:$(sqlite3 "$tmp/theirs.db" 'select owner from accounts'):$(grep -c 'not a gputrace database' "$tmp/err")" "2:ada:1"
printf 'twenty bytes of text' > "$tmp/notes.db"
"$gt" import -q -f -o "$tmp/notes.db" "$tmp/traces" 2> /dev/null
expect "-f on a text file: refused, kept" "$?:$(cat "$tmp/notes.db")" "2:twenty bytes of text"
printf 'mine' > "$tmp/fresh.db-wal"
"$gt" import -q -o "$tmp/fresh.db" "$tmp/traces" 2> /dev/null
expect "a -wal with no database of ours: refused, kept" "$?:$(cat "$tmp/fresh.db-wal")" "2:mine"
# the import's rollback journal (kineto_number's savepoint) goes to
# NAME-journal, made and deleted at its commit: a file of that name that is
# not SQLite's stays, the import refused (SQLite would write over it)
printf 'mine' > "$tmp/fresh2.db-journal"
"$gt" import -q -o "$tmp/fresh2.db" "$tmp/traces" 2> /dev/null
expect "a -journal that is not SQLite's: refused, kept" "$?:$(cat "$tmp/fresh2.db-journal")" "2:mine"
"$gt" import -q -o "$tmp/ours.db" "$tmp/traces"
"$gt" import -q -f -o "$tmp/ours.db" "$tmp/traces"
expect "-f on a database of ours: replaced" "$?:$(sqlite3 "$tmp/ours.db" 'select count(*) from process')" "0:2"
finish
