"""gputrace._cli: the console commands the wheel installs (gputrace,
gputrace-report) and `python -m gputrace`: each execs the binary bundled in
the package, so the process that runs is the C program itself (its pid,
its signals, its exit status), as when it is installed with make install.
The launcher finds libgputrace.so beside it (../lib), this package's own."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def binary(name):
    """The path of a bundled program: 'gputrace' or 'gputrace-report'."""
    return os.path.join(HERE, "bin", name)


def _exec(name, args):
    path = binary(name)
    try:
        os.execv(path, [name] + list(args))
    except OSError as e:
        sys.stderr.write("%s: cannot run %s: %s\n" % (name, path, e.strerror))
        sys.exit(127)


def gputrace(args=None):
    _exec("gputrace", sys.argv[1:] if args is None else args)


def report(args=None):
    _exec("gputrace-report", sys.argv[1:] if args is None else args)
