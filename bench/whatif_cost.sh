#!/usr/bin/env bash
# whatif_cost.sh [RECORDS]: what the what-if replay (docs/report.md, "What
# if it were fixed") costs the report: a synthetic single rank of RECORDS
# rows (default 10000000; bench/gen_run.sh with an NVTX range a step, a
# scalar read a step: one finding to replay), reported with and without
# --no-whatif, interleaved REPEAT times (default 3), medians: wall time,
# CPU time (user), the ratio, and peak memory, side by side.  Past 4M
# records the rank is read a window of 1M records at a time and replayed
# so (its replays' state carried across the cuts): the script says in how
# many windows.  RANKS=N makes N ranks of RECORDS / N rows each, with a
# collective a step: their summaries are replayed together too.  Needs a
# build (scripts/build.sh); REPORT names another gputrace-report.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rep=${REPORT:-$top/build/gputrace-report}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export GPUTRACE_ONE_FILE=1
# the default window (viewer/read/windows.h), set so that the report says
# in how many windows it read the rank
export GPUTRACE_REPORT_WINDOW_ROWS=${GPUTRACE_REPORT_WINDOW_ROWS:-1048576}
records=${1:-10000000} repeat=${REPEAT:-3}
GEN_STEPS=1 "$top/bench/gen_run.sh" "$tmp/run.db" "$records" "${RANKS:-1}" > /dev/null
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
: > "$tmp/rows"
for i in $(seq "$repeat"); do
  /usr/bin/time -f "%e %M %U" -o "$tmp/a" "$rep" --format json "$tmp/run.db" > "$tmp/with.json" 2> "$tmp/err"
  /usr/bin/time -f "%e %M %U" -o "$tmp/b" "$rep" --no-whatif --format json "$tmp/run.db" > /dev/null 2> /dev/null
  echo "$(cat "$tmp/a") $(cat "$tmp/b")" >> "$tmp/rows"
done
findings=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for f in d['findings'] if f.get('whatif')), d['whatif'][0]['steps'] if d['whatif'] else 0)" "$tmp/with.json")
windows=$(grep -o 'read in [0-9]* windows' "$tmp/err" | head -n 1 || true)
echo "   what-if replay, ${RANKS:-1} rank(s) of $records records in all (${windows:-read whole}; $(set -- $findings; echo "$2 steps, $1 finding(s) replayed"));" \
  "median of $repeat (load: $(cut -d' ' -f1-3 /proc/loadavg)):"
printf '   %-22s %10s %10s\n' "" "with" "--no-whatif"
printf '   %-22s %10s %10s\n' "wall s" "$(awk '{print $1}' "$tmp/rows" | median)" "$(awk '{print $4}' "$tmp/rows" | median)"
printf '   %-22s %10s %10s\n' "CPU (user) s" "$(awk '{print $3}' "$tmp/rows" | median)" "$(awk '{print $6}' "$tmp/rows" | median)"
printf '   %-22s %10s %10s\n' "peak memory MiB" "$(( $(awk '{print $2}' "$tmp/rows" | median) / 1024 ))" \
  "$(( $(awk '{print $5}' "$tmp/rows" | median) / 1024 ))"
echo "   wall ratio $(awk '{printf "%.3f\n", $1 / $4}' "$tmp/rows" | median)"
