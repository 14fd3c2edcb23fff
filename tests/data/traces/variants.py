#!/usr/bin/env python3
"""variants.py SRC_TRACE OUT_DIR KIND: writes a modified copy of a real
Kineto trace (.json or .json.gz) into OUT_DIR, under the same file name, for
tests of what the report makes of a trace that lacks, or has, one thing more
(issue 43's Tests).  Deterministic: the same input gives the same bytes.

KIND:
  strip-args  NCCL kernels lose their collective args (Collective name,
              message sizes, dtype, group, process group, Seq), as older
              PyTorch wrote them.
  dataloader  a data-loading stall before GPU gaps: for each gap of 1 ms or
              more with no GPU work, a CPU range
              `enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__`
              on the main thread over the gap, and a 4 KiB pageable
              host-to-device copy overlapping its last 0.16 ms, as PyTorch
              writes them.  Where fewer than MIN_GAPS gaps exist, the widest
              gaps are widened to 2 ms first by shifting every later event.
  no-gpu      every GPU event (kernel, copy, memset, cuda_sync, GPU
              annotations, and the flows to them) removed.
"""
import gzip
import json
import os
import sys

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset", "cuda_sync", "gpu_user_annotation")
NCCL_ARGS = ("Collective name", "In msg nelems", "Out msg nelems", "Group size", "dtype",
             "In split size", "Out split size", "Process Group Name", "Process Group Description",
             "Process Group Ranks", "Rank", "Seq", "Global rank start", "Global rank stride")
GAP_US = 1000.0      # a gap worth a data-loading range
MIN_GAPS = 3         # fewer: widen some
WIDE_US = 2000.0     # what a widened gap becomes
COPY_US = 160.0      # the copy overlaps the gap's last 0.16 ms
COPY_BYTES = 4096
LOADER = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def save(doc, path):
    text = json.dumps(doc, separators=(",", ":"))
    if path.endswith(".gz"):
        # mtime 0: the same bytes every run
        with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
            f.write(text.encode())
    else:
        with open(path, "w") as f:
            f.write(text)


def is_gpu(e):
    return e.get("cat") in GPU_CATS


def strip_args(ev):
    for e in ev:
        if e.get("cat") == "kernel" and e.get("name", "").startswith("nccl"):
            for k in NCCL_ARGS:
                e.get("args", {}).pop(k, None)
    return ev


def no_gpu(ev):
    gone = {e.get("args", {}).get("correlation") for e in ev if is_gpu(e)}
    # the ac2g flows that link a launch to its GPU event go with it
    return [e for e in ev if not is_gpu(e) and not (e.get("cat") == "ac2g" and e.get("id") in gone)]


def gaps(ev):
    """(start, end) of the stretches of 1 ms or more with no kernel, copy or
    memset, in µs, in order."""
    ops = sorted((float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0))) for e in ev
                 if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"))
    out, end = [], None
    for s, t in ops:
        if end is not None and s - end >= GAP_US:
            out.append((end, s))
        end = t if end is None else max(end, t)
    return out


def widen(ev, found):
    """Widen the widest gaps to WIDE_US by moving every event that starts at
    or after a gap's end later (host and GPU alike, so launches still precede
    their kernels).  Gaps of 0.1 ms or more are the candidates."""
    ops = sorted((float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0))) for e in ev
                 if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"))
    cands, end = [], None
    for s, t in ops:
        if end is not None and 100.0 <= s - end < GAP_US:
            cands.append((s - end, end, s))
        end = t if end is None else max(end, t)
    chosen = sorted(sorted(cands, reverse=True)[:MIN_GAPS - len(found)], key=lambda c: c[2])
    shift_at = [(s, WIDE_US - width) for width, _, s in chosen]
    for e in ev:
        if "ts" not in e:
            continue
        ts = float(e["ts"])
        d = sum(by for at, by in shift_at if ts >= at)
        if d:
            e["ts"] = type(e["ts"])(round(ts + d, 3)) if isinstance(e["ts"], float) else int(ts + d)
    return ev


def main_thread(ev):
    """(pid, tid) of the thread that ran the most ProfilerSteps (else the
    most cpu_op time): the one that drives the loop."""
    steps = [e for e in ev if e.get("ph") == "X" and "ProfilerStep" in e.get("name", "")]
    pool = steps or [e for e in ev if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
    count = {}
    for e in pool:
        count[(e["pid"], e["tid"])] = count.get((e["pid"], e["tid"]), 0) + float(e.get("dur", 0))
    return max(sorted(count), key=lambda k: count[k])


def dataloader(ev):
    found = gaps(ev)
    if len(found) < MIN_GAPS:
        ev = widen(ev, found)
        found = gaps(ev)
    pid, tid = main_thread(ev)
    copy = next((e for e in ev if e.get("cat") == "gpu_memcpy"), None) or \
        next(e for e in ev if e.get("cat") == "kernel")
    dev, stream = copy["pid"], copy["args"].get("stream", 7)
    corr = 1 + max(int(e.get("args", {}).get("correlation", 0) or 0) for e in ev)
    integer = all(isinstance(e.get("ts"), int) for e in ev if "ts" in e)
    t = (lambda v: int(round(v))) if integer else (lambda v: round(v, 3))
    for i, (s, end) in enumerate(found):
        ev.append({"ph": "X", "cat": "user_annotation", "name": LOADER, "pid": pid, "tid": tid,
                   "ts": t(s), "dur": t(end - s), "args": {"External id": corr + 2 * i}})
        # the upload of the batch: the launching call, then its copy
        c = corr + 2 * i + 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": pid, "tid": tid,
                   "ts": t(end - COPY_US - 10), "dur": t(10), "args": {"correlation": c, "cbid": 41}})
        ev.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": dev,
                   "tid": stream, "ts": t(end - COPY_US), "dur": t(COPY_US),
                   "args": {"device": copy["args"].get("device", 0), "context": copy["args"].get("context", 1),
                            "stream": stream, "correlation": c, "bytes": COPY_BYTES,
                            "memory bandwidth (GB/s)": round(COPY_BYTES / (COPY_US * 1e3), 4)}})
    return ev


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in ("strip-args", "dataloader", "no-gpu"):
        sys.exit("usage: variants.py SRC_TRACE OUT_DIR strip-args|dataloader|no-gpu")
    src, out, kind = sys.argv[1:]
    doc = load(src)
    ev = doc["traceEvents"] if isinstance(doc, dict) else doc
    ev = {"strip-args": strip_args, "dataloader": dataloader, "no-gpu": no_gpu}[kind](ev)
    if isinstance(doc, dict):
        doc["traceEvents"] = ev
    else:
        doc = ev
    os.makedirs(out, exist_ok=True)
    save(doc, os.path.join(out, os.path.basename(src)))


if __name__ == "__main__":
    main()
