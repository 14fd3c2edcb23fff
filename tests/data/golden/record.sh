#!/bin/sh
# record.sh [BUILD_DIR] [WORKLOAD...]: records the golden tests' simulator
# fixtures (README.md, "sim-*") again: each workload run under `gputrace
# record` on the simulator, its run directory merged into one database,
# paths, host name and boot id taken out, and dumped as SQL into
# sim-WORKLOAD/input.sql.  Only for a change that needs new recordings (a
# schema change, a new workload): the timings differ on every run, so every
# expected output of a re-recorded fixture changes; run update.sh after it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
b=$(cd "${1:-$top/build}" && pwd)
[ $# -gt 0 ] && shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
export GPUSIM_LIB="$b/tests/sim/.libs/libgpusim.so"

# name ranks steps [gpusim-run options]: what each fixture records (the
# fewest steps in which its workload still plants its findings)
workloads='
train_demo 4 3
straggler 4 3
desync 4 6
hang 4 4 --timeout 5
serialized_upload 4 3
allreduce_compute_stream 4 3
event_sync 2 3
pipeline 4 3
multi_gpu 1 3
'

record() {
  name=$1 ranks=$2 steps=$3
  shift 3
  out="$here/sim-$name"
  mkdir -p "$out"
  # from the build directory, so that the command line stored is relative
  (cd "$b" && APP_STEPS=$steps ./gputrace record -f -o "$tmp/$name" -- \
    tests/sim/gpusim-run -n "$ranks" "$@" "tests/apps/$name") > "$tmp/$name.log" 2>&1 || true
  rm -f "$tmp/$name.db"
  "$b/gputrace" merge "$tmp/$name.db" "$tmp/$name" > /dev/null
  # what names this machine or this checkout
  sqlite3 "$tmp/$name.db" "
    update run set id = 'host:1';
    update process set run_id = 'host:1', host = 'host', boot_id = NULL;
    update module set path = name;"
  sqlite3 "$tmp/$name.db" .dump > "$out/input.sql"
  if grep -q "$top\|$b" "$out/input.sql"; then
    echo "record.sh: $name: a path of this checkout is left in input.sql" >&2
    exit 1
  fi
  echo "sim-$name: $(wc -c < "$out/input.sql") bytes"
}

echo "$workloads" | while read -r name ranks steps opts; do
  [ -n "$name" ] || continue
  if [ $# -gt 0 ]; then
    case " $* " in *" $name "*) ;; *) continue ;; esac
  fi
  # shellcheck disable=SC2086
  record "$name" "$ranks" "$steps" $opts
done
