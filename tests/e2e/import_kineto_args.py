#!/usr/bin/env python3
"""import_kineto_args.py BUILD: a Kineto trace's NCCL kernels and metadata
read as PyTorch and Kineto write them, on made-up traces (the expected
figures are the traces' own):
- a send and a recv between ranks 0 and 1 among all-reduces that all three
  ranks run together.  ProcessGroupNCCL::send and ::recv record the peer's
  group rank as "Rank" and the next collective's number as "Seq"; Kineto
  adds the peer's global rank as "Dst Rank" / "Src Rank".  Each is
  numbered as the tracer numbers it (GT_SEQ_P2P | its place among the
  rank's sends to that peer), the all-reduces 0, 1, 2 on every rank: in
  one sequence, rank 2's second all-reduce met the others' send and recv
  (a false straggler, or a false mismatch where Seq was written);
- distributedInfo after traceEvents (on-demand traces): every collective
  still gets the rank's place in its group;
- all_to_allv (alltoall_base with split sizes: a SendRecv kernel) is an
  all-to-all, not a send;
- distributedInfo's nccl_version "unknown" (Kineto's when it cannot tell)
  is no error to note;
- a host process whose pid is as small as a device's (pid 7 in a
  container): Kineto labels it "CPU" (process_labels), and its process
  and thread names are the host's; a device's ("GPU 0") are not."""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # tests/e2e/tap.py

build = sys.argv[1]
gt, report = os.path.join(build, "gputrace"), os.path.join(build, "gputrace-report")
tmp = tempfile.mkdtemp()
AR = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
SR = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"
GT_SEQ_P2P = 1 << 48


def coll_args(name, extra=None, ranks="[0, 1, 2]"):
    a = {"Collective name": name, "In msg nelems": 1024, "Out msg nelems": 1024, "Group size": 3, "dtype": "Float",
         "In split size": "[]", "Out split size": "[]", "Process Group Name": "0",
         "Process Group Description": "default_pg", "Process Group Ranks": ranks}
    a.update(extra or {})
    return a


def rank_trace(rank, ops, info_after=False, nccl_version="2.21.5"):
    """ops: (collective name, kernel, extra args, start us) in order"""
    pid = 100 + rank
    ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": pid, "tid": pid, "ts": 1000.0,
           "dur": 40000.0, "args": {}}]
    for corr, (name, kernel, extra, ts) in enumerate(ops, 20):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": pid, "ts": ts,
                   "dur": 5.0, "args": {"cbid": 211, "correlation": corr}})
        ev.append({"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 40, "ts": ts + 10, "dur": 50.0,
                   "args": dict(coll_args(name, extra), device=0, stream=40, correlation=corr)})
    info = {"distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 3, "nccl_version": nccl_version}}
    t = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}]}
    if not info_after:
        t.update(info)
    t["baseTimeNanoseconds"] = 1700000000000000000
    t["traceEvents"] = ev
    if info_after:
        t.update(info)
    return t


def imported(name, traces):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    for r, t in enumerate(traces):
        with open(os.path.join(d, "rank%d.json" % r), "w") as f:
            json.dump(t, f, indent=1)
    db = d + ".db"
    p = subprocess.run([gt, "import", "-q", "-o", db, d], capture_output=True, text=True)
    tap.check(p.returncode == 0, "%s: gputrace import exits 0 (%s)" % (name, p.stderr.strip()[:200]))
    return db


def rows(db, sql):
    with sqlite3.connect(db) as c:
        return c.execute(sql).fetchall()


def findings(db):
    p = subprocess.run([report, "--format", "json", "--min-cost", "0", db], capture_output=True, text=True)
    tap.check(p.returncode == 0, "gputrace-report exits 0 (%s)" % p.stderr.strip()[:200])
    return json.loads(p.stdout) if p.returncode == 0 else {"findings": []}


def p2p_run(name, send_extra, recv_extra, seq):
    """all-reduces at 1, 21 and 31 ms on every rank; between the first two,
    rank 0 sends to rank 1 (rank 2 idles): seq adds "Seq" args as PyTorch
    numbers them (the p2p ones the next collective's)"""
    def ops(rank):
        o = [("allreduce", AR, {"Seq": 1} if seq else {}, 1010.0)]
        if rank == 0:
            o.append(("send", SR, dict(send_extra, **({"Seq": 2} if seq else {})), 11000.0))
        if rank == 1:
            o.append(("recv", SR, dict(recv_extra, **({"Seq": 2} if seq else {})), 11000.0))
        o += [("allreduce", AR, {"Seq": 2} if seq else {}, 21000.0), ("allreduce", AR, {"Seq": 3} if seq else {}, 31000.0)]
        return o
    db = imported(name, [rank_trace(r, ops(r)) for r in range(3)])
    got = rows(db, "SELECT p.rank, c.api = (SELECT id FROM api WHERE name = 'ncclAllReduce'), c.seq, c.rank, c.peer"
                   " FROM collective c JOIN process p ON p.id = c.process_id ORDER BY p.rank, c.start_ns")
    first = 1 if seq else 0
    want = []
    for r in range(3):
        want.append((r, 1, first, r, -1))
        if r == 0:
            want.append((0, 0, GT_SEQ_P2P, 0, 1))
        if r == 1:
            want.append((1, 0, GT_SEQ_P2P, 1, 0))
        want += [(r, 1, first + 1, r, -1), (r, 1, first + 2, r, -1)]
    tap.check(got == want, "%s: the all-reduces numbered alike on every rank, the send and recv as the tracer"
              " numbers them (GT_SEQ_P2P | 0), each with its rank and peer: %s" % (name, got))
    kinds = sorted({f["kind"] for f in findings(db)["findings"]})
    tap.check("comm.straggler" not in kinds and "comm.mismatch" not in kinds,
              "%s: no straggler or mismatch made of the send and recv: %s" % (name, kinds))


# the peer's group rank as "Rank" (record_param_comms), its global rank as Dst/Src Rank
p2p_run("p2p", {"Rank": 1, "Dst Rank": 1}, {"Rank": 0, "Src Rank": 0}, seq=False)
p2p_run("p2p_seq", {"Rank": 1, "Dst Rank": 1}, {"Rank": 0, "Src Rank": 0}, seq=True)
# no "Rank": the peer from Kineto's global Dst/Src Rank
p2p_run("p2p_global", {"Dst Rank": 1}, {"Src Rank": 0}, seq=False)

# distributedInfo after traceEvents, an old PyTorch's args (no "Rank"): the
# rank's place in the group, as when it comes first
ar = [("allreduce", AR, {}, 1010.0 + 100 * i) for i in range(3)]
db = imported("info_after", [rank_trace(r, ar, info_after=True, nccl_version="unknown") for r in range(3)])
tap.check(rows(db, "SELECT p.rank, group_concat(c.rank) FROM collective c JOIN process p ON p.id = c.process_id"
                   " GROUP BY p.rank ORDER BY p.rank") == [(0, "0,0,0"), (1, "1,1,1"), (2, "2,2,2")],
          "info_after: distributedInfo after traceEvents: each collective with its rank in the group")
tap.check(rows(db, "SELECT count(*) FROM import_note WHERE note LIKE '%nccl_version%'") == [(0,)],
          "info_after: nccl_version \"unknown\" noted as no error")

# all_to_allv: an all-to-all, on its SendRecv kernel
db = imported("alltoallv", [rank_trace(r, [("all_to_allv", SR, {"In split size": "[400, 300, 324]"}, 1010.0)])
                            for r in range(3)])
tap.check(rows(db, "SELECT DISTINCT a.name FROM collective c JOIN api a ON a.id = c.api") == [("ncclAlltoAll",)],
          "alltoallv: all_to_allv imported as ncclAlltoAll")
# a host pid of 7, its process and thread named; GPU 0's as Kineto names it
# (the same process name, "GPU 0" its label, its streams as threads)
t = rank_trace(0, [("allreduce", AR, {}, 1010.0)])
for e in t["traceEvents"]:
    if e["pid"] == 100:
        e["pid"] = e["tid"] = 7
t["traceEvents"][:0] = [
    {"name": "process_name", "ph": "M", "ts": 1000, "pid": 7, "tid": 0, "args": {"name": "train.py"}},
    {"name": "process_labels", "ph": "M", "ts": 1000, "pid": 7, "tid": 0, "args": {"labels": "CPU"}},
    {"name": "process_name", "ph": "M", "ts": 1000, "pid": 0, "tid": 0, "args": {"name": "train.py"}},
    {"name": "process_labels", "ph": "M", "ts": 1000, "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
    {"name": "thread_name", "ph": "M", "ts": 1000, "pid": 0, "tid": 40, "args": {"name": "stream 40 "}},
    {"name": "thread_name", "ph": "M", "ts": 1000, "pid": 7, "tid": 7, "args": {"name": "thread 7 (python)"}}]
db = imported("small_pid", [t])
tap.check(rows(db, "SELECT pid, cmdline FROM process") == [(7, "train.py")]
          and rows(db, "SELECT t.tid, l.value FROM thread_name t JOIN label l ON l.process_id = t.process_id"
                       " AND l.id = t.name") == [(7, "thread 7 (python)")],
          "small_pid: a host pid of 7 labelled CPU: its process and thread names kept, GPU 0's stream not a thread")
# a trace's duplicate kernel event (the same send twice: a tie in the
# numbering's order, which then numbers by SQL): the sends before it keep
# their place among the sends to that peer, none numbered twice (the
# numbering's first pass, its savepoint not undone with the journal off,
# once left them numbered and out of their group: the last two sends then
# took the first two's numbers)
dup = rank_trace(0, [("send", SR, {"Rank": 1, "Dst Rank": 1}, 11000.0 + 1000 * i) for i in range(4)])
dup["traceEvents"].append(dict(dup["traceEvents"][-1]))
db = imported("p2p_duplicate", [dup])
got = [r[0] - GT_SEQ_P2P for r in rows(db, "SELECT seq FROM collective ORDER BY start_ns, rowid")]
tap.check(sorted(got) == list(range(5)) and got[:3] == [0, 1, 2],
          "p2p_duplicate: five sends to one peer (the last one twice) numbered 0-4, each once: %s" % got)
tap.finish()
