#!/usr/bin/env bash
# whatif_cost.sh [RECORDS]: what the what-if replay (docs/report.md, "What
# if it were fixed") costs the report: a synthetic single rank of RECORDS
# rows (default 10000000; bench/gen_run.sh with an NVTX range a step, a
# scalar read a step: one finding to replay), reported with and without
# --no-whatif, interleaved REPEAT times (default 3), medians: wall time,
# the ratio, and peak memory.  Needs a build (scripts/build.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rep=$top/build/gputrace-report
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export GPUTRACE_ONE_FILE=1
records=${1:-10000000} repeat=${REPEAT:-3}
GEN_STEPS=1 "$top/bench/gen_run.sh" "$tmp/run.db" "$records" 1 > /dev/null
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
: > "$tmp/rows"
for i in $(seq "$repeat"); do
  /usr/bin/time -f "%e %M" -o "$tmp/a" "$rep" --format json "$tmp/run.db" > "$tmp/with.json"
  /usr/bin/time -f "%e %M" -o "$tmp/b" "$rep" --no-whatif --format json "$tmp/run.db" > /dev/null
  echo "$(cat "$tmp/a") $(cat "$tmp/b")" >> "$tmp/rows"
done
findings=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for f in d['findings'] if f.get('whatif')), d['whatif'][0]['steps'] if d['whatif'] else 0)" "$tmp/with.json")
echo "   what-if replay, one rank of $records records ($(set -- $findings; echo "$2 steps, $1 finding(s) replayed"));" \
  "median of $repeat (load: $(cut -d' ' -f1-3 /proc/loadavg)):"
echo "   ... report with the replay $(awk '{print $1}' "$tmp/rows" | median) s, without $(awk '{print $3}' "$tmp/rows" | median) s," \
  "ratio $(awk '{printf "%.3f\n", $1 / $3}' "$tmp/rows" | median);" \
  "peak memory $(( $(awk '{print $2}' "$tmp/rows" | median) / 1024 )) MiB with, $(( $(awk '{print $4}' "$tmp/rows" | median) / 1024 )) MiB without"
