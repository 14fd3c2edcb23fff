"""gputrace._load: gputrace.load(RUN), a run's report as tables for a
notebook.  It runs the bundled `gputrace-report --format json` and reshapes
its output (docs/report-json.md): no analysis is made here, so the tables
say what the report says.  pandas DataFrames when pandas is installed, else
lists of dicts (one per row)."""
import json
import os
import subprocess

from gputrace._cli import binary


class ReportError(RuntimeError):
    """gputrace-report could not read the run (its message and exit status)."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


def _table(rows, columns=None):
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame(rows, columns=columns)


class Run:
    """One run's report.  Tables (DataFrames, or lists of dicts):

    findings     one row per finding, costliest first (kind, rank, callsite, waste_ns, cost_ns, ...)
    ranks        the per-rank summary (wall_ns, gpu_busy_ns, comm_ns, exposed_comm_ns, ...)
    ledger       per rank, where its time went: life_ns, waste_ns, found_ns and one column per bucket
    causes       the ledger's waste by the finding charged for it: rank, bucket, ns, finding, cause
    collectives  per NCCL operation and size: count, total_ns, algbw_gbs, busbw_gbs
    kernels      per kernel name (the 100 costliest): count, total_ns, mean_ns, max_ns, nccl
    phases       per rank and top-level NVTX range
    and `report`, the whole JSON object, for the rest (docs/report-json.md).
    """

    def __init__(self, report):
        self.report = report
        self.run = report.get("run", {})
        self.findings = _table(report.get("findings", []))
        self.ranks = _table(report.get("ranks", []))
        self.collectives = _table(report.get("collectives", []))
        self.kernels = _table(report.get("kernels", []))
        self.phases = _table(report.get("phases", []))
        ledger, causes = [], []
        for entry in report.get("ledger", []):
            row = {k: v for k, v in entry.items() if k not in ("buckets", "causes", "steps")}
            for b in entry.get("buckets", []):
                row[b["bucket"]] = b["ns"]
            ledger.append(row)
            for c in entry.get("causes", []):
                causes.append(dict(rank=entry.get("rank"), pid=entry.get("pid"), **c))
        self.ledger = _table(ledger)
        self.causes = _table(causes)

    def __repr__(self):
        return "<gputrace run %s: %d ranks, %d findings>" % (
            self.run.get("id", "?"), len(self.report.get("ranks", [])), len(self.report.get("findings", [])))


def load(run, *options, report=None):
    """Reads RUN (a run directory, a database, or a trace the report
    imports: docs/import.md) with gputrace-report and returns a Run.
    options are passed to gputrace-report (e.g. "--range", "train_step");
    report: another gputrace-report to run (default: this package's)."""
    cmd = [report or binary("gputrace-report"), "--format", "json"] + list(options) + [os.fspath(run)]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # 1: a damaged database still gives a report of what could be read
    # (run.damaged says what); only without any output is it an error
    if p.returncode not in (0, 1, 3) or not p.stdout.strip():
        raise ReportError("gputrace-report: %s" % p.stderr.decode(errors="replace").strip(), p.returncode)
    return Run(json.loads(p.stdout))
