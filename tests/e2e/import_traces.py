#!/usr/bin/env python3
"""import_traces.py BUILD SRC: every real trace in tests/data/traces (made by
others on real GPUs; see its README.md) imported with `gputrace import` and
reported; what the report must find in each is computed here from the raw
trace, independently of the importer: counts of each kind of event, the
pageable copies and their bytes, the stream syncs that had nothing pending,
the NCCL kernels' overlap with compute kernels."""
import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

build, src = sys.argv[1], sys.argv[2]
data = os.path.join(src, "tests", "data", "traces")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # tests/e2e/tap.py: TAP lines for automake's driver

tmp = tempfile.mkdtemp()


def check(what, cond, detail=""):
    return tap.check(cond, what if cond or detail == "" else "%s %s" % (what, detail))


def expect(what, got, want):
    check(what, got == want, "(got %r, want %r)" % (got, want))


def near(what, got, want, tol):
    check(what, abs(got - want) <= tol, "(got %r, want %r within %r)" % (got, want, tol))


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f)


def events(trace, cat):
    return [e for e in trace["traceEvents"] if e.get("ph") == "X" and e.get("cat") == cat]


def run(*args, rc=0):
    p = subprocess.run(list(args), capture_output=True, text=True)
    check("%s exits %d" % (" ".join(os.path.basename(a) for a in args[:2]), rc), p.returncode == rc,
          "(rc %d; stderr %s)" % (p.returncode, p.stderr.strip()[-400:]))
    return p


def imported(name, *traces):
    db = os.path.join(tmp, name + ".db")
    run(os.path.join(build, "gputrace"), "import", "-q", "-f", "-o", db, *traces)
    return db


def report(*inputs):
    p = run(os.path.join(build, "gputrace-report"), "--format", "json", *inputs)
    return json.loads(p.stdout) if p.stdout else {"ranks": [], "findings": []}


def findings(rep, kind, rank=None):
    return [f for f in rep["findings"] if f["kind"] == kind]


def union(ivals):
    out = []
    for a, b in sorted(ivals):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def overlap(ivals, cover):
    """the time of ivals (a union) that cover (a union) overlaps"""
    t, j = 0, 0
    for a, b in ivals:
        for c, d in cover:
            lo, hi = max(a, c), min(b, d)
            if hi > lo:
                t += hi - lo
    return t


def us(e):
    return float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0))


def counts_match(name, trace, db):
    """every event of the kinds the schema holds is in the database, once"""
    c = sqlite3.connect(db)
    api = len(events(trace, "cuda_runtime")) + len(events(trace, "cuda_driver"))
    expect(name + ": API records", c.execute("SELECT count(*) FROM cupti_api").fetchone()[0], api)
    for kind, cat in ((1, "kernel"), (2, "gpu_memcpy"), (3, "gpu_memset"), (4, "cuda_sync")):
        expect(name + ": gpu_op kind %d (%s)" % (kind, cat),
               c.execute("SELECT count(*) FROM gpu_op WHERE kind = ?", (kind,)).fetchone()[0], len(events(trace, cat)))
    ranges = len(events(trace, "user_annotation")) + len(
        [e for e in trace["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "cpu_op"
         and e.get("name", "").startswith("ProfilerStep#")])
    expect(name + ": NVTX ranges", c.execute("SELECT count(*) FROM nvtx_range").fetchone()[0], ranges)
    return c


def pageable(trace):
    """the pageable copies copy.pageable reports (docs/report.md): repeated,
    or of 1 MiB in all (the imported calls have no call site: one group)"""
    v = [e for e in events(trace, "gpu_memcpy") if "Pageable" in e["name"]]
    n, nbytes = len(v), sum(e["args"]["bytes"] for e in v)
    return (n, nbytes) if n >= 2 or nbytes >= 2**20 else (0, 0)


def redundant_syncs(trace):
    """stream and device syncs that found no work of theirs (the stream their
    cuda_sync record names; any, for a device sync) launched before them and
    still running"""
    launch = {e["args"]["correlation"]: float(e["ts"]) for e in events(trace, "cuda_runtime")}
    ops = [e for cat in ("kernel", "gpu_memcpy", "gpu_memset") for e in events(trace, cat)]
    sync_stream = {e["args"]["correlation"]: e["args"]["stream"] for e in events(trace, "cuda_sync")
                   if e["args"].get("cuda_sync_kind") == "Stream Sync"}
    # the cudaStreamSynchronize that c10 adds after a copy from or to
    # pageable memory (already synchronous) belongs to the copy: its finding
    # is the copy's (docs/report.md, "What a sync waited for")
    pageable_copy = {e["args"]["correlation"] for e in events(trace, "gpu_memcpy") if "Pageable" in e["name"]}
    last_on_thread = {}
    n = 0
    for call in sorted(events(trace, "cuda_runtime"), key=lambda e: float(e["ts"])):
        corr, t = call["args"]["correlation"], float(call["ts"])
        before = last_on_thread.get(call["tid"])
        last_on_thread[call["tid"]] = call
        if call["name"] == "cudaStreamSynchronize" and before is not None and \
                before["args"]["correlation"] in pageable_copy:
            continue
        if call["name"] == "cudaStreamSynchronize" and corr in sync_stream:
            mine = [o for o in ops if o["args"]["stream"] == sync_stream[corr]]
        elif call["name"] == "cudaDeviceSynchronize":
            mine = ops
        else:
            continue
        n += not [o for o in mine if launch.get(o["args"]["correlation"], 1e30) < t and us(o)[1] > t]
    return n


def message_count(rep, kind, api):
    return sum(f["count"] for f in findings(rep, kind) if api in f["message"])


# ---- hta-nccl-2rank: rank 0 of 2, NCCL 2.17 kernels with their collective args
path = os.path.join(data, "hta-nccl-2rank", "nccl_data.json.gz")
t = load(path)
db = imported("nccl", path)
c = counts_match("nccl", t, db)
row = c.execute("SELECT rank, world_size, gpu_name, nccl_version, source LIKE 'kineto:%' FROM process").fetchone()
expect("nccl: rank, world size, GPU, NCCL version from distributedInfo/deviceProperties",
       row, (0, 2, t["deviceProperties"][0]["name"], 21701, 1))
nccl = [e for e in events(t, "kernel") if e["name"].startswith("nccl")]
with_args = [e for e in nccl if "Collective name" in e["args"]]
expect("nccl: a collective per NCCL kernel with collective args",
       c.execute("SELECT count(*) FROM collective").fetchone()[0], len(with_args))
expect("nccl: one process group", c.execute("SELECT count(DISTINCT comm_id) FROM collective").fetchone()[0], 1)
expect("nccl: numbered 0..n-1 in their kernels' order",
       [r[0] for r in c.execute("SELECT c.seq FROM collective c JOIN ext_corr x ON x.external_id = c.call_id"
                                " JOIN gpu_op g ON g.correlation = x.correlation AND g.kind = 1 ORDER BY g.start_ns")],
       list(range(len(with_args))))
allreduce_elems = sorted(e["args"]["In msg nelems"] for e in with_args if e["args"]["Collective name"] == "allreduce")
expect("nccl: allreduce element counts as the kernels' args say",
       sorted(r[0] for r in c.execute("SELECT count FROM collective WHERE api = (SELECT id FROM api WHERE name ="
                                      " 'ncclAllReduce')")), allreduce_elems)
bulk = os.path.join(tmp, "nccl-bulk.db")
subprocess.run([os.path.join(build, "gputrace"), "import", "-q", "-f", "-o", bulk, path],
               env=dict(os.environ, GPUTRACE_BULK_AFTER="0"))
colls = "SELECT call_id, seq, start_ns, end_ns FROM collective ORDER BY call_id"
launch = {e["args"]["correlation"]: e for e in events(t, "cuda_runtime")}
got = [(r[2], r[3]) for r in c.execute(colls)]
want = [(float(launch[e["args"]["correlation"]]["ts"]) * 1000,
         (float(launch[e["args"]["correlation"]]["ts"]) + float(launch[e["args"]["correlation"]]["dur"])) * 1000)
        for e in sorted(with_args, key=lambda e: e["args"]["correlation"])]
check("nccl: a collective's host times are its kernel's launch's (to the ns: doubles here)",
      len(got) == len(want) and all(abs(a - x) <= 2 and abs(b - y) <= 2 for (a, b), (x, y) in zip(got, want)),
      (got[:2], want[:2]))
expect("nccl: the same collectives from API records stored in bulk blocks (GPUTRACE_BULK_AFTER=0)",
       sqlite3.connect(bulk).execute(colls).fetchall(), c.execute(colls).fetchall())
rep = report(db)
r0 = rep["ranks"][0]
comm = union([us(e) for e in nccl])
compute = union([us(e) for e in events(t, "kernel") if not e["name"].startswith("nccl")])
comm_us = sum(b - a for a, b in comm)
exposed = 1 - overlap(comm, compute) / comm_us
near("nccl: NCCL time as the trace's kernels give it (us)", r0["comm_ns"] / 1e3, comm_us, 1)
near("nccl: exposed share of NCCL time (not overlapped by compute kernels)",
     r0["exposed_comm_ns"] / r0["comm_ns"], exposed, 0.01)
check("nccl: comm.exposed found (most NCCL time overlaps no compute)", exposed < 0.8 or findings(rep, "comm.exposed"))
steps = sorted(p["name"] for p in rep["phases"] if p["name"].startswith("ProfilerStep#"))
expect("nccl: the ProfilerStep ranges are the phases", steps,
       sorted({e["name"] for e in t["traceEvents"] if e.get("name", "").startswith("ProfilerStep#")}))
esync = len([e for e in events(t, "cuda_runtime") if e["name"] == "cudaEventSynchronize"])
expect("nccl: the event syncs, without cuda_sync records, are counted as unscoped", r0["unscoped_syncs"], esync)
expect("nccl: the JSON report names what could not be checked",
       sorted(n["kind"] for n in rep.get("not_checked", [])),
       sorted(["sync.*", "comm.hang", "call sites", "comm.straggler, comm.mismatch"]))
direct = report(path)
expect("nccl: gputrace-report on the trace itself reports the same",
       [(f["kind"], f["count"], f["cost_ns"]) for f in direct["findings"]],
       [(f["kind"], f["count"], f["cost_ns"]) for f in rep["findings"]])
text = run(os.path.join(build, "gputrace-report"), path).stdout
check("nccl: the text report ends with what could not be checked", "Not checked on these imported traces" in text
      and "comm.hang" in text and "sync.*" in text and "1 of the job's 2 ranks" in text)

# ---- hta-critical-path: single A100 runs with cuda_sync events
for name in ("benchmark_result_2869224_1695835535_trace.json.gz", "benchmark_result_493459_1694039959_trace.json.gz",
             "event_sync_trace.json.gz", "event_sync_multi_stream_trace.json.gz"):
    path = os.path.join(data, "hta-critical-path", name)
    short = name.split("_trace")[0]
    t = load(path)
    db = imported(short, path)
    counts_match(short, t, db)
    rep = report(db)
    n, nbytes = pageable(t)
    pg = findings(rep, "copy.pageable")
    expect(short + ": copy.pageable counts the pageable copies", sum(f["count"] for f in pg), n)
    if n:
        check(short + ": ... and their bytes", pg and ("%.1f MiB" % (nbytes / 2**20)) in pg[0]["message"], pg)
    expect(short + ": stream and device syncs with nothing pending are sync.redundant",
           sum(f["count"] for f in findings(rep, "sync.redundant")), redundant_syncs(t))
    nsync = len([e for e in events(t, "cuda_runtime") if e["name"] in ("cudaStreamSynchronize", "cudaDeviceSynchronize")])
    judged = sum(f["count"] for f in rep["findings"] if f["kind"] in ("sync.redundant", "sync.no_consumer",
                                                                       "sync.device_wide", "sync.scalar_read"))
    check(short + ": the stream and device syncs are analysed (%d of %d judged)" % (judged, nsync),
          judged <= nsync and (nsync == 0 or judged > 0))
    if name.startswith("benchmark"):
        # a pageable copy and the wait it made for earlier GPU work are one
        # finding, with both facts (docs/report.md, "How costs are attributed")
        check(short + ": the blocking pageable host-to-device cudaMemcpyAsync calls are copy.pageable, the wait"
              " they made for earlier GPU work a fact of it",
              pg and "of it waiting for earlier GPU work" in pg[0]["message"] and not findings(rep, "sync.implicit"))
        check(short + ": gpu.idle found (a benchmark that sleeps between runs)", findings(rep, "gpu.idle"))
        # c10's cudaStreamSynchronize after each blocking .to(device) waits
        # for the tail of the pageable upload (cudaMemcpyAsync returned once
        # the source was staged): the copy's, not a sync to remove
        calls = sorted(events(t, "cuda_runtime"), key=lambda e: float(e["ts"]))
        syncs_after = sum(1 for a, b in zip(calls, calls[1:])
                          if a["name"] == "cudaMemcpyAsync" and b["name"] == "cudaStreamSynchronize")
        check(short + ": the %d stream syncs c10 made after its pageable uploads are the copies', none"
              " sync.no_consumer waiting for a copy" % syncs_after,
              syncs_after >= 16 and not [f for f in findings(rep, "sync.no_consumer") if "waiting for a copy" in f["message"]])

# ---- hta-sampled-128: ranks 0 and 1 of 128, thinned; a directory of two traces is one run
d = os.path.join(data, "hta-sampled-128")
ts = [load(os.path.join(d, "sampled_rank-%d.json.gz" % r)) for r in (0, 1)]
db = imported("sampled", d)
c = sqlite3.connect(db)
expect("sampled: one process per file, ranks and world size from distributedInfo",
       c.execute("SELECT rank, world_size FROM process ORDER BY rank").fetchall(), [(0, 128), (1, 128)])
rep = report(d)
expect("sampled: the report reads the directory as one run of two ranks", [r["rank"] for r in rep["ranks"]], [0, 1])
# a pageable device-to-host read of a few bytes (at most 1 KiB) is a
# scalar read, and only that (one finding per lost millisecond)
small_reads = [sum(1 for e in events(x, "gpu_memcpy") if "Device -> Pageable" in e["name"] and e["args"]["bytes"] <= 1024)
               for x in ts]
pg = sum(f["count"] for f in findings(rep, "copy.pageable"))
expect("sampled: copy.pageable counts every pageable copy of both ranks but the few-byte reads",
       pg, sum(pageable(x)[0] for x in ts) - sum(small_reads))
sr = findings(rep, "sync.scalar_read")
expect("sampled: ... which are sync.scalar_read, each of them", sum(f["count"] for f in sr), sum(small_reads))
check("sampled: the one-byte pageable device-to-host reads are sync.scalar_read, with GPU idle after them",
      sr and all(f["gpu_idle_ns"] > 0 for f in sr))
# (tests/e2e/import_order_match.py checks what the report makes of them)
expect("sampled: NCCL kernels without collective args make collectives numbered by kernel order, of the trace's rank",
       c.execute("SELECT count(*), sum(seq >= (1 << 49)), group_concat(DISTINCT rank), group_concat(DISTINCT nranks)"
                 " FROM collective").fetchone(),
       (20, 20, "0,1", "128"))
for r, x in zip(rep["ranks"], ts):
    nccl = union([us(e) for e in events(x, "kernel") if e["name"].startswith("nccl")])
    near("sampled: rank %d NCCL time (us)" % r["rank"], r["comm_ns"] / 1e3, sum(b - a for a, b in nccl), 1)

# the report's outputs never write over its input traces
d = os.path.join(tmp, "inputs")
shutil.copytree(os.path.join(data, "hta-sampled-128"), d)
before = sorted(os.listdir(d))
p = subprocess.run([os.path.join(build, "gputrace-report"), "--kineto", d, d], capture_output=True, text=True)
expect("a --kineto directory that holds the input traces is refused (exit 2, one line), nothing written",
       (p.returncode, len(p.stderr.strip().splitlines()), sorted(os.listdir(d))), (2, 1, before))

# ---- an older Kineto trace's dialect (2021): capitalised categories, no cbid, integer microseconds
old = {"traceEvents": [
    {"ph": "X", "cat": "Runtime", "name": "cudaMemcpyAsync", "pid": 7, "tid": 7, "ts": 1000, "dur": 500,
     "args": {"correlation": 11, "external id": 3}},
    {"ph": "X", "cat": "Memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": 7, "ts": 1100,
     "dur": 350, "args": {"device": 0, "context": 1, "stream": 7, "correlation": 11, "bytes": 4 << 20}},
    {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1600, "dur": 5,
     "args": {"correlation": 12}},
    {"ph": "X", "cat": "Kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1610, "dur": 100,
     "args": {"device": 0, "stream": 7, "correlation": 12}},
    {"ph": "X", "cat": "Operator", "name": "ProfilerStep#1", "pid": 7, "tid": 7, "ts": 900, "dur": 1000}]}
path = os.path.join(tmp, "old.json")
json.dump(old, open(path, "w"))
rep = report(path)
expect("old dialect: calls without cbid known by name, the 4 MiB pageable copy found",
       [(f["kind"], f["count"]) for f in findings(rep, "copy.pageable")], [("copy.pageable", 1)])
expect("old dialect: the Operator-category ProfilerStep is a phase", [p["name"] for p in rep["phases"]],
       ["ProfilerStep#1"])
near("old dialect: integer microseconds (compute ns)", rep["ranks"][0]["compute_ns"], 100000, 0)

# ---- pipit-nsys: an Nsight Systems export (nsys 2022.2) of rank 0 of an MPI+CUDA saxpy
path = os.path.join(data, "pipit-nsys", "saxpy-mpi-cuda_nsys_perlmutter0.sqlite")
x = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
db = imported("nsys", path)
c = sqlite3.connect(db)
gpid, pid = x.execute("SELECT globalPid, pid FROM PROCESSES WHERE globalPid IN (SELECT globalPid FROM"
                      " CUPTI_ACTIVITY_KIND_KERNEL)").fetchone()
expect("nsys: the traced process, its GPU and its clock offset (the session's UTC start)",
       c.execute("SELECT pid, gpu_name, clock_offset_ns, rank FROM process").fetchone(),
       (pid, x.execute("SELECT name FROM TARGET_INFO_GPU").fetchone()[0],
        x.execute("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME").fetchone()[0],
        int(x.execute("SELECT text FROM NVTX_EVENTS WHERE eventType = 39 AND text LIKE 'MPI Rank %'")
            .fetchone()[0].split()[-1])))
for kind, table in ((1, "KERNEL"), (2, "MEMCPY"), (3, "MEMSET"), (4, "SYNCHRONIZATION")):
    expect("nsys: gpu_op kind %d from %s" % (kind, table),
           c.execute("SELECT count(*) FROM gpu_op WHERE kind = ?", (kind,)).fetchone()[0],
           x.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_" + table).fetchone()[0])
expect("nsys: one API record per correlation id (nsys lists runtime calls twice)",
       c.execute("SELECT count(*) FROM cupti_api").fetchone()[0],
       x.execute("SELECT count(DISTINCT correlationId) FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchone()[0])
expect("nsys: NVTX push/pop ranges", c.execute("SELECT count(*) FROM nvtx_range WHERE kind = 1").fetchone()[0],
       x.execute("SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59").fetchone()[0])
# nsys numbers memory kinds 0 pageable, 1 pinned, 2 device: the host side of each copy
host_kind = "CASE copyKind WHEN 1 THEN srcKind WHEN 2 THEN dstKind END"
npg, pgbytes = x.execute("SELECT count(*), sum(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE %s = 0" % host_kind).fetchone()
rep = report(path)
pg = findings(rep, "copy.pageable")
expect("nsys: copy.pageable counts the pageable copies", sum(f["count"] for f in pg), npg)
check("nsys: ... and their bytes", pg and ("%.1f MiB" % (pgbytes / 2**20)) in pg[0]["message"], pg)
ncopy = x.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId"
                  " WHERE s.value = 'cudaMemcpy'").fetchone()[0]
# each blocking cudaMemcpy here is from or to pageable memory: the wait it
# made for earlier work is a fact of its copy.pageable finding
expect("nsys: each blocking cudaMemcpy is a pageable copy (the export's copies all are), none also sync.implicit",
       (sum(f["count"] for f in pg), sum(f["count"] for f in findings(rep, "sync.implicit"))), (ncopy, 0))
check("nsys: the call site is the program's own frame, from the export's CUDA call stacks",
      pg and all(f["callsite"].startswith("main") for f in pg), [f["callsite"] for f in pg])
htod_compute = x.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY m WHERE copyKind = 1 AND streamId IN"
                         " (SELECT streamId FROM CUPTI_ACTIVITY_KIND_KERNEL)").fetchone()[0]
expect("nsys: host-to-device copies on the kernels' stream are copy.serialized",
       sum(f["count"] for f in findings(rep, "copy.serialized")), htod_compute)

# an export of two traced processes (nsys profile mpirun ...): made from the pipit one by copying its
# process's records under a second pid, whose thread is named "MPI Rank 1"
two = os.path.join(tmp, "two.sqlite")
shutil.copy(path, two)
os.chmod(two, 0o644)
x2 = sqlite3.connect(two)
shift = 1 << 24  # one more in the pid field of nsys's global ids (bits 24-47)
for table, col in (("CUPTI_ACTIVITY_KIND_RUNTIME", "globalTid"), ("NVTX_EVENTS", "globalTid"),
                   ("CUPTI_ACTIVITY_KIND_KERNEL", "globalPid"), ("CUPTI_ACTIVITY_KIND_MEMCPY", "globalPid"),
                   ("PROCESSES", "globalPid")):
    cols = [r[1] for r in x2.execute("PRAGMA table_info(%s)" % table)]
    sel = ", ".join("%s + %d" % (k, shift) if k == col else k for k in cols)
    x2.execute("INSERT INTO %s SELECT %s FROM %s WHERE %s >> 24 = %d" % (table, sel, table, col, gpid >> 24))
x2.execute("UPDATE NVTX_EVENTS SET text = 'MPI Rank 1' WHERE eventType = 39 AND globalTid >> 24 = %d"
           % ((gpid >> 24) + 1))
x2.execute("UPDATE PROCESSES SET pid = pid + 1 WHERE globalPid = %d" % (gpid + shift))
x2.commit()
db2 = imported("nsys-two", two)
expect("nsys: one process per traced process of the export, each its own rank and pid",
       sqlite3.connect(db2).execute("SELECT rank, pid FROM process ORDER BY rank").fetchall(), [(0, pid), (1, pid + 1)])
rep2 = report(db2)
expect("nsys: each process's pageable copies found", sum(f["count"] for f in findings(rep2, "copy.pageable")), 2 * npg)

tap.finish()
