#!/usr/bin/env bash
# bench/report_blocks.sh [RATE]: the report reading what the tracer really
# writes, in bulk blocks (its default), beside the same records as rows.
# One rank of dense kernel launches is traced (bench/sink_rate's "launch"
# at RATE a second, default 300000, for about two seconds, CUPTI on: a
# call, an API record and a kernel record each, ~1.8 M records), a copy of
# it is expanded to rows (gputrace expand), and the report (--format json)
# is timed on each in turns, REPEAT times (default 3): records per CPU
# second (user + system, which a loaded machine moves less than the wall
# time) and the medians.  The two reports must be the same byte for byte.
# The blocks are read once more in each turn with GPUTRACE_REPORT_HUGE_PAGES=0
# (viewer/huge_pages.c): the CPU time transparent huge pages save.
# bench/report_bench.sh measures synthetic runs made with SQL, as rows.
# Needs a build (scripts/build.sh); BUILD names another one.  BASE=DIR
# (a build of another commit) times its report on the blocks too, in
# turns with this one's, its JSON the same byte for byte: the ratio (a
# build older than schema version 7 cannot read the compact blocks this
# one writes).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=${BUILD:-$top/build}
rate=${1:-300000}
reps=${REPEAT:-3}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
inc="-I${CUDA_HOME:-/usr/local/cuda}/include"
cc -O2 $inc -pthread -o "$tmp/sink_rate" "$top/bench/sink_rate.c" "$b/tests/sim/.libs/libgpusim.so" \
  -Wl,-rpath,"$b/tests/sim/.libs" -ldl
GPUTRACE_ONE_FILE=1 GPUTRACE_QUIET=1 GPUTRACE_OUTPUT="$tmp/blocks.db" LD_PRELOAD="$b/.libs/libgputrace.so" \
  "$tmp/sink_rate" "$rate" launch > /dev/null
read -r n rows dropped < <(sqlite3 -separator ' ' "$tmp/blocks.db" "select
  (select coalesce(sum(n), 0) from api_call_block) + (select coalesce(sum(n), 0) from cupti_api_block)
  + (select coalesce(sum(n), 0) from gpu_op_block),
  (select count(*) from api_call) + (select count(*) from cupti_api) + (select count(*) from gpu_op),
  dropped_host + dropped_cupti from process")
cp "$tmp/blocks.db" "$tmp/rows.db"
"$b/gputrace" expand "$tmp/rows.db" > /dev/null
echo "   one rank, $((n + rows)) records ($n in blocks, $rows rows, $dropped dropped), $rate launches a second"
# CPU seconds of one report of FILE, its JSON kept as OUT (BUILD_DIR: another build's)
cpu_s() {
  /usr/bin/time -f "%U %S" -o "$tmp/t" "${3:-$b}/gputrace-report" --format json "$1" > "$2"
  awk '{printf "%.3f", $1 + $2}' "$tmp/t"
}
# the same without transparent huge pages (viewer/huge_pages.c)
cpu_small_pages() { GPUTRACE_REPORT_HUGE_PAGES=0 cpu_s "$@"; }
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
bs=() rs=() os=() ss=()
for i in $(seq "$reps"); do
  bs+=("$(cpu_s "$tmp/blocks.db" "$tmp/b.json")")
  rs+=("$(cpu_s "$tmp/rows.db" "$tmp/r.json")")
  ss+=("$(cpu_small_pages "$tmp/blocks.db" "$tmp/s.json")")
  cmp -s "$tmp/b.json" "$tmp/r.json" || { echo "report_blocks: the report differs between blocks and rows" >&2; exit 1; }
  cmp -s "$tmp/b.json" "$tmp/s.json" || { echo "report_blocks: the report differs without huge pages" >&2; exit 1; }
  base=
  if [ -n "${BASE:-}" ]; then
    os+=("$(cpu_s "$tmp/blocks.db" "$tmp/o.json" "$BASE")")
    cmp -s "$tmp/b.json" "$tmp/o.json" || { echo "report_blocks: the report differs from BASE's" >&2; exit 1; }
    base=", BASE's from blocks ${os[-1]}"
  fi
  echo "   from blocks ${bs[-1]} CPU s, from rows ${rs[-1]}, from blocks without huge pages ${ss[-1]}$base"
done
if [ -n "${BASE:-}" ]; then
  o_m=$(printf '%s\n' "${os[@]}" | median) n_m=$(printf '%s\n' "${bs[@]}" | median)
  echo "   ... from blocks, BASE $o_m CPU s against $n_m: $(awk -v o="$o_m" -v n="$n_m" 'BEGIN {printf "%.3f", o / n}')x"
fi
b_m=$(printf '%s\n' "${bs[@]}" | median) r_m=$(printf '%s\n' "${rs[@]}" | median) s_m=$(printf '%s\n' "${ss[@]}" | median)
echo "   ... from blocks without huge pages (GPUTRACE_REPORT_HUGE_PAGES=0; THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2> /dev/null))" \
  "$s_m CPU s: $(awk -v s="$s_m" -v b="$b_m" 'BEGIN {printf "%.2f", s / b}')x the CPU time with them"
echo "   ... median of $reps (load $(cut -d' ' -f1-3 /proc/loadavg)): from blocks $b_m CPU s," \
  "$(awk -v n="$((n + rows))" -v s="$b_m" 'BEGIN {printf "%.2f", n / s / 1e6}') M records per CPU second;" \
  "from rows $r_m, $(awk -v n="$((n + rows))" -v s="$r_m" 'BEGIN {printf "%.2f", n / s / 1e6}') M; the same report from both"
