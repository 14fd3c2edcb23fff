"""python -m gputrace ...: the gputrace command (record, merge, ...), as
`gputrace ...`; `python -m gputrace report RUN` is `gputrace-report RUN`."""
import sys

from gputrace._cli import gputrace, report

if len(sys.argv) > 1 and sys.argv[1] == "report":
    report(sys.argv[2:])
else:
    gputrace(sys.argv[1:])
