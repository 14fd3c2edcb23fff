"""py_nccl.py: a Python program that calls NCCL only through ctypes, as
vLLM's pynccl does: the simulator (GPUSIM_LIB) opened with ctypes.CDLL's
default mode (RTLD_LOCAL: nothing of it in the global scope), every
function called through the handle.  Its all-reduces run on a
communicator split from the world one (as a process group made with
ncclCommSplit is); rank 2 arrives 15 ms late to each.

Run as 4 ranks: GPUSIM_LIB=.../libgpusim.so gpusim-run -n 4 python3 tests/apps/py_nccl.py
What a correct report finds here; tests/e2e/report_workloads.py reads these
lines (as in the C workloads):
expect: comm.straggler ranks=2 cost_ms=20..5000
allow: comm.exposed gpu.idle (nothing overlaps the all-reduces) sync.no_consumer sync.redundant (the stream sync after each one reads nothing back)
"""
import ctypes, os, sys, time

STEPS, ELEMS = 12, 64 * 1024


class UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_byte * 128)]


def main():
    lib = ctypes.CDLL(os.environ["GPUSIM_LIB"])  # RTLD_LOCAL, as pynccl opens libnccl
    rank, world = int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))

    def check(rc, what):
        if rc != 0:
            sys.exit(f"{what}: {rc}")

    lib.ncclCommInitRank.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, UniqueId, ctypes.c_int]
    lib.ncclCommSplit.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p),
                                  ctypes.c_void_p]
    lib.ncclAllReduce.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                                  ctypes.c_void_p, ctypes.c_void_p]
    lib.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
    lib.ncclCommDestroy.argtypes = [ctypes.c_void_p]
    check(lib.cudaSetDevice(rank), "cudaSetDevice")
    uid = UniqueId()
    check(lib.ncclGetUniqueId(ctypes.byref(uid)), "ncclGetUniqueId")
    world_comm, comm = ctypes.c_void_p(), ctypes.c_void_p()
    check(lib.ncclCommInitRank(ctypes.byref(world_comm), world, uid, rank), "ncclCommInitRank")
    check(lib.ncclCommSplit(world_comm, 0, rank, ctypes.byref(comm), None), "ncclCommSplit")
    stream = ctypes.c_void_p()
    check(lib.cudaStreamCreateWithFlags(ctypes.byref(stream), 1), "cudaStreamCreateWithFlags")
    buf = ctypes.c_void_p()
    check(lib.cudaMalloc(ctypes.byref(buf), ctypes.c_size_t(ELEMS * 4)), "cudaMalloc")
    for _ in range(STEPS):
        if rank == 2:
            end = time.monotonic() + 0.015
            while time.monotonic() < end:  # a slow data loader on this rank
                pass
        check(lib.ncclAllReduce(buf, buf, ELEMS, 7, 0, comm, stream), "ncclAllReduce")  # float32, sum
        check(lib.cudaStreamSynchronize(stream), "cudaStreamSynchronize")
    check(lib.ncclCommDestroy(comm), "ncclCommDestroy")
    check(lib.ncclCommDestroy(world_comm), "ncclCommDestroy")
    print(f"rank {rank}: {STEPS} steps")


if __name__ == "__main__":
    main()
