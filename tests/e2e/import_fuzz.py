#!/usr/bin/env python3
"""import_fuzz.py BUILDDIR SRCDIR: `gputrace import` (and gputrace-report on
what it wrote, and on the input directly) on damaged and foreign traces.

From the real traces of tests/data/traces, with a fixed seed so that a
failure repeats: Kineto JSON cut short at random places (plain and gzip),
bytes overwritten at random (also in the gzip stream), values swapped for
odd ones (wrong types, huge numbers, deep nesting), JSON of other tools;
nsys exports with bytes overwritten, columns set to odd values, tables
dropped or made views, a schema version this reader does not know.
Every number the Kineto importer does arithmetic with (times, durations,
correlations, sizes, versions, the clock's base) is also set, one field
at a time, to the ends of the 64-bit range and just past them: under the
sanitizer build a wrap aborts (it must be range-checked instead).
Every case must end with exit 0 or 1 and at most one line on stderr from
the import, never a crash, a hang or a sanitizer report; a database it
wrote must report with exit 0 or 1.
"""
import gzip
import json
import os
import random
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile

b, s = sys.argv[1], sys.argv[2]
data = os.path.join(s, "tests", "data", "traces")
# the cases shared between CI's two passes, each with a seed of its own,
# the larger share under the sanitizers (as report_fuzz.py)
SANITIZED = bool(os.environ.get("GT_SANITIZED"))
CASES = int(os.environ.get("FUZZ_CASES", "70" if SANITIZED else "30"))
tmp = tempfile.mkdtemp()
rnd = random.Random(int(os.environ.get("FUZZ_SEED", "24" if SANITIZED else "23")))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # tests/e2e/tap.py: TAP lines for automake's driver



def bad(what):
    tap.check(False, what)


def run(args, what):
    try:
        p = subprocess.run(args, capture_output=True, text=True, errors="replace", timeout=120)
    except subprocess.TimeoutExpired:
        bad(what + ": hung")
        return None
    if p.returncode not in (0, 1) or "Sanitizer" in p.stderr or "runtime error" in p.stderr:
        bad("%s: exit %d: %s" % (what, p.returncode, p.stderr[-600:]))
        return None
    return p


def case(path, what):
    out = os.path.join(tmp, "out.db")
    p = run([os.path.join(b, "gputrace"), "import", "-q", "-f", "-o", out, path], what)
    if p is None:
        return
    if len(p.stderr.strip().splitlines()) > 1:
        bad(what + ": more than one line on stderr: " + p.stderr[-400:])
        return
    if p.returncode == 1 and not p.stderr.strip():
        bad(what + ": exit 1 without a reason")
        return
    if os.path.exists(out) and run([os.path.join(b, "gputrace-report"), out], what + " (report)") is None:
        return
    if run([os.path.join(b, "gputrace-report"), path], what + " (report on the trace)") is None:
        return
    tap.check(True, what)


def json_text(name):
    with gzip.open(os.path.join(data, name), "rb") as f:
        return f.read()


small = json_text("hta-critical-path/event_sync_trace.json.gz")
multi = json_text("hta-critical-path/event_sync_multi_stream_trace.json.gz")
odd = [b"null", b"-1", b"1e308", b"-1e308", b"18446744073709551616", b"\"x\"", b"[]", b"{}", b"true",
       b"\"\\ud800\"", b"1.5e3", b"[[[[[[[[1]]]]]]]]", b"\"" + b"a" * 5000 + b"\"", b"-0", b"0.0000001",
       b"9223372036854775807", b"-9223372036854775808", b"9223372036854769", b"-9223372036854769",
       b"4611686018427387904", b"\"2000000.0.0\"", b"\"\xef\xbb\xbf\""]


def write(name, body, gz=False):
    path = os.path.join(tmp, name + (".json.gz" if gz else ".json"))
    with (gzip.open(path, "wb") if gz else open(path, "wb")) as f:
        f.write(body)
    return path


for i in range(CASES):
    src = small if i % 2 else multi
    k = i % 4
    if k == 0:  # cut short
        case(write("cut%d" % i, src[:rnd.randrange(1, len(src))], gz=i % 3 == 0), "cut %d" % i)
    elif k == 1:  # bytes overwritten
        body = bytearray(src)
        for _ in range(rnd.randrange(1, 20)):
            body[rnd.randrange(len(body))] = rnd.randrange(256)
        case(write("bytes%d" % i, bytes(body)), "bytes %d" % i)
    elif k == 2:  # values swapped for odd ones
        body = src
        for _ in range(rnd.randrange(1, 30)):
            at = [j for j in range(len(body)) if body[j:j + 2] == b": "]
            j = rnd.choice(at) + 2
            end = j
            while end < len(body) and body[end:end + 1] not in (b",", b"}", b"]"):
                end += 1
            if body[j:j + 1] in (b"{", b"["):
                continue
            body = body[:j] + rnd.choice(odd) + body[end:]
        case(write("odd%d" % i, body), "odd values %d" % i)
    else:  # the gzip stream damaged
        path = write("gz%d" % i, src, gz=True)
        raw = bytearray(open(path, "rb").read())
        for _ in range(rnd.randrange(1, 6)):
            raw[rnd.randrange(10, len(raw))] = rnd.randrange(256)
        open(path, "wb").write(bytes(raw))
        case(path, "gzip damaged %d" % i)

# JSON of other tools, and oddities of the format
for name, body in [("empty", b""), ("spaces", b"   \n"), ("other", b"{\"foo\": 1, \"bar\": [1, 2]}"),
                   ("array", b"[]"), ("cpu-only", b"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\":"
                                      b" \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}]}"),
                   ("deep", b"[" * 100000), ("deep-closed", b"{\"traceEvents\": [" + b"[" * 70 + b"]" * 70 + b"]}"),
                   ("number", b"42"), ("garbage", bytes(rnd.randrange(256) for _ in range(4096))),
                   ("nul", b"{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"\\u0000\"}]}"),
                   ("trailing", small + b"]"), ("twice", small + small)]:
    case(write(name, body), "foreign: " + name)

# the 64-bit ends, field by field, in a trace that uses every number the importer computes with
EDGES = [9223372036854775807, -9223372036854775808, 9223372036854775808, 9223372036854769, -9223372036854769,
         4611686018427387904, 4294967296, -1, "2000000.0.0", "99.99.99"]


def edge_trace(field, value):
    nccl = {"Collective name": "allreduce", "Process Group Name": "0", "Process Group Ranks": "[0, 1]",
            "dtype": "Float", "In msg nelems": 1024, "Out msg nelems": 1024, "Group size": 2, "Seq": 3,
            "device": 0, "stream": 7, "correlation": 2}
    ev = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": 1700000000000000,
           "dur": 5, "args": {"correlation": 2, "cbid": 211}},
          {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float", "pid": 0, "tid": 7,
           "ts": 1700000000000010, "dur": 20, "args": nccl},
          {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7,
           "ts": 1700000000000040, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": 3, "bytes": 64}}]
    top = {"baseTimeNanoseconds": 1700000000000000000, "distributedInfo": {"rank": 0, "world_size": 2,
                                                                            "nccl_version": "2.17.1"}}
    where, key = field
    if where == "top":
        top[key] = value
    elif where == "dist":
        top["distributedInfo"][key] = value
    elif where == "nccl":
        nccl[key] = value
    else:  # a member of every event
        for e in ev:
            e[key] = value
    top["traceEvents"] = ev
    return json.dumps(top).encode()


for field in [("ev", "ts"), ("ev", "dur"), ("ev", "pid"), ("ev", "tid"), ("nccl", "correlation"),
              ("nccl", "In msg nelems"), ("nccl", "Seq"), ("nccl", "Group size"), ("nccl", "stream"),
              ("top", "baseTimeNanoseconds"), ("dist", "nccl_version"), ("dist", "rank"), ("dist", "world_size")]:
    for value in EDGES:
        case(write("edge", edge_trace(field, value)), "64-bit edge: %s = %r" % (field[1], value))

# nsys exports
nsys = os.path.join(data, "pipit-nsys", "saxpy-mpi-cuda_nsys_perlmutter0.sqlite")
tables = ["CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "NVTX_EVENTS",
          "StringIds", "CUDA_CALLCHAINS", "TARGET_INFO_GPU", "PROCESSES", "TARGET_INFO_SESSION_START_TIME"]
values = ["NULL", "-1", "0", "4294967295", "9223372036854775807", "-9223372036854775808", "'x'", "x'00'", "1e300"]
for i in range(CASES // 2):
    path = os.path.join(tmp, "n%d.sqlite" % i)
    shutil.copy(nsys, path)
    os.chmod(path, 0o644)
    k = i % 4
    if k == 0:
        raw = bytearray(open(path, "rb").read())
        for _ in range(rnd.randrange(1, 40)):
            raw[rnd.randrange(100, len(raw))] = rnd.randrange(256)
        open(path, "wb").write(bytes(raw))
    else:
        c = sqlite3.connect(path)
        t = rnd.choice(tables)
        if k == 1:
            cols = [r[1] for r in c.execute("PRAGMA table_info(%s)" % t)]
            for _ in range(rnd.randrange(1, 6)):
                try:  # OR IGNORE does not cover an INTEGER PRIMARY KEY set to a non-integer (datatype mismatch)
                    c.execute("UPDATE OR IGNORE %s SET %s = %s WHERE rowid IN (SELECT rowid FROM %s ORDER BY random()"
                              " LIMIT 5)" % (t, rnd.choice(cols), rnd.choice(values), t))
                except sqlite3.Error:
                    pass
        elif k == 2:
            c.execute("DROP TABLE %s" % t)
            if i % 3 == 0:
                c.execute("CREATE VIEW %s AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r)"
                          " SELECT x AS start FROM r" % t)
        else:
            c.execute("UPDATE EXPORT_META_DATA SET value = '%d' WHERE name = 'EXPORT_SCHEMA_VERSION_MAJOR'"
                      % rnd.choice([1, 4, 99]))
        c.commit()
        c.close()
    case(path, "nsys %d" % i)

# a string id far past the count: no array that long (the children's peak memory stays small)
path = os.path.join(tmp, "far.sqlite")
shutil.copy(nsys, path)
os.chmod(path, 0o644)
c = sqlite3.connect(path)
c.execute("INSERT INTO StringIds VALUES (49999999, 'far')")
c.commit()
c.close()
case(path, "nsys: a string id far past the count")
peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
if peak_mib > 200:
    bad("an import or report took %.0f MiB" % peak_mib)

shutil.rmtree(tmp, ignore_errors=True)
tap.finish()
