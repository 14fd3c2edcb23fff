"""gputrace: the tracer and report of distributed GPU programs, as a
Python package.  `pip install gputrace` puts `gputrace` (record, merge, ...)
and `gputrace-report` on PATH (the C programs, bundled in this package);
`python -m gputrace record -- torchrun ...` is the same.  In a notebook:

    import gputrace
    run = gputrace.load("run.db")
    run.findings, run.ranks, run.ledger, run.collectives, run.kernels
"""
from gputrace._cli import binary
from gputrace._load import ReportError, Run, load

__all__ = ["load", "Run", "ReportError", "binary"]
