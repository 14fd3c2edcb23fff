#!/bin/sh
# record.sh: `gputrace record`'s output layouts and signals.  A run
# directory by default (a file per process, read by the report as one run,
# merged on request), --one-file, and %h/%p/%r patterns; for each, what an
# earlier run left is refused without -f and removed with it (never a file
# that is not a gputrace database by its content, whatever its name); host
# names made safe for file names; values echoed in warnings printable; the
# exit status of a command that cannot be run; the launcher execs the
# command, so every signal reaches the program once however it is sent (a
# Ctrl-C typed at the terminal, a kill of the pid the caller started, of its
# process group) and that pid is the program's.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
gt="$b/gputrace"
rep="$b/gputrace-report"
run="$b/tests/sim/gpusim-run"
app="$b/tests/apps/threads"
procs() { q "$1" "select count(*) from process"; }

# the default: a run directory, one file per process, read as one run
"$gt" record -o "$tmp/run.db" -- "$run" -n 2 "$app" 1 10 > /dev/null
expect "run directory: a file per process" "$(ls "$tmp/run.db" | grep -c "^$(uname -n)-[0-9]*\.db$")" 2
expect "run directory: the report reads it as one run" \
  "$("$rep" --format json "$tmp/run.db" | python3 -c 'import json, sys; print(sorted(r["rank"] for r in json.load(sys.stdin)["ranks"]))')" "[0, 1]"
"$gt" merge "$tmp/merged.db" "$tmp/run.db" > /dev/null
expect "gputrace merge: one file, the same report" \
  "$("$rep" --format json "$tmp/merged.db" | md5sum):$(sqlite3 "$tmp/merged.db" "select count(distinct id) from process")" \
  "$("$rep" --format json "$tmp/run.db" | md5sum):2"
# a merge output put in the run directory itself: left out, with a line
# (it was read beside the files it holds, every total doubled)
cp -r "$tmp/run.db" "$tmp/runm"
"$gt" merge "$tmp/runm/all.db" "$tmp/runm" > /dev/null
"$rep" --format json "$tmp/runm" > "$tmp/runm.json" 2> "$tmp/err"
expect "a merge output inside the run directory: left out, said, the same report" \
  "$(python3 -c 'import json, sys; print(sorted(r["rank"] for r in json.load(open(sys.argv[1]))["ranks"]))' "$tmp/runm.json"):$(grep -c 'all.db is a gputrace merge output' "$tmp/err")" \
  "[0, 1]:1"
# ... but read where the directory's other files hold nothing (it was
# left out, and the directory then had no trace)
mkdir "$tmp/onlymerge"
cp "$tmp/runm/all.db" "$tmp/onlymerge/all.db"
: > "$tmp/onlymerge/$(uname -n)-1.db"
"$rep" --format json "$tmp/onlymerge" > "$tmp/om.json" 2> /dev/null
expect "a merge output beside an empty process file only: read" \
  "$?:$(python3 -c 'import json, sys; print(sorted(r["rank"] for r in json.load(open(sys.argv[1]))["ranks"]))' "$tmp/om.json" 2>&1)" \
  "0:[0, 1]"
# the tracer stores blocks (GPUTRACE_BULK_AFTER=0); the merged file is for
# people's SQL: every call, CUPTI record and GPU operation a row
stored() { # rows and records in blocks of every file of RUN: "CALLS CUPTI GPU BLOCKS"
  for f in "$@"; do sqlite3 "$f" "select (select count(*) from api_call) + (select coalesce(sum(n), 0) from api_call_block),
    (select count(*) from cupti_api) + (select coalesce(sum(n), 0) from cupti_api_block),
    (select count(*) from gpu_op) + (select coalesce(sum(n), 0) from gpu_op_block),
    (select count(*) from api_call_block) + (select count(*) from cupti_api_block) + (select count(*) from gpu_op_block)
    + (select count(*) from nvtx_range_block)"; done | awk -F'|' '{c += $1; a += $2; g += $3; k += $4} END {print c, a, g, k}'
}
counts=$(stored "$tmp/run.db"/*.db)
calls=${counts%% *} blocks=${counts##* }
expect "the tracer stored its records in blocks" "$((blocks > 0))" 1
expect "gputrace merge: every record a row, none left in a block" "$(stored "$tmp/merged.db")" "${counts% *} 0"
expect "gputrace merge: the rows hold every call" "$(sqlite3 "$tmp/merged.db" "select count(*) from api_call")" "$calls"
"$gt" merge "$tmp/merged.db" "$tmp/run.db" > /dev/null 2>&1
expect "gputrace merge: an existing output refused" $? 1
"$gt" record -o "$tmp/run.db" -- "$run" -n 2 "$app" 1 10 > /dev/null 2> "$tmp/err"
expect "run directory: refused when there" "$?:$(procs "$tmp/run.db")" "2:2"
"$gt" record -f -o "$tmp/run.db" -- "$app" 1 10 > /dev/null
expect "run directory: -f replaces it" "$(ls "$tmp/run.db" | wc -l):$(procs "$tmp/run.db")" "1:1"
for other in notes.txt mine.db; do
  touch "$tmp/run.db/$other"
  "$gt" record -f -o "$tmp/run.db" -- "$app" 1 10 > /dev/null 2> "$tmp/err"
  expect "run directory holding $other too: -f refused, nothing removed" \
    "$?:$(ls "$tmp/run.db" | wc -l):$(grep -c "$other" "$tmp/err")" "2:2:1"
  rm "$tmp/run.db/$other"
done
# many files (a rank's copied 40 times): more descriptors than a low soft limit allows
mkdir "$tmp/many.db"
for k in $(seq 40); do cp "$(ls "$tmp"/run.db/*.db | head -n 1)" "$tmp/many.db/h-$k.db"; done
(ulimit -S -n 64; "$rep" "$tmp/many.db" > /dev/null 2> "$tmp/err")
expect "report on 40 files under a soft limit of 64 descriptors: raised, read" "$?:$(cat "$tmp/err")" "0:"
mkdir "$tmp/empty"
"$rep" "$tmp/empty" > /dev/null 2> "$tmp/err"
expect "report on a directory without a database: one line, exit 1" "$?:$(wc -l < "$tmp/err")" "1:1"

# --one-file: every process appends to the one file asked for
"$gt" record --one-file -o "$tmp/one.db" -- "$run" -n 2 "$app" 1 10 > /dev/null
expect "--one-file: one file, both processes" "$([ -f "$tmp/one.db" ] && echo file):$(procs "$tmp/one.db")" "file:2"
"$gt" record --one-file -o "$tmp/one.db" -- "$app" 1 10 > /dev/null 2>&1
expect "--one-file: refused when there" "$?:$(procs "$tmp/one.db")" "2:2"
"$gt" record -f --one-file -o "$tmp/one.db" -- "$app" 1 10 > /dev/null
expect "--one-file: -f replaces it" "$(procs "$tmp/one.db")" 1
"$gt" record -f -o "$tmp/one.db" -- "$app" 1 10 > /dev/null
expect "-f: a run directory where one file was" "$([ -d "$tmp/one.db" ] && echo dir):$(procs "$tmp/one.db")" "dir:1"

# patterns: every file %h/%p/%r could have made counts, and only those
"$gt" record -o "$tmp/r-%r.db" -- "$run" -n 2 "$app" 1 10 > /dev/null
expect "pattern: a file per rank" "$(procs "$tmp/r-0.db"):$(procs "$tmp/r-1.db")" "1:1"
"$gt" record -o "$tmp/r-%r.db" -- "$run" -n 2 "$app" 1 10 > /dev/null 2> "$tmp/err"
expect "pattern: refused when a file it names is there" "$?:$(procs "$tmp/r-0.db"):$(grep -c 'r-[01].db exists' "$tmp/err")" "2:1:1"
cp "$tmp/r-1.db" "$tmp/r-7.db"
: > "$tmp/r-7.db-wal"
: > "$tmp/r-8.db-wal"
: > "$tmp/r-x.db"
"$gt" record -f -o "$tmp/r-%r.db" -- "$run" -n 2 "$app" 1 10 > /dev/null 2>&1
expect "pattern: -f removes every file it names first (not piled up)" "$(procs "$tmp/r-0.db"):$(procs "$tmp/r-1.db")" "1:1"
expect "pattern: -f removes their -wal too, and no other file (nor a -wal without its database)" \
  "$([ -e "$tmp/r-7.db" ] && echo db):$([ -e "$tmp/r-7.db-wal" ] && echo wal):$([ -e "$tmp/r-8.db-wal" ] && echo lone):$([ -e "$tmp/r-x.db" ] && echo other)" \
  "::lone:other"
rm -f "$tmp/r-8.db-wal"
"$gt" record -o "$tmp/h-%h-%p.db" -- "$app" 1 10 > /dev/null
"$gt" record -o "$tmp/h-%h-%p.db" -- "$app" 1 10 > /dev/null 2>&1
expect "pattern of host and pid: refused when there" "$?:$(ls "$tmp" | grep -c '^h-')" "2:1"

# -f removes only what is ours, told by content, not by name: %h matches
# every name without '/' (it emptied the directory, exit 0); a user's
# SQLite database and text file named like a process's file in a run
# directory went too, then the directory
mkdir "$tmp/cwd" "$tmp/cwd/traces" "$tmp/cwd/sub"
for d in "$tmp/cwd" "$tmp/cwd/traces"; do
  printf 'notes\n' > "$d/notes.txt"
  sqlite3 "$d/accounts.db" "create table accounts(id integer primary key, owner text); insert into accounts values(1, 'ada')"
  printf 'backup' > "$d/backup-20240101.db"
done
(cd "$tmp/cwd" && "$gt" record -f -o '%h' -- "$app" 1 10 > /dev/null 2> "$tmp/err")
expect "-f -o %h: the user's files in the directory are left as they are" \
  "$?:$(ls "$tmp/cwd" | grep -c -e '^notes.txt$' -e '^accounts.db$' -e '^backup-20240101.db$' -e '^sub$'):$(sqlite3 "$tmp/cwd/accounts.db" 'select owner from accounts')" \
  "0:4:ada"
expect "-f -o %h: the trace is written, and one line says what was left" \
  "$(procs "$tmp/cwd/$(uname -n)"):$(grep -c "are not a run's gputrace databases" "$tmp/err")" "1:1"
(cd "$tmp/cwd" && "$gt" record -f -o '%h' -- "$app" 1 10 > /dev/null 2>&1)
expect "-f -o %h again: the earlier trace (ours) replaced" "$?:$(procs "$tmp/cwd/$(uname -n)")" "0:1"
(cd "$tmp/cwd" && "$gt" record -f -o 'traces/%h' -- "$app" 1 10 > /dev/null 2>&1 &&
  "$gt" record -f -o '%h.db' -- "$app" 1 10 > /dev/null 2>&1)
expect "-f -o traces/%h, -o %h.db: nothing of the user's removed" \
  "$?:$(ls "$tmp/cwd/traces" | grep -c -e '^notes.txt$' -e '^accounts.db$' -e '^backup-20240101.db$'):$(ls "$tmp/cwd" | grep -c '\.db$')" \
  "0:3:3"
mkdir "$tmp/users.db"
cp "$(ls "$tmp"/run.db/*.db | head -n 1)" "$tmp/users.db/h-1.db"
sqlite3 "$tmp/users.db/accounts-2024.db" "create table accounts(id integer primary key, owner text)"
printf 'backup' > "$tmp/users.db/backup-20240101.db"
"$gt" record -f -o "$tmp/users.db" -- "$app" 1 10 > /dev/null 2> "$tmp/err"
expect "run directory holding a user's accounts-2024.db and backup-20240101.db: -f refused, nothing removed" \
  "$?:$(ls "$tmp/users.db" | wc -l):$(grep -c 'not a gputrace database' "$tmp/err")" "2:3:1"
sqlite3 "$tmp/foreign.db" "create table accounts(id integer primary key)"
"$gt" record -f --one-file -o "$tmp/foreign.db" -- "$app" 1 10 > /dev/null 2> "$tmp/err"
expect "--one-file -f on another program's database: refused, kept" \
  "$?:$(sqlite3 "$tmp/foreign.db" 'select name from sqlite_master'):$(grep -c 'not a gputrace database' "$tmp/err")" \
  "2:accounts:1"

# -f never removes a run still being written: its process writes on into
# files without a name, and its run is lost (a second record -f into the
# directory of one still running removed its files)
APP_STEPS=100000 "$gt" record -o "$tmp/live" -- "$b/tests/apps/train_demo" > /dev/null 2>&1 &
bg=$!
for i in $(seq 600); do
  [ "$(find "$tmp/live" -name '*.db-wal' -size +0 2> /dev/null | wc -l)" -gt 0 ] && break
  sleep 0.1
done
"$gt" record -f -o "$tmp/live" -- "$app" 1 10 > /dev/null 2> "$tmp/err"; rc=$?
expect "-f on the run directory of a run still going: refused, its files kept" \
  "$rc:$(ls "$tmp/live" | grep -c '\.db$'):$(grep -c 'which a process has open' "$tmp/err")" "2:1:1"
# ... but once its process is gone (killed: its -wal left full, just
# changed), it is replaced at once: the -shm's lock, not the -wal's age,
# says whether one writes (two processes closing a %h.db file together
# leave frames too, and the next record -f was refused for a minute)
kill -KILL "$bg" 2> /dev/null; wait "$bg" 2> /dev/null
left=$(find "$tmp/live" -name '*.db-wal' -size +0 | wc -l)
"$gt" record -f -o "$tmp/live" -- "$app" 1 10 > /dev/null 2> "$tmp/err"
expect "-f on the run directory of a run just killed, its -wal full: replaced" "$left:$?:$(procs "$tmp/live"/*.db)" "1:0:1"
# nor a `gputrace merge` output that a pattern's %h happens to name (its
# meta says merged); and a file of a %h.db run, all of a host's processes
# in it, is one of the run's: refused without -f, replaced with it
mkdir "$tmp/mrg"
"$gt" record -o "$tmp/tworanks" -- "$run" -n 2 "$app" 1 10 > /dev/null
"$gt" merge "$tmp/mrg/all.db" "$tmp/tworanks" > /dev/null
"$gt" record -f -o "$tmp/mrg/%h.db" -- "$app" 1 10 > /dev/null 2> "$tmp/err"
expect "-f -o DIR/%h.db beside a merged all.db: the merged file left as it is" \
  "$?:$(procs "$tmp/mrg/all.db"):$(procs "$tmp/mrg/$(uname -n).db")" "0:2:1"
# ... one made before merge marked its output (several processes, every
# record a row) too
sqlite3 "$tmp/mrg/all.db" "delete from meta where key = 'merged'"
"$gt" record -f -o "$tmp/mrg/%h.db" -- "$app" 1 10 > /dev/null 2>&1
expect "-f -o DIR/%h.db beside an unmarked merge output: left as it is" "$?:$(procs "$tmp/mrg/all.db")" "0:2"
"$gt" record -o "$tmp/mrg/%h.db" -- "$run" -n 2 "$app" 1 10 > /dev/null 2>&1
expect "-o DIR/%h.db over a run's file of two processes: refused without -f" "$?:$(procs "$tmp/mrg/$(uname -n).db")" "2:1"
"$gt" record -f -o "$tmp/mrg/%h.db" -- "$run" -n 2 "$app" 1 10 > /dev/null 2>&1
"$gt" record -f -o "$tmp/mrg/%h.db" -- "$app" 1 10 > /dev/null 2>&1
expect "-f -o DIR/%h.db over a run's file of two processes: replaced, not added to" \
  "$?:$(procs "$tmp/mrg/$(uname -n).db")" "0:1"
# nor anything when -o names its directory as "run/." or "run/": refused first
"$gt" record -o "$tmp/dotrun" -- "$app" 1 10 > /dev/null
"$gt" record -f -o "$tmp/dotrun/." -- "$app" 1 10 > /dev/null 2> "$tmp/err"
expect "-f -o run/.: refused before anything is removed" \
  "$?:$(ls "$tmp/dotrun" | grep -c '\.db$'):$(grep -c "without a trailing" "$tmp/err")" "2:1:1"

# the host name in file names: '/' and a leading '.' made safe (a name
# with '/' put each process's file outside the run directory, and record
# then said nothing was written)
GPUSIM_HOSTNAME=../escaped "$gt" record -o "$tmp/hostrun.db" -- "$app" 1 10 > /dev/null 2> "$tmp/err"
expect "host name ../escaped: the file is in the run directory, named safely" \
  "$?:$(ls "$tmp/hostrun.db" | grep -c '^_\._escaped-[0-9]*\.db$'):$(ls "$tmp" | grep -c escaped)" "0:1:0"
expect "host name ../escaped: no line that nothing was written" "$(grep -c 'nothing was written' "$tmp/err")" 0
GPUSIM_HOSTNAME="$(printf 'a\033[2Jb')" "$gt" record -o "$tmp/hostesc.db" -- "$app" 1 10 > /dev/null 2>&1
expect "host name with ESC: a safe name" "$(ls "$tmp/hostesc.db" | grep -c '^a__2Jb-[0-9]*\.db$')" 1

# values of variables echoed in warnings: control bytes escaped, long ones cut, one line
GPUTRACE_CLOCK="$(printf 'x\033[31mred\nnext')" "$app" 1 10 > /dev/null 2> "$tmp/err" # untraced: nothing to say
GPUTRACE_CLOCK="$(printf 'x\033[31mred\nnext')" GPUTRACE_FLUSH_MS="$(head -c 10000 /dev/zero | tr '\0' 7)" \
  "$gt" record -o "$tmp/envs.db" -- "$app" 1 10 > /dev/null 2> "$tmp/err"
expect "warnings about variables: no raw ESC, one line each, cut" \
  "$(grep -c "$(printf '\033')" "$tmp/err"):$(grep -c 'GPUTRACE_CLOCK=x\\x1b\[31mred\\x0anext is not' "$tmp/err"):$(grep 'GPUTRACE_FLUSH_MS' "$tmp/err" | grep -c '^.\{1,400\}$')" \
  "0:1:1"

# a command that cannot be run: 127 not found, 126 found but not executable (as shells)
printf 'echo hi\n' > "$tmp/noexec.sh"
chmod -x "$tmp/noexec.sh"
"$gt" record -o "$tmp/x.db" -- "$tmp/noexec.sh" 2> /dev/null
expect "record of a file that is not executable: exit 126" "$?" 126
"$gt" record -o "$tmp/x.db" -- "$tmp/no-such-command" 2> /dev/null
expect "record of no such command: exit 127" "$?" 127
# an output whose directory does not exist: refused before the command
# runs (each process would say it cannot write, run on untraced, and the
# run end with "nothing was written", blaming the program)
"$gt" record -o "$tmp/no-such-dir/run" -- sh -c "touch $tmp/ran" 2> "$tmp/err"
expect "record into a directory that does not exist: refused, said, the command not run" \
  "$?:$(grep -c "cannot write $tmp/no-such-dir/run: $tmp/no-such-dir does not exist" "$tmp/err"):$(wc -l < "$tmp/err"):$(ls "$tmp/ran" 2> /dev/null | wc -l)" \
  "2:1:1:0"
# ... and one it may not write in (not writable, or immutable for root):
# refused, with the reason, where each process said "No such file or
# directory" of its file and the run ended blaming the program; the
# tracer itself, run without record, names the reason too
mkdir "$tmp/ro"
if [ "$(id -u)" != 0 ]; then chmod 555 "$tmp/ro"; else chattr +i "$tmp/ro" 2> /dev/null; fi
if touch "$tmp/ro/x" 2> /dev/null; then
  rm -f "$tmp/ro/x"
  skip "record into a directory it may not write in" "no way to make one here (chattr +i as root)"
  skip "the tracer's line for a run directory it cannot make" "as above"
else
  "$gt" record -o "$tmp/ro/run" -- sh -c "touch $tmp/ran" 2> "$tmp/err"
  expect "record into a directory it may not write in: refused, the reason said, the command not run" \
    "$?:$(grep -c "cannot write $tmp/ro/run: $tmp/ro: \(Operation not permitted\|Permission denied\|Read-only\)" "$tmp/err"):$(ls "$tmp/ran" 2> /dev/null | wc -l)" \
    "2:1:0"
  GPUTRACE_OUTPUT="$tmp/ro/run" LD_PRELOAD="$b/.libs/libgputrace.so" "$app" 1 10 > /dev/null 2> "$tmp/err"
  expect "the tracer's line for a run directory it cannot make: its reason, not ENOENT" \
    "$?:$(grep -c 'the run directory cannot be made: \(Operation not permitted\|Permission denied\|Read-only\)' "$tmp/err")" "0:1"
fi
chattr -i "$tmp/ro" 2> /dev/null; chmod 755 "$tmp/ro"
# ... a pattern's too, as this host expands it (it said nothing at all)
( cd "$tmp" && "$gt" record -o 'runs%h/x' -- sh -c "touch $tmp/ran" 2> "$tmp/err" )
expect "record into a pattern's directory (%h) that does not exist: refused, said, the command not run" \
  "$?:$(grep -c "cannot write runs%h/x: $tmp/runs.* does not exist" "$tmp/err"):$(ls "$tmp/ran" 2> /dev/null | wc -l)" \
  "2:1:0"
# a pattern nothing was written to: the line, as for a run directory (it
# said nothing); one a process wrote to: none
( cd "$tmp" && "$gt" record -o 'pat%h-%p.db' -- true 2> "$tmp/err" )
expect "a pattern nothing was written to: the line" \
  "$?:$(grep -c 'nothing was written to pat%h-%p.db: no process of true' "$tmp/err")" "0:1"
( cd "$tmp" && "$gt" record -o 'pat%h-%p.db' -- "$app" 1 10 > /dev/null 2> "$tmp/err" )
expect "a pattern a process wrote to: no line, its file there" \
  "$?:$(grep -c 'nothing was written' "$tmp/err"):$(ls "$tmp"/pat*-*.db | wc -l)" "0:0:1"
: > "$tmp/plainfile"
"$gt" record --one-file -o "$tmp/plainfile/x.db" -- "$app" 1 10 > /dev/null 2> "$tmp/err"
expect "record into a path under a file: refused, said" \
  "$?:$(grep -c "$tmp/plainfile is not a directory" "$tmp/err")" "2:1"
# merge of an SQLite file that is no gputrace database (no meta table)
sqlite3 "$tmp/nometa.db" "create table process(id integer primary key)"
"$gt" merge "$tmp/m2.db" "$tmp/nometa.db" > /dev/null 2> "$tmp/err"
expect "merge of a file without a meta table: not a gputrace database" \
  "$?:$(grep -c 'not a gputrace database' "$tmp/err"):$(grep -c 'schema version' "$tmp/err")" "1:1:0"
# the output named as an SQLite URI (merge opens it as one): made, and its
# blocks made rows in the file the URI names
mkdir "$tmp/uri"
counts=$(stored "$tmp/run.db"/*.db)
calls=${counts%% *}
"$gt" merge "file:$tmp/uri/m.db" "$tmp/run.db" > /dev/null 2> "$tmp/err"
expect "merge into a file: URI: the file it names, every call a row" \
  "$?:$(ls "$tmp/uri"):$(sqlite3 "$tmp/uri/m.db" "select count(*) from api_call")" "0:m.db:$calls"
# ... and a URI naming a file that exists (a user's database): refused as
# a plain name is, the file untouched (it was written into, and a failure
# would have removed it)
sqlite3 "$tmp/uri/mine.db" "create table accounts(id integer primary key); insert into accounts values(7)"
sum=$(cksum < "$tmp/uri/mine.db")
"$gt" merge "file:$tmp/uri/mine.db" "$tmp/run.db" > /dev/null 2> "$tmp/err"
expect "merge into a file: URI naming an existing file: refused, the file unchanged" \
  "$?:$(grep -c 'exists; name a new file' "$tmp/err"):$(cksum < "$tmp/uri/mine.db" | grep -c "^$sum\$")" "1:1:1"
# a run of a few hundred blocks: the merged file is compacted, no page
# left free by the emptied block tables (345 of them before)
"$gt" record -o "$tmp/big" -- "$run" -n 1 "$app" 2 20000 > /dev/null
"$gt" merge "$tmp/big.db" "$tmp/big" > /dev/null
expect "gputrace merge: a bigger run, its blocks made rows, no page left free" \
  "$(stored "$tmp/big.db"):$(sqlite3 "$tmp/big.db" "pragma freelist_count")" "$(stored "$tmp/big"/*.db | cut -d' ' -f1-3) 0:0"
# an input with a block that cannot be read (another format, or damaged):
# the merge loses nothing, the block is kept as it is, the rest made rows,
# and one line in merge's name says so
f=$(ls "$tmp/run.db"/*.db | head -n 1)
cp "$f" "$tmp/badblock.db"
sqlite3 "$tmp/badblock.db" "update api_call_block set format = 99 where rowid = (select min(rowid) from api_call_block)"
vals=$(sqlite3 -separator ' ' "$tmp/badblock.db" "select (select count(*) from api_call)
  + (select coalesce(sum(n), 0) from api_call_block), (select n from api_call_block where format = 99)")
in_calls=${vals% *} bad_n=${vals#* }
"$gt" merge "$tmp/m3.db" "$tmp/badblock.db" > /dev/null 2> "$tmp/err"
expect "merge of a file with a damaged block: done, one line in merge's name" \
  "$?:$(wc -l < "$tmp/err" | tr -d ' '):$(grep -c '^gputrace merge: .*: 1 call block(s) of another format or damaged: kept as they are, not made rows$' "$tmp/err")" \
  "0:1:1"
expect "the damaged block kept as it was, every other call a row" \
  "$(sqlite3 -separator ' ' "$tmp/m3.db" "select (select count(*) from api_call_block), (select format from api_call_block),
    (select n from api_call_block), (select count(*) from api_call)")" "1 99 $bad_n $((in_calls - bad_n))"
expect "no other block left" "$(sqlite3 "$tmp/m3.db" "select (select count(*) from cupti_api_block)
  + (select count(*) from gpu_op_block) + (select count(*) from nvtx_range_block)")" 0
"$b/gputrace-report" --format json "$tmp/m3.db" > /dev/null 2> "$tmp/err"
expect "the report reads the merged file" "$?" 0
# a block whose record count is 2^32 more than it holds, or one fewer:
# damaged, kept as it is (cut to 32 bits, the count read as the true one,
# or fewer records read than the blob holds, once made one row of 2^32 + n
# and dropped the rest with the block; the report read one record of it)
for how in "n + 4294967296" "n - 1"; do
  cp "$f" "$tmp/count.db"
  sqlite3 "$tmp/count.db" "update api_call_block set n = $how where rowid = (select min(rowid) from api_call_block)"
  bad_n=$(sqlite3 "$tmp/count.db" "select n from api_call_block where rowid = (select min(rowid) from api_call_block)")
  rm -f "$tmp/m4.db"
  "$gt" merge "$tmp/m4.db" "$tmp/count.db" > /dev/null 2> "$tmp/err"
  expect "merge of a block counted $how: kept as it is, every other call a row" \
    "$?:$(grep -c 'of another format or damaged: kept as they are' "$tmp/err"):$(sqlite3 -separator ' ' "$tmp/m4.db" \
      "select (select count(*) from api_call_block), (select n from api_call_block), (select count(*) from api_call)")" \
    "0:1:1 $bad_n $((in_calls - $(sqlite3 "$f" "select n from api_call_block where rowid = (select min(rowid) from api_call_block)")))"
  "$gt" expand "$tmp/count.db" > /dev/null 2>&1
  expect "expand of a block counted $how: refused, nothing changed" \
    "$?:$(sqlite3 "$tmp/count.db" "select count(*) from api_call_block where n = $bad_n")" "1:1"
done

# signals: a program that counts its SIGINTs for 2 s
cat > "$tmp/count.py" <<'PY'
import signal, sys, time
n = 0
def on_int(sig, frame):
    global n
    n += 1
signal.signal(signal.SIGINT, on_int)
print("ready", flush=True)
end = time.time() + 2
while time.time() < end:
    time.sleep(0.05)
print("SIGINTs:", n, flush=True)
PY
# onatty.py MODE command...: the command (the launcher) on a new
# pseudo-terminal, in its foreground process group; once the program is
# ready, Ctrl-C typed (MODE tty) or SIGINT sent to the pid started (kill)
cat > "$tmp/onatty.py" <<'PY'
import os, pty, signal, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
out = b""
while b"ready" not in out:
    try:
        out += os.read(fd, 1024)
    except OSError:
        break
time.sleep(0.2)
if sys.argv[1] == "tty":
    os.write(fd, b"\x03")
else:
    os.kill(pid, signal.SIGINT)
while True:
    try:
        chunk = os.read(fd, 1024)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
_, st = os.waitpid(pid, 0)
print(out.decode(errors="replace").replace("\r", ""), "exit", os.waitstatus_to_exitcode(st))
PY
sigints() { python3 "$tmp/onatty.py" "$1" "$gt" record -o "$tmp/sig-$1.db" -- python3 "$tmp/count.py" | grep -o 'SIGINTs: [0-9]*\|exit [0-9]*' | tr '\n' ' '; }
expect "Ctrl-C at the terminal: the program gets one SIGINT" "$(sigints tty)" "SIGINTs: 1 exit 0 "
expect "SIGINT sent to the pid the caller started: the program gets one" "$(sigints kill)" "SIGINTs: 1 exit 0 "
# a signal to the launcher's whole process group (kill -- -PGID, timeout(1),
# a batch system's group kill): the program gets it once, not once from the
# sender and once more passed on; SIGUSR1 to the pid the caller started
# reaches the program (it is the program: the launcher execs it), and so
# the caller's pid is the program's
cat > "$tmp/group.py" <<'PY'
import os, signal, subprocess, sys
p = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE, start_new_session=True)
assert p.stdout.readline().startswith(b"ready")
if sys.argv[1] == "group":
    os.killpg(p.pid, signal.SIGINT)
else:
    os.kill(p.pid, signal.SIGUSR1)
out = p.stdout.read().decode()
print(out.replace("\n", " "), "exit", p.wait(), "same pid" if ("pid %d" % p.pid) in out else "another pid")
PY
cat > "$tmp/count2.py" <<'PY'
import os, signal, time
n = {signal.SIGINT: 0, signal.SIGUSR1: 0}
def on(sig, frame):
    n[sig] += 1
signal.signal(signal.SIGINT, on)
signal.signal(signal.SIGUSR1, on)
print("ready", flush=True)
time.sleep(1.5)
print("SIGINTs:", n[signal.SIGINT], "SIGUSR1s:", n[signal.SIGUSR1], "pid", os.getpid(), flush=True)
PY
grouped() { python3 "$tmp/group.py" "$1" "$gt" record -o "$tmp/grp-$1.db" -- python3 "$tmp/count2.py" 2> /dev/null |
  grep -o 'SIGINTs: [0-9]* SIGUSR1s: [0-9]*\|exit -*[0-9]*\|same pid\|another pid' | tr '\n' ' '; }
expect "SIGINT to the launcher's process group: the program gets it once" "$(grouped group)" \
  "SIGINTs: 1 SIGUSR1s: 0 exit 0 same pid "
expect "SIGUSR1 to the pid the caller started: the program gets it, and that pid is the program's" "$(grouped usr1)" \
  "SIGINTs: 0 SIGUSR1s: 1 exit 0 same pid "
# nohup: a signal ignored when the launcher starts stays ignored in the program
out=$( (trap '' HUP; "$gt" record -o "$tmp/hup.db" -- sh -c 'kill -HUP $$; echo alive') 2> "$tmp/hup.err")
expect "an ignored SIGHUP stays ignored in the program" "$?:$out" "0:alive"
# sh calls no CUDA: the one line saying so, from sh's own end, is all of stderr
expect "... and says nothing but that nothing was written" "$(grep -vc 'nothing was written to' "$tmp/hup.err")" 0

# the line that nothing was written, from the command's own end: once
# through an exec chain (the pid is kept: sh's image and true's), also for
# --one-file; never into a file the program opened on descriptor 2 after
# closing it; and a stderr with no reader left raises no SIGPIPE in the
# program (its exit status is its own, 0)
"$gt" record -o "$tmp/chain.db" -- sh -c 'exec true' 2> "$tmp/chain.err"
expect "exec chain: the line once" "$?:$(grep -c 'nothing was written to' "$tmp/chain.err")" "0:1"
"$gt" record -o "$tmp/own.db" -- sh -c 'mkdir -p "$0" && : > "$0/mine.db"' "$tmp/own.db" 2> "$tmp/own.err"
expect "a file of the program's own in the run directory is no process's: the line" \
  "$?:$(grep -c 'nothing was written' "$tmp/own.err")" "0:1"
"$gt" record --one-file -o "$tmp/one-none.db" -- true 2> "$tmp/one.err"
expect "--one-file, nothing written: the line" "$(grep -c "nothing was written to $tmp/one-none.db" "$tmp/one.err")" 1
DATA="$tmp/data" "$gt" record -o "$tmp/reuse.db" -- python3 -c 'import os
os.close(2)
fd = os.open(os.environ["DATA"], os.O_WRONLY | os.O_CREAT, 0o644)
assert fd == 2' 2> "$tmp/reuse.err"
expect "descriptor 2 reused for the program's file: nothing written into it" "$?:$(wc -c < "$tmp/data")" "0:0"
expect "... nor on the stderr given (the line is not owed to another file)" "$(grep -c 'nothing was written' "$tmp/reuse.err")" 0
python3 - "$gt" "$tmp/pipe.db" > "$tmp/pipe.out" <<'PY'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)  # no reader: a write to w raises SIGPIPE
p = subprocess.Popen([sys.argv[1], "record", "-o", sys.argv[2], "--", "true"], stderr=w,
                     preexec_fn=lambda: __import__("signal").signal(__import__("signal").SIGPIPE, __import__("signal").SIG_DFL))
os.close(w)
print("exit", p.wait())
PY
expect "stderr with no reader: the program's exit status kept (no SIGPIPE)" "$(cat "$tmp/pipe.out")" "exit 0"

# after a clean exit, and the report read it, a run directory holds the
# processes' files alone: no -wal or -shm beside them
"$gt" record -o "$tmp/clean" -- "$b/tests/sim/gpusim-run" -n 2 "$b/tests/apps/scalar_read" > /dev/null 2>&1
"$b/gputrace-report" "$tmp/clean" > /dev/null 2>&1
expect "a run read by the report: its files only, no -wal or -shm" \
  "$(ls "$tmp/clean" | grep -c -- '-wal$\|-shm$'):$(ls "$tmp/clean" | grep -c '\.db$')" "0:2"

finish
