#!/usr/bin/env python3
"""report_fuzz.py BUILDDIR: gputrace-report on damaged traces.

A real 2-rank trace (half the cases: one whose writer stored calls, NVTX
ranges and CUPTI's API and GPU records in bulk blocks) is damaged two ways, from a fixed seed so that a
failure repeats: bytes overwritten at random (SQLite then finds pages
malformed part-way through a read), and columns of random rows set to odd
values with SQL (the file stays well formed, its contents do not make
sense: NULLs, text where numbers belong, ids no table has, negative sizes).
A third kind of case is hostile schemas: each table in turn an endless
recursive view, or carrying a planted trigger.
Every case must end with exit 0 (a report) or 1 (a one-line error, or a
report that says the file is damaged), never a crash, a hang or a
sanitizer report (and so must `gputrace expand` on it), and any Chrome trace written must parse (the Kineto
export runs too).  Every other report reads its ranks a window of time at
a time (viewer/read/windows.h); every tenth is given a window size past
64 bits.  Values reach
the ends of the 64-bit range: the report keeps each time it reads within
bounds its arithmetic can hold, and saturates its sums.
"""
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

b = sys.argv[1]
rep = os.path.join(b, "gputrace-report")
# CI runs the suite twice, in the normal build and under the sanitizers:
# the cases are shared between the two passes, each damaging its own way
# (a seed of its own), the larger share under the sanitizers, which see
# what a plain run does not (report_fuzz took 115 s and 210 s of a CI run
# over budget with 100 each, 168 s under the sanitizers with 70: 1.9 s a
# case there).  The hostile schemas likewise: each pass takes every other
# table, the two passes all of them.
SANITIZED = bool(os.environ.get("GT_SANITIZED"))
CASES = int(os.environ.get("FUZZ_CASES", "45" if SANITIZED else "20"))
SCHEMA_PART = int(os.environ.get("FUZZ_SCHEMA_PART", "1" if SANITIZED else "0"))  # 2: every table
VALUES = ["NULL", "0", "-1", "1", "2", "7", "65535", "65536", "2147483647", "-2147483648",
          "4294967295", "1000000000000", "-1000000000000", "'x'", "x'00ff'", "1.5",
          "9223372036854775807", "-9223372036854775808", "4611686018427387904", "1e300",
          # blobs for the bulk blocks: a record's size, short, all ones
          "zeroblob(56)", "zeroblob(72)", "zeroblob(3)", "x'" + "ff" * 72 + "'"]

tmp = tempfile.mkdtemp()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # tests/e2e/tap.py: TAP lines for automake's driver



def ok(what):
    tap.check(True, what)


def bad(what):
    tap.check(False, what)


def fresh(path):
    for ext in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(path + ext):
            os.unlink(path + ext)


reports = 0


def run_report(path, what):
    global reports
    trace = os.path.join(tmp, "t.json")
    fresh(trace)
    fmt = random.choice(["text", "json"])
    # every other run reads its ranks a window of 20 rows at a time
    # (viewer/read/windows.h), which then says so on stderr: those lines aside
    reports += 1
    env = dict(os.environ, GPUTRACE_REPORT_WINDOW_ROWS="20") if reports % 2 else os.environ
    if reports % 10 == 0:  # a number past 64 bits (kept to the most; a wrap aborts the sanitizer build)
        env = dict(os.environ, GPUTRACE_REPORT_WINDOW_ROWS="99999999999999999999" if reports % 20 else
                   "9223372036854775807")
    try:
        r = subprocess.run([rep, "--format", fmt, "--chrome-trace", trace, "--kineto", os.path.join(tmp, "kineto"), path],
                           capture_output=True, text=True, errors="replace", timeout=60, env=env)
    except subprocess.TimeoutExpired:
        bad(f"{what}: no answer in 60 s")
        return
    err = "".join(line for line in r.stderr.splitlines(True) if not re.search(r"read in \d+ windows$", line))
    if r.returncode not in (0, 1) or "Sanitizer" in err or "runtime error" in err:
        keep = os.path.join(os.getcwd(), "report_fuzz_case.db")
        shutil.copy(path, keep)
        bad(f"{what}: exit {r.returncode}, kept as {keep}: {err[-600:]}")
        return
    if r.returncode == 1 and len(err.strip().splitlines()) != 1:
        bad(f"{what}: exit 1 with {len(err.strip().splitlines())} stderr lines: {err[-600:]}")
        return
    if r.returncode == 0 and fmt == "json":
        try:
            json.loads(r.stdout)
        except ValueError as e:
            bad(f"{what}: JSON output does not parse: {e}")
            return
    if os.path.exists(trace) and r.returncode == 0:
        try:
            with open(trace) as f:
                json.load(f)
        except ValueError as e:
            bad(f"{what}: Chrome trace does not parse: {e}")
            return
    ok(what)


def run_expand(path, what):
    """gputrace expand on a copy: rows or one line and exit 1, never a crash."""
    copy = os.path.join(tmp, "expand.db")
    fresh(copy)
    shutil.copy(path, copy)
    r = subprocess.run([os.path.join(b, "gputrace"), "expand", copy], capture_output=True, text=True,
                       errors="replace", timeout=60)
    err = r.stderr
    if r.returncode not in (0, 1) or "Sanitizer" in err or "runtime error" in err or \
            (r.returncode == 1 and len(err.strip().splitlines()) != 1):
        bad(f"expand, {what}: exit {r.returncode}: {err[-600:]}")
    else:
        ok(what)


def record(path, bulk_after):
    env = dict(os.environ, GPUTRACE_QUIET="1", GPUTRACE_BULK_AFTER=bulk_after)
    # both ranks in one file, to damage, as the tracer stored them (gputrace
    # merge would make rows of the blocks)
    subprocess.run([os.path.join(b, "gputrace"), "record", "--one-file", "-o", path, "--",
                    os.path.join(b, "tests/sim/gpusim-run"), "-n", "2", os.path.join(b, "tests/apps/train_demo")],
                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    # one self-contained file, to copy and to damage byte by byte: what the
    # tracer left in its write-ahead log checkpointed into it, the log gone
    # (two ranks closing the shared file at once each leave the log; before
    # the tracer checkpointed at such a close, even the schema was in it)
    with sqlite3.connect(path) as con:
        con.execute("pragma journal_mode = delete")
    con.close()
    return path


# every record a row, and every record in a block (the tracer's default)
bases = [record(os.path.join(tmp, "base.db"), "1000000000"), record(os.path.join(tmp, "bulk.db"), "0")]
with sqlite3.connect(bases[1]) as con:
    blocks = con.execute("select (select count(*) from api_call_block), (select count(*) from nvtx_range_block),"
                         " (select count(*) from cupti_api_block), (select count(*) from gpu_op_block)").fetchone()
if not all(blocks):
    bad(f"the bulk base has no call, NVTX, CUPTI API or GPU blocks to damage: {blocks}")
with sqlite3.connect(bases[0]) as con:
    tables = {t: [c[1] for c in con.execute(f"pragma table_info({t})")]
              for (t,) in con.execute("select name from sqlite_master where type = 'table' and name != 'meta'")}
datas = [open(p, "rb").read() for p in bases]
case = os.path.join(tmp, "case.db")



def rows(k=None):
    """A WHERE clause picking every k-th row or so, the same rows each run
    (SQLite's random() is not seeded)."""
    k = k or random.choice([1, 2, 10, 100])
    return f"(rowid * 7919 + {random.randrange(k)}) % {k} = 0"


# FUZZ_SEED and FUZZ_CASES: other damage, for a longer hunt by hand
random.seed(int(os.environ.get("FUZZ_SEED", "20261204" if SANITIZED else "20261130")))
for i in range(CASES):
    d = bytearray(datas[i % 2])
    for _ in range(random.choice([1, 4, 16, 64, 512])):
        d[random.randrange(100, len(d))] = random.randrange(256)
    if random.random() < 0.1:
        d = d[: random.randrange(len(d))]
    fresh(case)
    with open(case, "wb") as f:
        f.write(d)
    run_report(case, f"bytes case {i}")
    run_expand(case, f"bytes case {i}")

for i in range(CASES):
    fresh(case)
    shutil.copy(bases[i % 2], case)
    done = []
    with sqlite3.connect(case) as con:
        for _ in range(random.choice([1, 2, 4, 8])):
            t = random.choice(sorted(tables))
            c = random.choice(tables[t])
            st = f"update {t} set {c} = {random.choice(VALUES)} where {rows()}"
            try:
                con.execute(st)
                done.append(st)
            except sqlite3.Error:
                pass  # a constraint said no
        if random.random() < 0.15:
            t = random.choice(sorted(tables))
            con.execute(f"delete from {t} where {rows(2)}")
            done.append(f"delete half of {t}")
    con.close()  # the last connection gone, the WAL is in the file that run_expand copies
    run_report(case, f"values case {i} ({'; '.join(done)})")
    run_expand(case, f"values case {i} ({'; '.join(done)})")

# a hostile schema: each of our tables in turn an endless recursive view
# (a view of the file's author runs whatever SQL it holds), and a planted
# trigger on it that would write on every insert: the report and expand
# answer in time, and expand never runs the trigger
for i, t in enumerate(sorted(tables)):
    if SCHEMA_PART != 2 and i % 2 != SCHEMA_PART:
        continue
    fresh(case)
    shutil.copy(bases[i % 2], case)
    cols = tables[t]
    with sqlite3.connect(case) as con:
        con.execute(f"drop table {t}")
        con.execute(f"create view {t}({', '.join(cols)}) as with recursive r(x) as (select 1 union all"
                    f" select x + 1 from r) select {', '.join('x' for _ in cols)} from r")
    con.close()
    run_report(case, f"schema case: {t} an endless view")
    run_expand(case, f"schema case: {t} an endless view")
    fresh(case)
    shutil.copy(bases[1], case)
    with sqlite3.connect(case) as con:
        con.execute("create table planted(x)")
        con.execute(f"create trigger planted_{t} after insert on {t} begin insert into planted values (1); end")
    con.close()
    run_report(case, f"schema case: a trigger on {t}")
    run_expand(case, f"schema case: a trigger on {t}")
    with sqlite3.connect(os.path.join(tmp, "expand.db")) as con:
        n = con.execute("select count(*) from planted").fetchone()[0]
    con.close()
    if n:
        bad(f"schema case: expand ran a trigger planted on {t}: {n} rows")

shutil.rmtree(tmp)
tap.finish()
