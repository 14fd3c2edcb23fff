#!/bin/sh
# ledger_sum.sh: runs ledger_sum.py (see there): every golden fixture's
# ledger adds up, to the nanosecond, and ranks the findings.
exec python3 "${top_srcdir:-.}/tests/e2e/ledger_sum.py" "${top_srcdir:-.}"
