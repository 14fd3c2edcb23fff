#!/usr/bin/env python3
"""import_comm_kernels.py BUILD SRC: communication kernels that are not
NCCL's, on a variant of a real trace.  The 21 NCCL kernels of
tests/data/traces/hta-nccl-2rank (a real A100 run, MIT, see its README.md)
are renamed, one family after another, into the kernels of the other
libraries the report knows (PyTorch's symmetric memory, vLLM's custom
all-reduce, TensorRT-LLM's, DeepEP's, NVSHMEM's, RCCL's MSCCL,
TransformerEngine's userbuffers, and NCCL's own kernel left mangled as
Kineto leaves some names) and moved onto the compute stream, as
symmetric-memory all-reduces run: the report must count them as
communication (the summary's comm and exposed times, the kernel table),
as it counted them as NCCL's before the renaming; with --comm-kernels ''
only NCCL's stay.  Expected figures are computed here from the variant."""
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # tests/e2e/tap.py: TAP lines for automake's driver

build, src = sys.argv[1], sys.argv[2]
trace = os.path.join(src, "tests", "data", "traces", "hta-nccl-2rank", "nccl_data.json.gz")
tmp = tempfile.mkdtemp()

# one kernel of each family, named as a demangler prints it (the function
# names are the libraries' own: docs/report.md says where each was read)
FAMILIES = [
    "void (anonymous namespace)::multimem_all_reduce_kernel<float, 16>(float*, unsigned long, unsigned int**, "
    "unsigned long, unsigned long)",
    "void (anonymous namespace)::one_shot_all_reduce_kernel<float, 16, 2>(float**, float*, float*, unsigned long, "
    "unsigned long, unsigned int**, unsigned long, unsigned long)",
    "void (anonymous namespace)::two_shot_all_reduce_kernel_inplace<float, 16, 2>(float**, unsigned long, "
    "unsigned long, unsigned int**, unsigned long, unsigned long)",
    "void vllm::cross_device_reduce_2stage<float, 2>(vllm::RankData*, vllm::RankSignals, vllm::Metadata volatile*, "
    "float*, int, int)",
    "void tensorrt_llm::kernels::twoShotAllReduceKernel<float, 2>(tensorrt_llm::kernels::AllReduceParams)",
    "void tensorrt_llm::kernels::ar_fusion::allreduce_fusion_kernel_oneshot_lamport<float, 2, true>("
    "tensorrt_llm::kernels::ar_fusion::AllReduceFusionParams<float>)",
    "void deep_ep::intranode::dispatch<2, 768, 8192>(int4*, float*, int*, long*, float*, int*, int*)",
    "void deep_ep::internode_ll::combine<false, 3, 7168>(void*, void*, int*, void*)",
    "void rdxn_on_stream_kernel<float, (rdxn_ops)2>(int, float*, float const*, unsigned long)",
    "mscclKernel_Sum_float_Simple_false(ncclDevComm*, mscclAlgo*, mscclWork*)",
    "userbuffers_fp16_sum_inplace_gpu_rw(int, int, int, int, int, int, int, void**, int, unsigned long)",
    "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE",
]
NCCL_OWN = {FAMILIES[-1]}


def check(what, cond, detail=""):
    return tap.check(cond, what if cond or detail == "" else "%s %s" % (what, detail))


def run(*args):
    p = subprocess.run(list(args), capture_output=True, text=True)
    check("%s exits 0" % " ".join(os.path.basename(a) for a in args[:2]), p.returncode == 0,
          "(rc %d; stderr %s)" % (p.returncode, p.stderr.strip()[-400:]))
    return p.stdout


def ns(ev):
    start = round(float(ev["ts"]) * 1000)
    return start, start + round(float(ev["dur"]) * 1000)


def union(ivals):
    out = []
    for a, b in sorted(ivals):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def total(u):
    return sum(b - a for a, b in u)


def intersection(u, v):
    i = j = t = 0
    while i < len(u) and j < len(v):
        lo, hi = max(u[i][0], v[j][0]), min(u[i][1], v[j][1])
        t += max(0, hi - lo)
        if u[i][1] < v[j][1]:
            i += 1
        else:
            j += 1
    return t


with gzip.open(trace, "rt") as f:
    t = json.load(f)
kernels = [e for e in t["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "kernel"]
nccl = [e for e in kernels if e["name"].startswith("nccl")]
compute_stream = max({e["args"]["stream"] for e in kernels if not e["name"].startswith("nccl")},
                     key=lambda s: sum(1 for e in kernels if e["args"]["stream"] == s))
check("the trace has NCCL kernels on their own stream", len(nccl) == 21 and
      all(e["args"]["stream"] != compute_stream for e in nccl), "(%d)" % len(nccl))
for i, e in enumerate(nccl):
    e["name"] = FAMILIES[i % len(FAMILIES)]
    e["tid"] = e["args"]["stream"] = compute_stream
    for k in [k for k in e["args"] if k[0].isupper() and k != "External id"]:
        del e["args"][k]  # NCCL's own arguments (collective name, sizes, group)
variant = os.path.join(tmp, "comm_families.json.gz")
with gzip.open(variant, "wt") as f:
    json.dump(t, f)

comm = union([ns(e) for e in nccl])
compute = union([ns(e) for e in kernels if e not in nccl])
only_nccl = union([ns(e) for e in nccl if e["name"] in NCCL_OWN])
db = os.path.join(tmp, "comm_families.db")
run(os.path.join(build, "gputrace"), "import", "-q", "-f", "-o", db, variant)
rep = os.path.join(build, "gputrace-report")
d = json.loads(run(rep, "--format", "json", db) or "{}")
r = d.get("ranks", [{}])[0]
tol = 2 * len(nccl)
check("comm_ns is the renamed kernels' time", abs(r.get("comm_ns", 0) - total(comm)) <= tol,
      "(got %r, want %d: %.2f ms)" % (r.get("comm_ns"), total(comm), total(comm) / 1e6))
want_exposed = total(comm) - intersection(comm, compute)
check("exposed_comm_ns is their time compute did not hide", abs(r.get("exposed_comm_ns", 0) - want_exposed) <= tol,
      "(got %r, want %d)" % (r.get("exposed_comm_ns"), want_exposed))
check("compute_ns leaves them out", abs(r.get("compute_ns", 0) - total(compute)) <= tol,
      "(got %r, want %d)" % (r.get("compute_ns"), total(compute)))
table = {k["name"]: k["nccl"] for k in d.get("kernels", [])}
missing = [n for n in FAMILIES if table.get(n) is not True]
check("the kernel table marks each family as communication", not missing, "(not: %s)" % missing)

# the text report's summary row: comm ms and exposed%
text = run(rep, db)
row = re.search(r"^0\s+\d+\s+.*?\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$", text, re.M)
check("the text summary has the rank's row", row is not None)
if row:
    check("the text summary's comm ms", row.group(4) == "%.1f" % (total(comm) / 1e6),
          "(got %s, want %.1f)" % (row.group(4), total(comm) / 1e6))
    check("the text summary's exposed%", row.group(5) == "%.1f" % (100.0 * want_exposed / total(comm)),
          "(got %s, want %.1f)" % (row.group(5), 100.0 * want_exposed / total(comm)))

# --comm-kernels '': NCCL's own kernel (mangled) stays communication, the rest is compute
d = json.loads(run(rep, "--format", "json", "--comm-kernels", "", db) or "{}")
r = d.get("ranks", [{}])[0]
check("--comm-kernels '' keeps NCCL's own only", abs(r.get("comm_ns", 0) - total(only_nccl)) <= tol,
      "(got %r, want %d)" % (r.get("comm_ns"), total(only_nccl)))

shutil.rmtree(tmp, ignore_errors=True)
tap.finish()
