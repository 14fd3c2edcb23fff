#!/usr/bin/env bash
# tests/gpu/run.sh: the real-GPU checks (one GPU, one rank per communicator).
# Expects gputrace already built in build/ (scripts/build.sh, or carried from
# a machine with the build dependencies).  Writes logs and databases to
# $OUT (default tests/gpu/out).  Steps: (1) CUDA C workload traced (1b: with
# every record in bulk blocks, read the same as rows; 1c: the simulator's .cu
# workload on the real runtime, shared and static, preloaded, injected and
# under gputrace record),
# (2) PyTorch script traced, (3) the workload with static cudart,
# (4) overhead: traced vs untraced vs torch.profiler, side by side,
# (5) the tracer's per-call and NVTX-pair costs on this host (bench/),
# (6) tests/e2e/tracer_real_toolkit.sh, where the calls now succeed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$top/tests/gpu/out}
mkdir -p "$OUT"
export OUT
lib=$top/build/.libs/libgputrace.so
gt=$top/build/gputrace
cuda=${CUDA_HOME:-/usr/local/cuda}
PY=${PYTHON:-python3}
log() { echo "### $*"; }
# record NAME command...: gputrace record into the run directory $OUT/NAME.run
# (a file per process), merged into $OUT/NAME.db for the SQL checks below
record() {
  name=$1; shift
  "$gt" record -f -o "$OUT/$name.run" -- "$@"; echo "exit $?"
  rm -f "$OUT/$name.db"; "$gt" merge "$OUT/$name.db" "$OUT/$name.run"
}
{
log "environment"; date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
"$cuda/bin/nvcc" --version | tail -2
$PY -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'nccl', torch.cuda.nccl.version())" 2>&1
ls -la "$lib" "$gt"; ldd "$lib" | grep -i sqlite

log "build the CUDA C workload (shared and static cudart)"
inc=""; libs=""
nccl_h=$($PY -c "import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))" 2>/dev/null || true)
[ -f "$cuda/include/nccl.h" ] || { inc="-I$nccl_h/include"; libs="-L$nccl_h/lib -Wl,-rpath,$nccl_h/lib"; }
[ -e "$cuda/lib64/libnccl.so" ] || [ -n "$libs" ] || libs="-L$nccl_h/lib -Wl,-rpath,$nccl_h/lib"
[ -e "$cuda/lib64/libnccl.so" ] || ls "$nccl_h/lib" 2>&1
"$cuda/bin/nvcc" -O2 -g -cudart shared $inc -o "$OUT/workload_shared" "$top/tests/gpu/workload.cu" $libs -lnccl 2>&1 || \
  "$cuda/bin/nvcc" -O2 -g -cudart shared $inc -o "$OUT/workload_shared" "$top/tests/gpu/workload.cu" $libs -l:libnccl.so.2 2>&1
"$cuda/bin/nvcc" -O2 -g $inc -o "$OUT/workload_static" "$top/tests/gpu/workload.cu" $libs -lnccl 2>&1 || \
  "$cuda/bin/nvcc" -O2 -g $inc -o "$OUT/workload_static" "$top/tests/gpu/workload.cu" $libs -l:libnccl.so.2 2>&1

log "1. CUDA C workload under gputrace record"
record cuda "$OUT/workload_shared" 20
"$gt" expand "$OUT/cuda.db" # what a busy writer stored in bulk, as rows for the SQL below
$PY "$top/tests/gpu/check_db.py" "$OUT/cuda.db" "CUDA C workload (shared cudart)"; echo "check exit $?"

log "1c. the simulator's .cu workload, unchanged, on the real runtime: shared and static, three ways each"
"$cuda/bin/nvcc" -O2 -g -cudart shared -I"$top" -o "$OUT/cu_shared" "$top/tests/apps/cu_scalar_read.cu" 2>&1
"$cuda/bin/nvcc" -O2 -g -I"$top" -o "$OUT/cu_static" "$top/tests/apps/cu_scalar_read.cu" 2>&1
for build in shared static; do
  for way in preload inject record; do
    db=$OUT/cu_${build}_$way.db; rm -rf "$db"
    case $way in
      preload) GPUTRACE_ONE_FILE=1 GPUTRACE_OUTPUT=$db LD_PRELOAD=$lib "$OUT/cu_$build" ;;
      inject) GPUTRACE_ONE_FILE=1 GPUTRACE_OUTPUT=$db CUDA_INJECTION64_PATH=$lib "$OUT/cu_$build" ;;
      record) "$gt" record --one-file -o "$db" -- "$OUT/cu_$build" ;;
    esac
    echo "  $build/$way: exit $?"
    "$top/build/gputrace-report" --format json "$db" > "$db.json" 2> "$db.err"
    $PY - "$db.json" "$build/$way" "$db.err" <<'PY'
import json, re, sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError:
    print(f"  [FAIL] {sys.argv[2]}: no report: {open(sys.argv[3]).read().strip()}")
    sys.exit(0)
fs = {f["kind"]: f for f in d["findings"]}
want = {"sync.scalar_read": "cu_scalar_read.cu:", "sync.no_consumer": "cu_scalar_read.cu:"}
for k, site in want.items():
    f = fs.get(k)
    ok = f and f["count"] >= 15 and site in f["callsite"]
    print(f"  [{'ok' if ok else 'FAIL'}] {sys.argv[2]}: {k} at the .cu line" + (f" (x{f['count']} at {f['callsite']})" if f else " (missing)"))
r = d["ranks"][0] if d["ranks"] else {}
print(f"  {sys.argv[2]}: api_calls {r.get('api_calls')}, cupti_only_calls {r.get('cupti_only_calls')}, unscoped_syncs {r.get('unscoped_syncs')}, cupti {r.get('cupti')}")
PY
  done
done
# preloading alone cannot see the static build: expected to find nothing there
echo "  (static/preload is expected to find no sync: no symbol to interpose, no injection)"

log "1d. the .cu training step (cu_train.cu, NCCL, one rank), overlapped and with the all-reduce on the compute stream"
for w in cu_overlapped cu_allreduce_compute_stream; do
  "$cuda/bin/nvcc" -O2 -g -cudart shared -I"$top" $inc -o "$OUT/$w" "$top/tests/apps/$w.cu" "$top/tests/apps/cu_train.cu" $libs -lnccl 2>&1 ||
    "$cuda/bin/nvcc" -O2 -g -cudart shared -I"$top" $inc -o "$OUT/$w" "$top/tests/apps/$w.cu" "$top/tests/apps/cu_train.cu" $libs -l:libnccl.so.2 2>&1
  rm -rf "$OUT/$w.db"
  RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 "$gt" record --one-file -o "$OUT/$w.db" -- "$OUT/$w"; echo "  $w: exit $?"
  "$top/build/gputrace-report" --format json "$OUT/$w.db" > "$OUT/$w.json" 2> "$OUT/$w.err"
  $PY - "$OUT/$w.json" "$w" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError:
    print(f"  [FAIL] {sys.argv[2]}: no report"); sys.exit(0)
kinds = sorted({f["kind"] for f in d["findings"]})
print(f"  {sys.argv[2]}: findings {kinds}; kernels {[k['name'] for k in d['kernels'][:8]]}")
if sys.argv[2] == "cu_allreduce_compute_stream":
    print(f"  [{'ok' if 'comm.same_stream' in kinds else 'FAIL'}] comm.same_stream found")
else:
    print(f"  [{'ok' if not [k for k in kinds if k.startswith('sync.')] else 'FAIL'}] no sync finding on the overlapped step")
PY
done

log "1b. the same, every record stored in bulk blocks (real CUPTI records through the packed layouts)"
GPUTRACE_BULK_AFTER=0 record bulk "$OUT/workload_shared" 20
sqlite3 "$OUT/bulk.db" "select 'blocks: calls ' || (select coalesce(sum(n), 0) from api_call_block) || ', API records '
  || (select coalesce(sum(n), 0) from cupti_api_block) || ', GPU operations ' || (select coalesce(sum(n), 0) from gpu_op_block)" 2>&1
"$top/build/gputrace-report" --format json --chrome-trace "$OUT/bulk1.trace" "$OUT/bulk.db" > "$OUT/bulk1.json"
"$gt" expand "$OUT/bulk.db"
"$top/build/gputrace-report" --format json --chrome-trace "$OUT/bulk2.trace" "$OUT/bulk.db" > "$OUT/bulk2.json"
cmp -s "$OUT/bulk1.json" "$OUT/bulk2.json" && cmp -s "$OUT/bulk1.trace" "$OUT/bulk2.trace" &&
  echo "  [ok] report and Chrome trace the same from blocks as from rows" ||
  echo "  [FAIL] report or Chrome trace differ between blocks and rows"

log "2. PyTorch script under gputrace record"
record torch $PY "$top/tests/gpu/train.py"
"$gt" expand "$OUT/torch.db"
$PY "$top/tests/gpu/check_db.py" "$OUT/torch.db" "PyTorch train.py"; echo "check exit $?"
# Python call sites and NVTX ranges on the real stack: the report must point
# at train.py's lines (not libtorch) and name the train_step range
"$top/build/gputrace-report" --format json --kineto "$OUT/kineto" "$OUT/torch.db" > "$OUT/torch.json"; echo "report exit $?"
$PY - "$OUT/torch.json" "$OUT/torch.db" <<'PY'
import json, sqlite3, sys
d = json.load(open(sys.argv[1]))
c = sqlite3.connect(sys.argv[2])
print("  python_status, nvtx_status:", c.execute("select python_status, nvtx_status from process").fetchall())
print("  nvtx ranges:", c.execute("select count(*) from nvtx_range").fetchone()[0])
for f in d["findings"]:
    print(f"  {f['kind']:18} x{f['count']:<4} at {f['callsite']}  in {f.get('range', '-')}")
sites = [f["callsite"] for f in d["findings"] if f["kind"].startswith("sync.")]
ok = sites and all("train.py:" in s for s in sites)
print("  [%s] sync findings name train.py lines" % ("ok" if ok else "FAIL"))
ok = any(f.get("range") == "train_step" for f in d["findings"])
print("  [%s] findings placed inside the train_step NVTX range" % ("ok" if ok else "FAIL"))
PY

log "3. static cudart"
record static "$OUT/workload_static" 20
$PY "$top/tests/gpu/check_db.py" "$OUT/static.db" "CUDA C workload (static cudart)"; echo "check exit $?"

log "4. overhead (wall seconds, side by side, 3 rounds)"
for r in 1 2 3; do
  t0=$(date +%s.%N); "$OUT/workload_shared" 40 >/dev/null; t1=$(date +%s.%N)
  LD_PRELOAD=$lib GPUTRACE_OUTPUT=$OUT/ovh.db GPUTRACE_QUIET=1 "$OUT/workload_shared" 40 >/dev/null; t2=$(date +%s.%N)
  echo "round $r cuda-c: untraced $(awk "BEGIN{print $t1 - $t0}") traced $(awk "BEGIN{print $t2 - $t1}")"
  rm -rf "$OUT"/ovh.db*
  a=$(STEPS=60 $PY "$top/tests/gpu/train.py" 2>/dev/null | tail -1)
  b=$(STEPS=60 LD_PRELOAD=$lib GPUTRACE_OUTPUT=$OUT/ovh.db GPUTRACE_QUIET=1 $PY "$top/tests/gpu/train.py" 2>/dev/null | tail -1)
  c=$(STEPS=60 $PY "$top/tests/gpu/train.py" --profile 2>/dev/null | tail -1)
  echo "round $r torch: untraced [$a] gputrace [$b] torch.profiler [$c]"
  rm -rf "$OUT"/ovh.db*
done

log "5. tracer micro-costs on this host (the 50 ns target; the CI VM's clock reads alone take 40-45 ns)"
sim=$top/build/tests/sim/.libs
if [ -e "$sim/libgpusim.so" ]; then
  cc -O2 -I"$cuda/include" -o "$OUT/wrap_cost" "$top/bench/wrap_cost.c" "$sim/libgpusim.so" -Wl,-rpath,"$sim" -ldl &&
  cc -O2 -I"$cuda/include" -o "$OUT/nvtx_cost" "$top/bench/nvtx_cost.c" -ldl &&
  for r in 1 2 3; do
    echo "round $r wrapped call (wrapper direct floor, ns): $(GPUTRACE_CUPTI=0 GPUTRACE_QUIET=1 GPUTRACE_CALLSTACKS=0 \
      GPUTRACE_OUTPUT=$OUT/wc.db LD_PRELOAD=$lib "$OUT/wrap_cost")"
    echo "round $r NVTX pair (traced untraced, ns): $(GPUTRACE_CUPTI=0 GPUTRACE_QUIET=1 GPUTRACE_OUTPUT=$OUT/nc.db \
      LD_PRELOAD=$lib "$OUT/nvtx_cost")"
    rm -rf "$OUT"/wc.db* "$OUT"/nc.db*
  done
else
  echo "no simulator library in build/ (built by make check): skipped"
fi

log "6. the real-toolkit test with a GPU: results and exit status the same traced, every call recorded"
if [ -x "$top/build/tests/apps/real_toolkit" ]; then
  top_builddir=$top/build top_srcdir=$top sh "$top/tests/e2e/tracer_real_toolkit.sh" 2>&1 | tail -12
else
  echo "build/tests/apps/real_toolkit not built (configure found no libcudart/libnccl in the toolkit): skipped"
fi
} 2>&1 | tee "$OUT/run.log"
