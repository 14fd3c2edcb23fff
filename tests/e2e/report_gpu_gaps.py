# report_gpu_gaps.py: a report's JSON (stdin) in one line: each finding's
# kind, call site and costs, and the first rank's ledger buckets, for
# report_gpu_gaps.sh to compare a process read whole with one read a window
# at a time.
import json
import sys

d = json.load(sys.stdin)
print(sorted((f["kind"], f.get("callsite"), f.get("waste_ns"), f.get("gpu_idle_ns"), f.get("host_blocked_ns"))
             for f in d["findings"]),
      [(b["bucket"], b["ns"]) for b in d["ledger"][0]["buckets"]])
