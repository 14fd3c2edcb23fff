#!/bin/sh
# record.sh [BUILD_DIR] [FIXTURE...]: records the golden tests' simulator
# fixtures (README.md, "sim-*") again: each workload run under `gputrace
# record` on the simulator, its run directory merged into one database,
# paths, host name and boot id taken out, and dumped as SQL into
# sim-FIXTURE/input.sql, with how it was made in sim-FIXTURE/recording.  Only for a change that needs new recordings (a
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

# FIXTURE WORKLOAD BINARY RANKS STEPS [VAR=VALUE...] [gpusim-run option...]
# [-- ARG...]: what each fixture records.  WORKLOAD: the one whose header's
# expect/allow lines verdicts.py checks on it ("-": none, the fixture's own
# checks only); BINARY: the program of tests/apps run; STEPS: APP_STEPS,
# the fewest steps in which it still plants its findings; VAR=VALUE: set
# for the run (the simulator's options); ARG: the program's arguments.
workloads='
train_demo train_demo train_demo 4 3
straggler straggler straggler 4 3
desync desync desync 4 6
hang hang hang 4 4 --timeout 5
serialized_upload serialized_upload serialized_upload 4 3
allreduce_compute_stream allreduce_compute_stream allreduce_compute_stream 4 3
event_sync event_sync event_sync 4 3
pipeline - pipeline 4 3
multi_gpu multi_gpu multi_gpu 1 3
model_parallel model_parallel model_parallel 1 3
model_parallel_default model_parallel_default model_parallel_default 1 3
model_parallel_torch model_parallel_default model_parallel_default 1 3 -- torch
overlapped overlapped overlapped 4 3
scalar_read scalar_read scalar_read 4 3
device_sync device_sync device_sync 4 5
pageable_upload pageable_upload pageable_upload 4 3
pg_sync pg_sync pg_sync 4 3
cpu_copy cpu_copy cpu_copy 4 3
to_device to_device to_device 4 3
redundant_sync redundant_sync redundant_sync 4 3
alloc_each_step alloc_each_step alloc_each_step 4 3
hang_inside hang_inside hang_inside 4 4 --timeout 5
p2p_ring - p2p_ring 4 3
straggler_static - straggler_static 4 3
overlapped_shifted overlapped overlapped 4 4 GPUSIM_CLOCK_SHIFT_NS=1:5000000 GPUSIM_HOSTNAME=1:simhost-b
straggler_shifted straggler straggler 4 3 GPUSIM_CLOCK_SHIFT_NS=2:-14000000 GPUSIM_HOSTNAME=2:simhost-c
pipeline_grouped - pipeline 4 3 -- grouped
pipeline_connected - pipeline 4 3 NCCL_RUNTIME_CONNECT=0
comm_scalable comm_scalable comm_scalable 4 12
comm_shrink comm_shrink comm_shrink 4 12
comm_split_nb comm_split_nb comm_split_nb 4 12
comm_split_nb_spin comm_split_nb_spin comm_split_nb_spin 4 12
comm_init_nb comm_init_nb comm_init_nb 4 12
nccl_dlopen nccl_dlopen nccl_dlopen 4 12
'

record() {
  name=$1 workload=$2 binary=$3 ranks=$4 steps=$5
  shift 5
  envs="" opts="" args=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --) shift; args="$*"; break ;;
      [A-Z]*=*) envs="$envs $1" ;;
      *) opts="$opts $1" ;;
    esac
    shift
  done
  out="$here/sim-$name"
  mkdir -p "$out"
  # from the build directory, so that the command line stored is relative
  # shellcheck disable=SC2086
  (cd "$b" && env APP_STEPS="$steps" $envs ./gputrace record -f -o "$tmp/$name" -- \
    tests/sim/gpusim-run -n "$ranks" $opts "tests/apps/$binary" $args) > "$tmp/$name.log" 2>&1 || true
  rm -f "$tmp/$name.db"
  "$b/gputrace" merge "$tmp/$name.db" "$tmp/$name" > /dev/null
  # what names this machine or this checkout (the simulated hosts,
  # GPUSIM_HOSTNAME, stay: they are what the run is about)
  sqlite3 "$tmp/$name.db" "
    update run set id = 'host:1';
    update process set run_id = 'host:1', boot_id = NULL;
    update process set host = 'host' where host = '$(hostname)' or host not like 'simhost-%';
    update module set path = name;"
  sqlite3 "$tmp/$name.db" .dump > "$out/input.sql"
  if grep -q "$top\|$b" "$out/input.sql"; then
    echo "record.sh: $name: a path of this checkout is left in input.sql" >&2
    exit 1
  fi
  printf 'workload=%s\nbinary=%s\nranks=%s\nsteps=%s\nenv=%s\noptions=%s\nargs=%s\n' \
    "$workload" "$binary" "$ranks" "$steps" "${envs# }" "${opts# }" "$args" > "$out/recording"
  echo "sim-$name: $(wc -c < "$out/input.sql") bytes"
}

echo "$workloads" | while read -r name rest; do
  [ -n "$name" ] || continue
  if [ $# -gt 0 ]; then
    case " $* " in *" $name "*) ;; *) continue ;; esac
  fi
  # shellcheck disable=SC2086
  record "$name" $rest
done
