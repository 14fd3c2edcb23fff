#!/usr/bin/env python3
"""report_signals.py REPORT TMP NSYS_EXPORT: what a report ended by a signal
leaves (report_tmpfiles.sh).

The report imports an nsys export (a database in $TMPDIR), writes a Kineto
trace and then an HTML page into a FIFO no one reads: it waits in that
open for good, every file of its own made by then.  Once its Kineto trace
is there (a temporary file beside it), the checks look at what it made,
then a signal ends it: it must die of that signal, and leave nothing: no
import database in $TMPDIR, no Kineto file, whole or not.  No timing is
relied on: the report cannot get past the FIFO, and the waits are for
files to appear (60 s at most, a failure)."""
import os
import signal
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # tests/e2e/tap.py: its checks numbered after report_tmpfiles.sh's (tap_py)

rep, tmp, export = sys.argv[1:4]


def check(what, cond, detail=""):
    return tap.check(cond, what + ("" if cond else " (%s)" % (detail,)))


def wait_for(cond, seconds=60):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return False


def default_signals():
    # a shell runs a background job with SIGINT ignored: the report would
    # (rightly) leave it so
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)


fifo = os.path.join(tmp, "sig.fifo")
os.mkfifo(fifo)
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    name = signal.Signals(sig).name
    tmpdir = os.path.join(tmp, "sigtmp-" + name)
    kdir = os.path.join(tmp, "sigk-" + name)
    os.mkdir(tmpdir)
    p = subprocess.Popen([rep, "--kineto", kdir, "--html", fifo, export], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env=dict(os.environ, TMPDIR=tmpdir), preexec_fn=default_signals)
    started = wait_for(lambda: os.path.isdir(kdir) and any(f.startswith(".") for f in os.listdir(kdir)))
    check(name + ": the Kineto trace written beside its name first", started, os.listdir(tmpdir))
    made = os.listdir(tmpdir)
    st = os.lstat(os.path.join(tmpdir, made[0])) if len(made) == 1 else None
    check(name + ": the import's database in a directory of the report's own, mode 0700",
          st and stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o700,
          [(f, oct(os.lstat(os.path.join(tmpdir, f)).st_mode)) for f in made])
    # the scratch files the report holds open in $TMPDIR: nobody else's to read
    modes = []
    for fd in os.listdir("/proc/%d/fd" % p.pid):
        try:
            target = os.readlink("/proc/%d/fd/%s" % (p.pid, fd))
            if target.startswith(tmpdir + "/") and "(deleted)" in target:
                modes.append(stat.S_IMODE(os.stat("/proc/%d/fd/%s" % (p.pid, fd)).st_mode))
        except OSError:
            pass
    check(name + ": its scratch files without a name, mode 0600", modes and all(m == 0o600 for m in modes),
          [oct(m) for m in modes])
    p.send_signal(sig)
    rc = p.wait(timeout=60)
    check(name + ": the report dies of it", rc == -sig, rc)
    check(name + ": nothing left in TMPDIR", os.listdir(tmpdir) == [], os.listdir(tmpdir))
    check(name + ": no Kineto file, whole or in part", os.listdir(kdir) == [], os.listdir(kdir))
tap.finish()
