#!/usr/bin/env python3
"""hold_lock.py DB SECONDS: once DB holds its process row (the tracer
opened it), takes its write lock, as another process of a --one-file run
does, and holds it for SECONDS; prints "held S" (the seconds held), or
"never" if the file was not there within 10 s.  For the tests of the
writer's stalls (tests/e2e/tracer_stall.sh, tracer_stress.sh)."""
import os
import sqlite3
import sys
import time

db, secs = sys.argv[1], float(sys.argv[2])
for _ in range(1000):
    try:
        if os.path.exists(db) and sqlite3.connect(db).execute("select count(*) from process").fetchone()[0]:
            break
    except sqlite3.Error:
        pass
    time.sleep(0.01)
else:
    print("never")
    sys.exit(0)
c = sqlite3.connect(db, timeout=20, isolation_level=None)
c.execute("begin immediate")
t = time.monotonic()
time.sleep(secs)
c.execute("commit")
print("held %.1f" % (time.monotonic() - t))
