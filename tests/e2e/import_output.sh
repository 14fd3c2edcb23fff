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
# an import killed in its one transaction (Ctrl-C, the OOM killer) leaves
# its file and a live journal: the report says it cannot read it, in a line;
# -f replaces both (the file's marks are committed before the transaction:
# it was refused as another's)
python3 "${top_srcdir:-.}/bench/gen_kineto.py" "$tmp/big.json" 48 > /dev/null
"$gt" import -q -o "$tmp/killed.db" "$tmp/big.json" &
pid=$!
# the journal there at two looks 20 ms apart: the import's transaction, not
# one of the statements before it, whose journals last microseconds
i=0 seen=0
while [ $seen -lt 2 ] && [ $i -lt 1000 ] && kill -0 $pid 2> /dev/null; do
  if [ -e "$tmp/killed.db-journal" ]; then seen=$((seen + 1)); else seen=0; fi
  sleep 0.02; i=$((i + 1))
done
kill -9 $pid 2> /dev/null
wait $pid 2> /dev/null
expect "a killed import: its journal left" "$(ls "$tmp" | grep -c '^killed.db-journal$')" 1
"$b/gputrace-report" "$tmp/killed.db" > /dev/null 2> "$tmp/err"
expect "a killed import's file: the report says so in one line" \
  "$?:$(wc -l < "$tmp/err" | tr -d ' '):$(grep -c 'did not finish.*import it again' "$tmp/err")" "1:1:1"
"$gt" import -q -f -o "$tmp/killed.db" "$tmp/big.json"
expect "-f on a killed import's file: replaced, its journal gone" \
  "$?:$(ls "$tmp" | grep -c '^killed.db-journal$'):$(sqlite3 "$tmp/killed.db" 'select count(*) from process')" "0:0:1"
finish
