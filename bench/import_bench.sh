#!/usr/bin/env bash
# import_bench.sh [MIB...]: `gputrace import` on synthetic Kineto traces
# (bench/gen_kineto.py; generated, never committed) of each size (default
# 2048 MiB, plain): events per second and peak memory; then the same trace
# gzip'd, when GZIP_MIB (default 256) is not 0; then, when PLAIN_MIB (default
# 256) is not 0, one without NCCL kernels (gen_kineto.py's NCCL=0: a quarter
# of the kernels are NCCL's otherwise, each numbered on import by kernel
# order in SQL, a few microseconds apiece, where any other event costs a few
# tenths).  The import streams: its
# memory must not grow with the trace (its peak is mostly SQLite's page
# cache, 16 MiB).  Events per second by the clock and per CPU second (user
# + system: on a loaded machine the clock's figure says more about the
# load than about the import).  BASE=DIR (a build of another commit):
# each trace is then imported REPEAT times (default 3) by each build in
# turns, the two databases the same row for row (sqlite3 .dump): the
# medians of the CPU seconds and their ratio (a build older than schema
# version 7 writes another version, its blocks packed: not comparable so).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
gt=$top/build/gputrace
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf "%9s %6s %10s %9s %12s %7s %12s %10s %9s\n" "trace MiB" gzip events "import s" "events/s" "CPU s" "events/CPU s" \
  "peak MiB" "db MiB"
run() { # TRACE EVENTS GZ
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$gt" import -q -f -o "$tmp/out.db" "$1"
  read -r s us ss kb < "$tmp/t"
  awk -v mib="$(( $(stat -c %s "$1") / 1048576 ))" -v gz="$3" -v n="$2" -v s="$s" -v kb="$kb" \
      -v db="$(( $(stat -c %s "$tmp/out.db") / 1048576 ))" -v cpu="$(awk -v u="$us" -v t="$ss" 'BEGIN { print u + t }')" \
      'BEGIN { printf "%9d %6s %10d %9.2f %12.0f %7.2f %12.0f %10.1f %9d\n", mib, gz, n, s, n / s, cpu, n / cpu, kb / 1024, db }'
  rm -f "$tmp/out.db"
  [ -z "${BASE:-}" ] || versus "$1" "$2"
}
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
cpu_of() { # BINARY TRACE OUT: the import's CPU seconds (user + system)
  /usr/bin/time -f "%U %S" -o "$tmp/t" "$1" import -q -f -o "$3" "$2"
  awk '{printf "%.3f", $1 + $2}' "$tmp/t"
}
versus() { # TRACE EVENTS: this build against BASE's, in turns
  local ns=() os=() i
  for i in $(seq "${REPEAT:-3}"); do
    ns+=("$(cpu_of "$gt" "$1" "$tmp/new.db")")
    os+=("$(cpu_of "$BASE/gputrace" "$1" "$tmp/old.db")")
  done
  [ "$(sqlite3 "$tmp/new.db" .dump | md5sum)" = "$(sqlite3 "$tmp/old.db" .dump | md5sum)" ] ||
    { echo "import_bench: the database differs from BASE's" >&2; exit 1; }
  rm -f "$tmp/new.db" "$tmp/old.db"
  local n_m o_m
  n_m=$(printf '%s\n' "${ns[@]}" | median) o_m=$(printf '%s\n' "${os[@]}" | median)
  awk -v n="$n_m" -v o="$o_m" -v e="$2" -v r="${REPEAT:-3}" 'BEGIN {
    printf "   BASE %.3f CPU s against %.3f (medians of %d, in turns): %.3fx; %.0f events per CPU second, BASE %.0f; the same database\n",
      o, n, r, o / n, e / n, e / o }'
}
for mib in ${*:-2048}; do
  n=$(python3 "$top/bench/gen_kineto.py" "$tmp/trace.json" "$mib")
  run "$tmp/trace.json" "$n" no
  rm -f "$tmp/trace.json"
done
gz=${GZIP_MIB:-256}
if [ "$gz" != 0 ]; then
  n=$(python3 "$top/bench/gen_kineto.py" "$tmp/trace.json" "$gz")
  gzip -1 "$tmp/trace.json"
  run "$tmp/trace.json.gz" "$n" yes
fi
plain=${PLAIN_MIB:-256}
if [ "$plain" != 0 ]; then
  rm -f "$tmp/trace.json" "$tmp/trace.json.gz"
  n=$(python3 "$top/bench/gen_kineto.py" "$tmp/trace.json" "$plain" 0)
  echo "   without NCCL kernels:"
  run "$tmp/trace.json" "$n" no
fi
