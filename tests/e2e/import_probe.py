#!/usr/bin/env python3
"""import_probe.py BUILD SRC: what an outside probe found the importers
(and the report on what they read) doing with hostile input, each case
checked the way a user would see it:

- an output that is an input, or a file that is no gputrace database, is
  never removed (`-f -o traces/rank-1.json traces/` lost rank 1);
- text of the input (an nsys schema version, SQLite's words on a column's
  COLLATE name, a Kineto metadata string, a file's name) and the report's
  environment variables never reach stderr, import_note or the text
  report as raw control characters or kilobytes; invalid UTF-8 never
  reaches the HTML page raw;
- kernel names are capped (each, and the distinct names of a process),
  and a note counts what was cut;
- an nsys export with many processes is read in work linear in its size
  (SQLite's VM steps, which are deterministic, at P and 10 P processes);
- numbers at the ends of the 64-bit range (times, correlations, sizes,
  versions, clock offsets, GPUTRACE_REPORT_WINDOW_ROWS) are range-checked,
  not wrapped (the sanitizer build aborts on a wrap);
- a UTF-8 byte order mark is read; a gzip stream without its trailer is
  said to be truncated; `{}`, `[]` and an export missing a table are
  refused with what is wrong.
"""
import gzip
import json
import os
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile

b, s = sys.argv[1], sys.argv[2]
gt, rep = os.path.join(b, "gputrace"), os.path.join(b, "gputrace-report")
data = os.path.join(s, "tests", "data", "traces")
nsys_src = os.path.join(data, "pipit-nsys", "saxpy-mpi-cuda_nsys_perlmutter0.sqlite")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # tests/e2e/tap.py: TAP lines for automake's driver

tmp = tempfile.mkdtemp()
ESC = "\x1b]0;pwned\x07\x1b[31m"  # a title set, a bell, a colour


def check(what, cond, detail=""):
    return tap.check(cond, what if cond or detail == "" else "%s %s" % (what, detail))


def run(args, env=None):
    p = subprocess.run(args, capture_output=True, timeout=300, env=dict(os.environ, **(env or {})))
    p.err = p.stderr.decode("utf-8", "replace")
    return p


def sane(what, p):
    """No crash or sanitizer report, and stderr safe for a terminal."""
    check(what + ": exit 0 or 1 (or 2)", p.returncode in (0, 1, 2) and "runtime error" not in p.err
          and "Sanitizer" not in p.err, "(exit %d: %s)" % (p.returncode, p.err[-500:]))
    raw = p.stderr
    check(what + ": no control character on stderr", not re.search(rb"[\x00-\x09\x0b-\x1f\x7f]", raw),
          "(%r)" % raw[:300])


def one_line(what, p, pattern):
    lines = p.err.splitlines()
    check(what, len(lines) == 1 and re.search(pattern, lines[0]) is not None and len(lines[0]) < 1200,
          "(exit %d, stderr %r)" % (p.returncode, p.err[:400]))


def content(path):
    try:
        return open(path, "rb").read()
    except OSError:
        return None


def q(db, sql):
    c = sqlite3.connect(db)
    try:
        return c.execute(sql).fetchall()
    finally:
        c.close()


def kineto(path, events, top=None, gz=False):
    body = dict(top or {})
    body["traceEvents"] = events
    raw = json.dumps(body).encode()
    with (gzip.open(path, "wb") if gz else open(path, "wb")) as f:
        f.write(raw)
    return path


def kernel(name, ts, corr=1, args=None):
    a = {"device": 0, "stream": 7, "correlation": corr}
    a.update(args or {})
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": 5, "args": a}


def launch(ts, corr=1):
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": ts,
            "dur": 2, "args": {"correlation": corr, "cbid": 211}}


simple = [launch(10, 1), kernel("k", 20, 1)]

# ---- 4. the output is never an input, and -f replaces only our databases -----
traces = os.path.join(tmp, "traces")
os.mkdir(traces)
for r in (0, 1):
    kineto(os.path.join(traces, "rank-%d.json" % r), simple, {"distributedInfo": {"rank": r, "world_size": 2}})
before = content(os.path.join(traces, "rank-1.json"))
p = run([gt, "import", "-f", "-o", os.path.join(traces, "rank-1.json"), traces])
one_line("-f -o traces/rank-1.json traces/: refused (a usage error, exit 2)", p, r"rank-1\.json is an input: not overwritten")
check("... exit 2", p.returncode == 2, "(exit %d)" % p.returncode)
check("... and rank-1.json is still there, unchanged", content(os.path.join(traces, "rank-1.json")) == before)
link = os.path.join(tmp, "link.json")
os.symlink(os.path.join(traces, "rank-0.json"), link)
p = run([gt, "import", "-f", "-o", os.path.join(traces, "rank-0.json"), link])
check("-f -o a trace given through a link to it: refused", p.returncode == 2 and os.path.getsize(os.path.join(traces, "rank-0.json")) > 0,
      "(exit %d: %s)" % (p.returncode, p.err))
notes = os.path.join(tmp, "notes.txt")
open(notes, "w").write("my notes\n")
p = run([gt, "import", "-q", "-f", "-o", notes, os.path.join(traces, "rank-0.json")])
one_line("-f -o a file that is no gputrace database: refused", p, r"notes\.txt exists and is not a gputrace database: not replaced")
check("... and it is unchanged", content(notes) == b"my notes\n")
old = os.path.join(tmp, "old.db")
check("an import to replace", run([gt, "import", "-q", "-o", old, os.path.join(traces, "rank-0.json")]).returncode == 0)
p = run([gt, "import", "-q", "-f", "-o", old, traces])
check("-f replaces a gputrace database", p.returncode == 0 and q(old, "select count(*) from process") == [(2,)],
      "(exit %d: %s)" % (p.returncode, p.err))
open(old + "-wal", "w").write("not a log\n")
p = run([gt, "import", "-q", "-f", "-o", old, traces])
one_line("-f with a -wal beside it that is not SQLite's: refused", p, r"old\.db-wal exists and is not SQLite's")
check("... and the -wal file is unchanged", content(old + "-wal") == b"not a log\n")
if os.path.exists(old + "-wal"):
    os.unlink(old + "-wal")
empty = os.path.join(tmp, "empty.db")
open(empty, "w").close()
check("-f over an empty file (the report's temporary one)",
      run([gt, "import", "-q", "-f", "-o", empty, traces]).returncode == 0 and os.path.getsize(empty) > 0)


# ---- 8. the input's text is made safe wherever it is shown ---------------------
def nsys_copy(name, sql=None, writable=None):
    path = os.path.join(tmp, name + ".sqlite")
    shutil.copy(nsys_src, path)
    os.chmod(path, 0o644)
    c = sqlite3.connect(path)
    if sql:
        c.executescript(sql)
    if writable:  # the schema's own text, as a hostile file can have it
        c.execute("PRAGMA writable_schema=ON")
        c.execute(writable[0], writable[1:])
        c.commit()
        c.execute("PRAGMA writable_schema=OFF")
    c.commit()
    c.close()
    return path


long_text = ESC + "\n" + "A" * 10000
path = nsys_copy("version")
c = sqlite3.connect(path)
c.execute("UPDATE EXPORT_META_DATA SET value = ? WHERE name = 'EXPORT_SCHEMA_VERSION_MAJOR'", (long_text,))
c.commit()
c.close()
for tool in ("import", "report"):
    args = [gt, "import", "-q", "-f", "-o", os.path.join(tmp, "v.db"), path] if tool == "import" else [rep, path]
    p = run(args)
    sane("nsys schema version with ESC, a newline and 10 KB (%s)" % tool, p)
    one_line("... one short line, the version escaped and cut (%s)" % tool, p,
             r"a version this reader does not know \(schema \\x1b\]0;pwned\\x07.*\.\.\.\)$")
ddl = q(nsys_src, "select sql from sqlite_master where name = 'CUPTI_ACTIVITY_KIND_KERNEL'")[0][0]
bad_ddl = ddl.replace("globalPid                   INTEGER", 'globalPid INTEGER COLLATE "%s"' % long_text.replace('"', ''), 1)
check("the export's DDL has the column to give a COLLATE", bad_ddl != ddl)
path = nsys_copy("collate", writable=("UPDATE sqlite_master SET sql = ? WHERE name = 'CUPTI_ACTIVITY_KIND_KERNEL'", bad_ddl))
for tool in ("import", "report"):
    args = [gt, "import", "-q", "-f", "-o", os.path.join(tmp, "c.db"), path] if tool == "import" else [rep, path]
    p = run(args)
    sane("a COLLATE name with ESC and 10 KB, through SQLite's error (%s)" % tool, p)
    one_line("... one line, refused, the name escaped (%s)" % tool, p, r"no such collation sequence: \\x1b\]0;pwned")
named = kineto(os.path.join(tmp, "named.json"), simple, {"distributedInfo": {"rank": 0, "world_size": 1,
                                                                         "nccl_version": ESC + "\n2.17.1"}})
db = os.path.join(tmp, "named.db")
p = run([gt, "import", "-f", "-o", db, named])
sane("a Kineto nccl_version with ESC and a newline (import, notes on stderr)", p)
stored = [n for (n,) in q(db, "select note from import_note where note like '%nccl_version%'")]
check("... stored in import_note made safe", len(stored) == 1 and "\x1b" not in stored[0] and "\n" not in stored[0]
      and "\\x1b]0;pwned\\x07" in stored[0], "(%r)" % stored)
c = sqlite3.connect(db)  # a note as a hostile database (or an older import) may hold it
c.execute("UPDATE import_note SET note = ? WHERE rowid = (SELECT min(rowid) FROM import_note)", (long_text,))
c.commit()
c.close()
p = run([rep, db])
txt = p.stdout.decode("utf-8", "replace")
check("the text report's 'Not checked' lists a raw note escaped, on one line, cut",
      "\x1b" not in txt and "\x07" not in txt and "\\x1b]0;pwned\\x07" in txt
      and max(len(line) for line in txt.splitlines()) < 2100, "(%r)" % txt[-400:])
evil_dir = os.path.join(tmp, "evil")
os.mkdir(evil_dir)
evil = kineto(os.path.join(evil_dir, "a\x1b]0;x\x07.json"), simple)
with open(evil, "ab") as f:
    f.write(b"xx")
p = run([gt, "import", "-f", "-o", os.path.join(tmp, "e.db"), evil_dir])
sane("a trace whose file name holds ESC, refused (import)", p)
p = run([rep, evil_dir])
sane("... (report)", p)
p = run([rep, db], {"GPUTRACE_REPORT_JOBS": long_text})
sane("GPUTRACE_REPORT_JOBS with ESC, a newline and 10 KB", p)
first = p.err.splitlines()[0] if p.err else ""
check("... said in one short line, the value escaped and cut", len(first) < 300 and re.search(
    r"GPUTRACE_REPORT_JOBS is a number of workers \(1 or more\), not '\\x1b\]0;pwned.*\.\.\.'", first), "(%r)" % first)
p = run([rep, db], {"GPUTRACE_REPORT_WINDOW_ROWS": long_text})
sane("GPUTRACE_REPORT_WINDOW_ROWS with ESC, a newline and 10 KB", p)
one_line("... said once, without the value", p, r"GPUTRACE_REPORT_WINDOW_ROWS is not a number of rows")

# ---- 9. kernel names: each capped, and the distinct ones of a process ---------------------
events = [launch(10, 1), kernel("k_" + "a" * 70000, 20, 1)]
for i in range(300):  # 300 distinct names of 60 KB: past the 16 MiB kept of a process
    events += [launch(100 + 10 * i, 2 + i), kernel("n%d_" % i + "b" * 60000, 105 + 10 * i, 2 + i)]
names = kineto(os.path.join(tmp, "names.json.gz"), events, gz=True)
db = os.path.join(tmp, "names.db")
p = run([gt, "import", "-q", "-f", "-o", db, names])
sane("301 long distinct kernel names", p)
((longest, total, cut),) = q(db, "select max(length(cast(value as blob))), sum(length(cast(value as blob))),"
                                 " sum(value like '%…[cut]') from string")
check("... no name kept longer than 65535 bytes, the long one cut and marked", longest <= 65535 and cut == 1,
      "(longest %r, cut %r)" % (longest, cut))
check("... the distinct names of the process kept to 16 MiB", total <= 16 << 20, "(%r bytes)" % total)
notes = " ".join(n for (n,) in q(db, "select note from import_note where kind = 'kernel names'"))
check("... notes count the cut name and the kernels left unnamed",
      re.search(r"\b1 kernel names longer than 65535 bytes were cut", notes) is not None
      and re.search(r"\b\d+ kernels have no name", notes) is not None, "(%r)" % notes)
p = run([rep, db])
check("... the report lists them under 'Not checked'", p.returncode == 0 and b"kernel names: " in p.stdout,
      "(exit %d)" % p.returncode)


# ---- 10. an nsys export of many processes: work linear in its size ---------------------------
def many_processes(nproc):
    path = os.path.join(tmp, "procs%d.sqlite" % nproc)
    src = sqlite3.connect(nsys_src)
    tables = ("StringIds", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_KERNEL", "EXPORT_META_DATA",
              "PROCESSES", "ThreadNames", "NVTX_EVENTS")
    ddl = [r[0] for r in src.execute("select sql from sqlite_master where type = 'table' and name in (%s)"
                                     % ",".join("'%s'" % t for t in tables))]
    kcols = [r[1] for r in src.execute("pragma table_info(CUPTI_ACTIVITY_KIND_KERNEL)")]
    src.close()
    c = sqlite3.connect(path)
    for d in ddl:
        c.execute(d)
    c.execute("insert into StringIds values (0, 'cudaLaunchKernel_v7000'), (1, 'k')")
    c.execute("insert into EXPORT_META_DATA values ('EXPORT_SCHEMA_VERSION_MAJOR', '2')")
    for i in range(1, nproc + 1):  # one call and its kernel per process
        g = i << 24
        c.execute("insert into CUPTI_ACTIVITY_KIND_RUNTIME(start, end, eventClass, globalTid, correlationId, nameId,"
                  " returnValue) values (?, ?, 0, ?, ?, 0, 0)", (1000 * i, 1000 * i + 10, g + i, i))
        row = dict.fromkeys(kcols, 0)
        row.update(start=1000 * i + 20, end=1000 * i + 30, globalPid=g, correlationId=i, demangledName=1,
                   shortName=1, streamId=7)
        c.execute("insert into CUPTI_ACTIVITY_KIND_KERNEL(%s) values (%s)" % (",".join(row), ",".join("?" * len(row))),
                  list(row.values()))
        c.execute("insert into PROCESSES values (?, ?, ?)", (g, i, "p%d" % i))
    c.commit()
    c.close()
    return path


steps = {}
for nproc in (300, 3000):
    path = many_processes(nproc)
    db = os.path.join(tmp, "procs.db")
    p = run([gt, "import", "-q", "-f", "-o", db, path], {"GPUTRACE_IMPORT_STEPS": "1"})
    m = re.search(r"(\d+) SQLite steps", p.err)
    check("an export of %d processes of one call: imported, steps counted" % nproc, p.returncode == 0 and m
          and q(db, "select count(*) from process") == [(nproc,)], "(exit %d: %s)" % (p.returncode, p.err[-300:]))
    steps[nproc] = int(m.group(1)) if m else 0
check("ten times the processes, at most 15 times the SQLite steps (a scan per process: 100 times)",
      steps[300] > 0 and steps[3000] <= 15 * steps[300], "(%r)" % steps)

# ---- 13. numbers at the ends of the 64-bit range -------------------------------------------------
# one trace per number, so that each is reached (a wrap aborts the sanitizer build where it happens)
big = 9223372036854775807
nccl_args = {"Collective name": "allreduce", "Process Group Name": "0", "dtype": "Float", "In msg nelems": 5}
edges = {
    "times": ([launch(9000000000000000, 1),         # 9e18 ns: the shift is most of it
               kernel("k", 9000000000000010, 1),
               launch(-9000000000000000, 2),        # minus the shift: past -2^63
               launch(9000000000000020, 3) | {"dur": 9223372036854760}], {}),  # start + dur: past 2^63
    "correlation": ([launch(10, 1), kernel("ncclKernel_AllReduce_RING_LL_Sum_float", 20, big, nccl_args)], {}),
    "size": ([launch(10, 1), kernel("ncclKernel_AllReduce_RING_LL_Sum_float", 20, 1,
                                    nccl_args | {"In msg nelems": 4611686018427387904})], {}),
    "version": (simple, {"distributedInfo": {"rank": 0, "world_size": 1, "nccl_version": "2000000.0.0"}}),
    "base": (simple, {"baseTimeNanoseconds": big}),
    "base+shift": ([launch(9000000000000000, 1), kernel("k", 9000000000000010, 1)],
                   {"baseTimeNanoseconds": 4611686018427387904}),
}
results = {}
for name, (events, top) in edges.items():
    db = os.path.join(tmp, "edge-%s.db" % name.replace("+", "-"))
    p = run([gt, "import", "-q", "-f", "-o", db, kineto(os.path.join(tmp, "edge.json"), events, top)])
    sane("64-bit ends: %s" % name, p)
    ok = p.returncode == 0 and os.path.exists(db)
    results[name] = (db, " ".join(n for (n,) in q(db, "select note from import_note")) if ok else "")
    check("... imported", ok, "(exit %d)" % p.returncode)
check("times: the 2 events past 64 bits left out, a note",
      "2 events with times past what 64-bit nanoseconds hold" in results["times"][1], "(%r)" % results["times"][1])
for name in ("correlation", "size"):
    db, notes = results[name]
    check("%s: no collective, a note" % name, q(db, "select count(*) from collective") == [(0,)]
          and "1 NCCL kernels with a correlation or a size" in notes, "(%r)" % notes)
db, notes = results["version"]
check("nccl_version 2000000.0.0: not stored (it wrapped to a number), a note",
      q(db, "select nccl_version from process") == [(None,)] and "nccl_version" in notes, "(%r)" % notes)
db, notes = results["base"]
check("baseTimeNanoseconds 2^63-1: not used (the offset wrapped negative), a note",
      q(db, "select clock_offset_ns >= 0 from process") == [(1,)] and "baseTimeNanoseconds 9223372036854775807" in notes,
      "(%r)" % notes)
db, notes = results["base+shift"]
check("a base and an epoch shift past 2^63 together: the offset is not wrapped",
      q(db, "select clock_offset_ns > 0 from process") == [(1,)])
db = os.path.join(tmp, "real.db")  # a real trace: its ranks are planned in windows (a made-up one may not be)
run([gt, "import", "-q", "-f", "-o", db, os.path.join(data, "hta-critical-path", "event_sync_trace.json.gz")])
for rows in ("99999999999999999999", "9223372036854775807", "-5", "0"):
    p = run([rep, db], {"GPUTRACE_REPORT_WINDOW_ROWS": rows})
    sane("GPUTRACE_REPORT_WINDOW_ROWS=%s" % rows, p)
    check("... a report", p.returncode == 0 and b"rank" in p.stdout, "(exit %d: %s)" % (p.returncode, p.err[-300:]))

# ---- 14. a byte order mark; a gzip stream without its trailer ---------------------------------------
body = json.dumps({"traceEvents": simple}).encode()
bom = os.path.join(tmp, "bom.json")
open(bom, "wb").write(b"\xef\xbb\xbf" + body)
p = run([gt, "import", "-q", "-f", "-o", os.path.join(tmp, "bom.db"), bom])
check("a trace that starts with a UTF-8 byte order mark is read", p.returncode == 0 and
      q(os.path.join(tmp, "bom.db"), "select count(*) from gpu_op") == [(1,)], "(exit %d: %s)" % (p.returncode, p.err))
cut = os.path.join(tmp, "cut.json.gz")
open(cut, "wb").write(gzip.compress(body)[:-8])
db = os.path.join(tmp, "cut.db")
p = run([gt, "import", "-q", "-f", "-o", db, cut])
one_line("a gzip stream without its trailer: said to be truncated, exit 1", p,
         r"truncated: the gzip stream ends before its trailer")
check("... exit 1, what was read imported, with a note", p.returncode == 1 and
      any("ends before its trailer" in n for (n,) in q(db, "select note from import_note")))

# ---- 16. what is wrong, said ---------------------------------------------------------------------------
# (the last: events, none of them CUDA or annotation ones, as when every
# time is out of range: refused as the others, nothing written; it was
# once taken for a trace cut short, its process row written)
cpu_only = b'{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "ts": 1, "dur": 2, "pid": 1, "tid": 1}]}'
for body, want in ((b"{}", r"not a Kineto trace: no traceEvents"), (b"[]", r"no CUDA or annotation events among 0"),
                   (cpu_only, r"no CUDA or annotation events among 1")):
    path = os.path.join(tmp, "e.json")
    open(path, "wb").write(body)
    out = os.path.join(tmp, "e.db")
    p = run([gt, "import", "-q", "-f", "-o", out, path])
    one_line("%s: %s" % (body.decode()[:40], want), p, want)
    check("... exit 1, nothing written", p.returncode == 1 and not os.path.exists(out), "(exit %d)" % p.returncode)
for table in ("StringIds", "CUPTI_ACTIVITY_KIND_RUNTIME"):
    path = nsys_copy("no" + table, "DROP TABLE %s;" % table)
    p = run([gt, "import", "-q", "-f", "-o", os.path.join(tmp, "n.db"), path])
    one_line("an nsys export without %s: the table named" % table, p, r"without the table %s" % table)
odd = os.path.join(tmp, "bad\xff\xfe-name.json".encode("latin-1").decode("utf-8", "surrogateescape"))
kineto(odd, simple)
html = os.path.join(tmp, "page.html")
p = run([rep, "--html", html, odd])
page = open(html, "rb").read() if os.path.exists(html) else b""
try:
    page.decode("utf-8")
    valid = True
except UnicodeDecodeError:
    valid = False
check("an input whose name is invalid UTF-8: the HTML page is valid UTF-8, U+FFFD in its place",
      p.returncode == 0 and valid and "bad\ufffd\ufffd-name".encode() in page, "(exit %d: %s)" % (p.returncode, p.err))

peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
check("no import or report took more than 300 MiB", peak < 300, "(%.0f MiB)" % peak)
shutil.rmtree(tmp, ignore_errors=True)
tap.finish()
