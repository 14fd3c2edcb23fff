#!/usr/bin/env python3
"""hold_lock.py DB SECONDS GO: once DB holds its process row (the tracer
opened it), takes its write lock, as another process of a --one-file run
does, creates the file GO (the program waits for it before the calls the
hold-up must meet: tests/apps/go_file.h), and holds the lock until
GO.done exists (the program made those calls), SECONDS at most; prints
"held S" (the seconds held), or "never" if the file was not there within
10 s.  A handshake, not a time from whenever the row showed: the hold-up
falls among the program's calls however fast or slow the machine
(tracer_stress.sh, tracer_membound.sh, tracer_stall.sh).

hold_lock.py --open DB PID COPY: once DB holds its process row, opens a
connection and reads (so that it holds the write-ahead log's shared
lock), prints "open", and keeps it open until process PID has exited;
then copies DB alone (without its -wal) to COPY, and only then closes.
For the close of a file another connection holds (tracer_files.sh)."""
import os
import sqlite3
import sys
import time


def wait_for_process_row(db):
    """Whether DB held a process row within 10 s."""
    for _ in range(1000):
        try:
            if os.path.exists(db) and sqlite3.connect(db).execute("select count(*) from process").fetchone()[0]:
                return True
        except sqlite3.Error:
            pass
        time.sleep(0.01)
    return False


if sys.argv[1] == "--open":
    db, pid, copy = sys.argv[2], sys.argv[3], sys.argv[4]
    if not wait_for_process_row(db):
        print("never")
        sys.exit(0)
    c = sqlite3.connect(db)
    c.execute("select count(*) from process").fetchone()
    print("open", flush=True)
    while os.path.exists("/proc/" + pid):
        time.sleep(0.02)
    with open(db, "rb") as src, open(copy, "wb") as dst:
        dst.write(src.read())
    c.close()
    sys.exit(0)

db, secs, go = sys.argv[1], float(sys.argv[2]), sys.argv[3]
if not wait_for_process_row(db):
    print("never")
    sys.exit(0)
c = sqlite3.connect(db, timeout=20, isolation_level=None)
c.execute("begin immediate")
t = time.monotonic()
open(go, "w").close()
while not os.path.exists(go + ".done") and time.monotonic() - t < secs:
    time.sleep(0.01)
c.execute("commit")
print("held %.1f" % (time.monotonic() - t))
