#!/usr/bin/env python3
"""import_nsys_variants.py BUILD SRC: Nsight Systems exports as nsys writes
them, made here on the schema of the real export in
tests/data/traces/pipit-nsys (nsys 2022.2; its README.md), with what the
expected figures follow from:
- driver calls under the driver's own names, which end in "_v2"
  (cuMemcpyHtoD_v2, as `nsys stats` lists them): taken for a CUPTI
  version suffix and stripped, they named no API, and five blocking 64 MiB
  pageable uploads made no copy.pageable and no host time blocked;
- event records (CUPTI_ACTIVITY_KIND_CUDA_EVENT): which stream a
  cudaEventRecord was on, so that the cudaEventSynchronize after it is
  analysed (sync.no_consumer), not noted as waiting on an event the trace
  cannot name;
- nsys 2024's META_DATA_EXPORT (EXPORT_SCHEMA_VERSION "3.16.1"): its
  schema version is checked as EXPORT_META_DATA's was (9.0.0 refused);
- a kernel has no memory kinds (0, not pageable), and a range nsys left
  open (no end) is stored open (end_ns NULL, docs/schema.md);
- two hosts in one export (the vm bits of a globalPid, TARGET_INFO_GPU's
  vmId): each process's GPU named by its own host's device 0;
- NVTX_EVENTS of older exports, without jsonText, or without any payload
  column: the ranges read (a payload's column missing refused the whole
  export)."""
import os
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # tests/e2e/tap.py

build, src = sys.argv[1], sys.argv[2]
REAL = os.path.join(src, "tests", "data", "traces", "pipit-nsys", "saxpy-mpi-cuda_nsys_perlmutter0.sqlite")
TABLES = ["StringIds", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
          "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_CUDA_EVENT", "NVTX_EVENTS", "PROCESSES",
          "TARGET_INFO_GPU", "TARGET_INFO_SESSION_START_TIME"]
tmp = tempfile.mkdtemp()
with sqlite3.connect(REAL) as r:
    SCHEMA = {t: r.execute("SELECT sql FROM sqlite_master WHERE name = ?", (t,)).fetchone()[0] for t in TABLES}


def gpid(pid):
    return (1 << 48) | (pid << 24)


class Export:
    """an export of one process (pid 100, thread 100)"""
    def __init__(self, name, meta=("EXPORT_META_DATA", "EXPORT_SCHEMA_VERSION_MAJOR", "2"), nvtx=None):
        self.path = os.path.join(tmp, name + ".sqlite")
        self.db = sqlite3.connect(self.path)
        for t in TABLES:
            self.db.execute(nvtx if nvtx and t == "NVTX_EVENTS" else SCHEMA[t])
        self.db.execute("CREATE TABLE %s (name TEXT NOT NULL, value TEXT)" % meta[0])
        self.db.execute("INSERT INTO %s VALUES(?, ?)" % meta[0], meta[1:])
        self.db.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME(utcEpochNs) VALUES(1700000000000000000)")
        self.db.execute("INSERT INTO TARGET_INFO_GPU(vmId, id, name) VALUES(1, 0, 'GPU Zero')")
        self.db.execute("INSERT INTO PROCESSES VALUES(?, 100, './app')", (gpid(100),))
        self.strings = {}

    def s(self, v):
        if v not in self.strings:
            self.strings[v] = len(self.strings)
            self.db.execute("INSERT INTO StringIds VALUES(?, ?)", (self.strings[v], v))
        return self.strings[v]

    def api(self, name, start, end, corr, driver=False):
        self.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, eventClass, globalTid, correlationId,"
                        " nameId, returnValue) VALUES(?, ?, ?, ?, ?, ?, 0)",
                        (start, end, 1 if driver else 0, gpid(100) | 100, corr, self.s(name)))

    def kernel(self, start, end, corr):
        n = self.s("k")
        self.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, deviceId, contextId, streamId, correlationId,"
                        " globalPid, demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY,"
                        " blockZ, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId)"
                        " VALUES(?, ?, 0, 1, 7, ?, ?, ?, ?, 32, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, ?)",
                        (start, end, corr, gpid(100), n, n, corr))

    def done(self):
        self.db.commit()
        self.db.close()
        return self.path


def imported(path):
    db = path[:-len(".sqlite")] + ".db"
    p = subprocess.run([os.path.join(build, "gputrace"), "import", "-q", "-f", "-o", db, path], capture_output=True,
                       text=True)
    tap.check(p.returncode == 0, "%s: gputrace import exits 0 (%s)" % (os.path.basename(path), p.stderr.strip()[:200]))
    subprocess.run([os.path.join(build, "gputrace"), "expand", db], capture_output=True)
    return db


def kinds(db):
    p = subprocess.run([os.path.join(build, "gputrace-report"), "--format", "json", "--min-cost", "0", db],
                       capture_output=True, text=True)
    import json
    return {f["kind"]: f for f in json.loads(p.stdout)["findings"]} if p.returncode == 0 else {}


def rows(db, sql):
    with sqlite3.connect(db) as c:
        return c.execute(sql).fetchall()


# five blocking 64 MiB uploads from pageable memory through the driver API
e = Export("driver_v2")
for i in range(5):
    t = 1000000 + i * 1000000
    e.api("cuMemcpyHtoD_v2", t, t + 400000, i + 1, driver=True)
    e.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY(start, end, deviceId, contextId, streamId, correlationId,"
                 " globalPid, bytes, copyKind, srcKind, dstKind) VALUES(?, ?, 0, 1, 7, ?, ?, ?, 1, 0, 2)",
                 (t + 10000, t + 390000, i + 1, gpid(100), 64 << 20))
    e.api("cuLaunchKernel", t + 500000, t + 510000, 100 + i, driver=True)
    e.kernel(t + 520000, t + 900000, 100 + i)
db = imported(e.done())
f = kinds(db).get("copy.pageable")
tap.check(f and f["count"] == 5 and f["host_blocked_ns"] == 5 * 400000,
          "driver_v2: cuMemcpyHtoD_v2 is the driver's blocking upload: copy.pageable, 5 copies, 2.0 ms blocked (%s)"
          % (str(f and (f["count"], f["host_blocked_ns"])),))
tap.check(rows(db, "SELECT DISTINCT src_kind, dst_kind FROM gpu_op WHERE kind = 1") == [(0, 0)],
          "driver_v2: a kernel has no memory kinds (0, not 1: pageable)")

# a long kernel, an event recorded after it, a sync on that event
e = Export("event_sync")
for i in range(5):
    t = i * 10000000
    e.api("cudaLaunchKernel_v7000", t, t + 10000, 10 * i + 1)
    e.kernel(t + 20000, t + 8000000, 10 * i + 1)
    e.api("cudaEventRecord_v3020", t + 20000, t + 25000, 10 * i + 2)
    e.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT VALUES(0, 1, 7, ?, ?, 3)", (10 * i + 2, gpid(100)))
    e.api("cudaEventSynchronize_v3020", t + 30000, t + 8000100, 10 * i + 3)
    e.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION(start, end, deviceId, contextId, streamId,"
                 " correlationId, globalPid, syncType, eventId) VALUES(?, ?, 0, 1, 4294967295, ?, ?, 1, 3)",
                 (t + 30000, t + 8000100, 10 * i + 3, gpid(100)))
e.db.execute("INSERT INTO NVTX_EVENTS(start, end, eventType, text, globalTid) VALUES(5, NULL, 59, 'open',"
                      " ?)", (gpid(100) | 100,))
db = imported(e.done())
tap.check(rows(db, "SELECT count(*), min(stream_id), min(event_id), max(start_ns) FROM gpu_op WHERE kind = 5")
          == [(5, 7, 3, 0)], "event_sync: each event record a gpu_op of kind 5, its stream and event, no time")
tap.check("sync.no_consumer" in kinds(db), "event_sync: the event syncs analysed: sync.no_consumer (%s)"
          % (sorted(kinds(db)),))
tap.check(rows(db, "SELECT start_ns, end_ns FROM nvtx_range") == [(5, None)],
          "event_sync: a range nsys left open stored open (end_ns NULL)")

# two hosts, a process on each, each host's device 0 named apart
e = Export("two_hosts")
e.db.execute("INSERT INTO TARGET_INFO_GPU(vmId, id, name) VALUES(?, 0, 'GPU of host 2')", (2 << 48,))
e.db.execute("INSERT INTO PROCESSES VALUES(?, 100, './app')", ((2 << 48) | (100 << 24),))
e.api("cudaLaunchKernel_v7000", 1000, 2000, 1)
e.kernel(3000, 9000, 1)
n = e.s("k")
e.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, eventClass, globalTid, correlationId, nameId,"
             " returnValue) VALUES(1000, 2000, 0, ?, 1, ?, 0)", ((2 << 48) | (100 << 24) | 100,
                                                                   e.s("cudaLaunchKernel_v7000")))
e.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, deviceId, contextId, streamId, correlationId, globalPid,"
             " demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ,"
             " staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId)"
             " VALUES(3000, 9000, 0, 1, 7, 1, ?, ?, ?, 32, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1)",
             ((2 << 48) | (100 << 24), n, n))
db = imported(e.done())
tap.check(sorted(rows(db, "SELECT gpu_name FROM process")) == [("GPU Zero",), ("GPU of host 2",)],
          "two_hosts: each process's GPU named by its own host's device 0: %s" % rows(db, "SELECT gpu_name FROM process"))

# older NVTX_EVENTS: without jsonText, without any payload column
OLD_NVTX = ("CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,"
            " category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,"
            " domainId INTEGER%s)")
for name, cols, payload in (("nvtx_numbers", ", uint64Value INTEGER, int64Value INTEGER, doubleValue REAL,"
                             " uint32Value INTEGER, int32Value INTEGER, floatValue REAL", "7"),
                            ("nvtx_no_payload", "", None)):
    e = Export(name, nvtx=OLD_NVTX % cols)
    e.api("cudaLaunchKernel_v7000", 1000, 2000, 1)
    e.kernel(3000, 9000, 1)
    e.db.execute("INSERT INTO NVTX_EVENTS(start, end, eventType, text, globalTid%s) VALUES(500, 9500, 59, 'step', ?%s)"
                 % ((", int64Value", ", 7") if payload else ("", "")), (gpid(100) | 100,))
    db = imported(e.done())
    tap.check(rows(db, "SELECT l.value, r.payload FROM nvtx_range r JOIN label l ON l.process_id = r.process_id"
                       " AND l.id = r.name") == [("step", payload)],
              "%s: the range read, its payload %s" % (name, payload))

# nsys 2024's META_DATA_EXPORT: its schema's version checked
for ver, ok in (("3.16.1", True), ("9.0.0", False)):
    e = Export("meta_" + ver, meta=("META_DATA_EXPORT", "EXPORT_SCHEMA_VERSION", ver))
    e.api("cudaLaunchKernel_v7000", 1000, 2000, 1)
    e.kernel(3000, 9000, 1)
    path = e.done()
    p = subprocess.run([os.path.join(build, "gputrace"), "import", "-q", "-f", "-o", path + ".db", path],
                       capture_output=True, text=True)
    tap.check((p.returncode == 0) == ok and (ok or "version this reader does not know (schema 9)" in p.stderr),
              "META_DATA_EXPORT, EXPORT_SCHEMA_VERSION %s: %s (rc %d: %s)"
              % (ver, "imported" if ok else "refused as of an unknown version", p.returncode, p.stderr.strip()[:200]))
tap.finish()
