#!/usr/bin/env python3
"""import_no_gpu.py BUILD SRC: a process without GPU records, whatever its
source says of CUPTI.  Variants of real traces (tests/data/traces, see its
README.md) made here: a Kineto trace with every GPU event removed (kernels,
copies, memsets, GPU annotations, CUDA syncs, the flows to them) and its
runtime calls kept, as a trace taken with CUPTI's range profiler on holds
them; the same keeping its CUDA sync records (a sync record says when the
host waited, not what ran); and the Nsight Systems export with its KERNEL,
MEMCPY and MEMSET tables emptied.  Each must get the note that its process
has no GPU records and no finding that needs them (the original trace's
sync.redundant "nothing pending" among them), also when the database says
CUPTI was active (as imports used to), its GPU records in rows or in
blocks; the original trace, said active and stored in blocks, keeps its
findings."""
import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # tests/e2e/tap.py: TAP lines for automake's driver

build, src = sys.argv[1], sys.argv[2]
data = os.path.join(src, "tests", "data", "traces")
tmp = tempfile.mkdtemp()
GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "cuda_sync"}
NOTE = "have no GPU records"


def check(what, cond, detail=""):
    return tap.check(cond, what if cond or detail == "" else "%s %s" % (what, detail))


def run(*args, env=None):
    p = subprocess.run(list(args), capture_output=True, text=True, env=env)
    check("%s exits 0" % " ".join(os.path.basename(a) for a in args[:2]), p.returncode == 0,
          "(rc %d; stderr %s)" % (p.returncode, p.stderr.strip()[-400:]))
    return p.stdout


def imported(name, trace, blocks=False):
    db = os.path.join(tmp, name + ".db")
    env = dict(os.environ, GPUTRACE_BULK_AFTER="0") if blocks else None
    run(os.path.join(build, "gputrace"), "import", "-q", "-f", "-o", db, trace, env=env)
    return db


def said_active(db):
    """A copy of db whose processes say CUPTI was active, as every import
    wrote before: the report must judge by the records."""
    out = db[:-3] + "-active.db"
    shutil.copy(db, out)
    c = sqlite3.connect(out)
    c.execute("UPDATE process SET cupti_status = 'active'")
    c.commit()
    c.close()
    return out


def reports(db):
    rep = os.path.join(build, "gputrace-report")
    text = run(rep, db)
    d = json.loads(run(rep, "--format", "json", db) or '{"ranks": [{}], "findings": []}')
    return text, d


def no_gpu(what, db):
    text, d = reports(db)
    check("%s: the note says its process has no GPU records" % what, NOTE in text, "(text: %s)" % text[:300])
    cupti = d["ranks"][0].get("cupti")
    check("%s: the JSON's cupti says why" % what, cupti not in (None, "active"), "(%r)" % cupti)
    kinds = sorted({f["kind"] for f in d["findings"]})
    check("%s: no finding that needs GPU records" % what, kinds == [], "(%s)" % kinds)
    check("%s: no GPU time" % what, d["ranks"][0].get("gpu_busy_ns") == 0 and d["ranks"][0].get("comm_ns") == 0)


def kineto_variant(name, trace, keep=()):
    with gzip.open(trace, "rt") as f:
        t = json.load(f)
    runtime = sum(1 for e in t["traceEvents"] if e.get("cat") == "cuda_runtime")
    t["traceEvents"] = [e for e in t["traceEvents"]
                        if (e.get("cat") not in GPU_CATS or e.get("cat") in keep) and e.get("cat") != "ac2g"]
    check("%s: runtime calls kept" % name,
          sum(1 for e in t["traceEvents"] if e.get("cat") == "cuda_runtime") == runtime > 0)
    out = os.path.join(tmp, name + ".json.gz")
    with gzip.open(out, "wt") as f:
        json.dump(t, f)
    return out


# the original: GPU records, and the syncs they prove had nothing pending
bench = os.path.join(data, "hta-critical-path", "benchmark_result_2869224_1695835535_trace.json.gz")
orig = said_active(imported("bench", bench, blocks=True))
text, d = reports(orig)
check("the original trace (its GPU records in blocks) is analysed on GPU times",
      d["ranks"][0].get("cupti") == "active" and NOTE not in text and
      any(f["kind"] == "sync.redundant" and f["confidence"] == "high" for f in d["findings"]),
      "(%s)" % [(f["kind"], f["confidence"]) for f in d["findings"]])

# Kineto without GPU events
variant = kineto_variant("bench-no-gpu", bench)
db = imported("bench-no-gpu", variant)
c = sqlite3.connect(db)
check("the import says the source has no GPU records",
      c.execute("SELECT cupti_status FROM process").fetchall() == [("no GPU records in the source",)])
c.close()
no_gpu("Kineto, no GPU events", db)
no_gpu("Kineto, no GPU events, said active", said_active(db))
no_gpu("Kineto, no GPU events, said active, in blocks", said_active(imported("bench-no-gpu-blocks", variant, True)))

# Kineto keeping its CUDA sync records: no GPU work still
variant = kineto_variant("bench-syncs-only", bench, keep=("cuda_sync",))
db = imported("bench-syncs-only", variant)
c = sqlite3.connect(db)
check("the sync records are kept", c.execute("SELECT count(*) FROM gpu_op WHERE kind = 4").fetchone()[0] > 0)
c.close()
no_gpu("Kineto, sync records only, said active", said_active(db))
no_gpu("Kineto, sync records only, said active, in blocks",
       said_active(imported("bench-syncs-only-blocks", variant, True)))

# Nsight Systems export without its GPU tables
nsys = os.path.join(tmp, "nsys-no-gpu.sqlite")
shutil.copy(os.path.join(data, "pipit-nsys", "saxpy-mpi-cuda_nsys_perlmutter0.sqlite"), nsys)
os.chmod(nsys, 0o644)
c = sqlite3.connect(nsys)
runtime = c.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchone()[0]
for table in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
    c.execute("DELETE FROM " + table)
c.commit()
c.close()
db = imported("nsys-no-gpu", nsys)
c = sqlite3.connect(db)
check("nsys: runtime calls kept", c.execute("SELECT count(*) FROM cupti_api").fetchone()[0] > 0 and runtime > 0)
c.close()
no_gpu("nsys, GPU tables emptied", db)
no_gpu("nsys, GPU tables emptied, said active", said_active(db))

shutil.rmtree(tmp, ignore_errors=True)
tap.finish()
