#!/bin/sh
# ledger_traces.sh: runs ledger_traces.py (see there): the ledger's causes
# on real traces and their variants (data loading, no collective args).
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
python3 "$s/tests/e2e/ledger_traces.py" "$b" "$s" "$tmp"
exit $?
