#!/usr/bin/env bash
# tests/gpu/build_cu.sh DIR: builds the real-GPU workloads into DIR with the
# toolkit's nvcc: tests/gpu/workload.cu (shared and static cudart), the
# simulator's .cu workloads unchanged (cu_scalar_read, the cu_train steps)
# and the tracer's micro-benchmarks.  Run by tests/gpu/run.sh on a GPU host
# that has nvcc and NCCL's header, or ahead by tests/gpu/pack.sh where they
# are not.  Code for Hopper (sm_90) and PTX, so the driver compiles nothing
# on an H100/H200 and still runs it on another GPU.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=$1
mkdir -p "$dir"
cuda=${CUDA_HOME:-/usr/local/cuda}
PY=${PYTHON:-python3}
arch="-gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90"
# NCCL's header and library: the toolkit's, else the Python wheel's
inc="" libs="-lnccl"
if [ ! -f "$cuda/include/nccl.h" ]; then
  nccl=$($PY -c "import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))" 2>/dev/null)
  inc="-I$nccl/include" libs="-L$nccl/lib -l:libnccl.so.2"
fi
nv() { echo "  nvcc -o $dir/$1"; out=$1; shift; "$cuda/bin/nvcc" -O2 -g $arch -o "$dir/$out" "$@" || echo "  [FAIL] nvcc $out"; }
nv workload_shared -cudart shared $inc "$top/tests/gpu/workload.cu" $libs
nv workload_static $inc "$top/tests/gpu/workload.cu" $libs
nv cu_shared -cudart shared -I"$top" "$top/tests/apps/cu_scalar_read.cu"
nv cu_static -I"$top" "$top/tests/apps/cu_scalar_read.cu"
for w in cu_overlapped cu_allreduce_compute_stream; do
  nv $w -cudart shared -I"$top" $inc "$top/tests/apps/$w.cu" "$top/tests/apps/cu_train.cu" $libs
done
nv stall -cudart shared "$top/tests/gpu/stall.cu"
cc -O2 -I"$cuda/include" -o "$dir/nvtx_cost" "$top/bench/nvtx_cost.c" -ldl || echo "  [FAIL] cc nvtx_cost"
