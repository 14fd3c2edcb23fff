"""py_cost.py: what capturing Python frames adds to a traced call that
captures a call stack (a zero-byte cudaMemsetAsync, which returns at once,
made through ctypes.PyDLL so the GIL is held, or with argument "nogil"
through ctypes.CDLL, which releases it around the call, as PyTorch's
bindings do).

Side by side in one process: batches of calls made 16 Python frames deep
alternate with batches made from the shallowest frame; the difference is
the cost of 15 frames (bench/run.sh scales it to 16).  Run with
GPUTRACE_PYSTACKS=0 the same difference is the method's own error.
Prints the two medians, ns per call: deep, shallow."""
import ctypes, os, sys, time

sys.path.insert(0, os.environ["FAKETORCH_DIR"])
import faketorch as ft

ft.set_device(0)
s = ft.stream()
memset = (ft.cuda_nogil if sys.argv[1:] == ["nogil"] else ft.cuda_gil).cudaMemsetAsync
memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p]
PER_BATCH, BATCHES = 2000, 61


def batch(depth):
    if depth > 1:
        return batch(depth - 1)
    t0 = time.perf_counter_ns()
    for _ in range(PER_BATCH):
        memset(None, 0, 0, s)
    return (time.perf_counter_ns() - t0) / PER_BATCH


def median(v):
    return sorted(v)[len(v) // 2]


# with <module>, batch(15) runs its loop 16 frames deep, batch(1) 2 deep
batch(15), batch(1)  # first calls: code objects seen, stacks interned
deep, shallow = [], []
for _ in range(BATCHES):
    deep.append(batch(15))
    shallow.append(batch(1))
    time.sleep(0.01)
print(f"{median(deep):.1f} {median(shallow):.1f}")
