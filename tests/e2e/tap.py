"""tap.py: the Test Anything Protocol for the end-to-end checkers in
Python, as automake's TAP driver reads it (tests/e2e/testlib.sh prints the
same for the shell tests): "ok N - what" or "not ok N - what" per check,
"ok N - what # SKIP why" for one not made, "# ..." for anything else, and
at the end the plan "1..N" and a comment "# N passed, N failed".

A checker that a shell test runs in the middle of its own checks (testlib.sh's
tap_py) continues the shell's numbering: TAP_START is the number of checks
made before it, and with TAP_COUNTS set, finish() writes "passed failed" to
that file for the shell to add, instead of printing a plan of its own."""
import os, sys

passed = failed = 0
_start = int(os.environ.get("TAP_START", "0") or 0)


def _line(text):
    # one result per line: a newline inside a description would end it
    print(text.replace("\n", " "), flush=True)


def check(cond, what):
    """One check: its result, numbered."""
    global passed, failed
    if cond:
        passed += 1
        _line(f"ok {_start + passed + failed} - {what}")
    else:
        failed += 1
        _line(f"not ok {_start + passed + failed} - {what}")
    return bool(cond)


def skip(what, why):
    """A check not made, and why (counted as passed, as TAP counts it)."""
    global passed
    passed += 1
    _line(f"ok {_start + passed + failed} - {what} # SKIP {why}")


def diag(text):
    """A line for the reader, no result."""
    for line in str(text).splitlines() or [""]:
        print("# " + line, flush=True)


def finish():
    """The plan (or, inside a shell test, the counts for it) and the exit
    status: 1 if any check failed."""
    counts = os.environ.get("TAP_COUNTS")
    if counts:
        with open(counts, "w") as f:
            f.write(f"{passed} {failed}\n")
    else:
        print(f"1..{passed + failed}")
        print(f"# {passed} passed, {failed} failed")
    sys.stdout.flush()
    sys.exit(1 if failed else 0)
