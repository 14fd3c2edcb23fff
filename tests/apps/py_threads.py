"""py_threads.py: the thread that calls CUDA waits in a stream sync with
the GIL released (through the extension module py_ext, built by
tests/e2e/tracer_python.sh, and through ctypes.CDLL), while other threads
run Python: they allocate, make and drop code objects (compile, exec:
addresses of freed code objects are reused), recurse, and collect garbage.
A second thread calls CUDA too, with the GIL held.  The tracer must take
each call's stack from its own thread: every call's innermost frame is the
marked line of its own function.

Run: python3 py_threads.py CALLS  (PY_EXT_DIR: where py_ext was built;
FAKETORCH_DIR as for the other Python workloads)."""
import gc, os, sys, threading

sys.path.insert(0, os.environ["FAKETORCH_DIR"])
sys.path.insert(0, os.environ["PY_EXT_DIR"])
import faketorch as ft
import py_ext

CALLS = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
done = threading.Event()


def churn(seed):
    """Python work in another thread: garbage, code objects made and freed,
    frames pushed and popped, collections."""
    n = 0
    while not done.is_set():
        junk = [{"k": i, "v": [i] * 8} for i in range(200)]
        ns = {}
        exec(compile(f"def f{n % 7}(x):\n    return [x] * {n % 5 + 1}\n", f"<churn {seed}>", "exec"), ns)
        ns[f"f{n % 7}"](junk)
        deep(20)
        if n % 50 == 0:
            gc.collect()
        n += 1


def deep(k):
    return deep(k - 1) if k else 0


def ext_wait(s):
    return py_ext.sync(s.value)  # EXT_SYNC


def ext_item(dev, host, s):
    return py_ext.item(dev.value, host.value, s.value)  # EXT_ITEM


def ctypes_wait(s):
    return ft.cuda_nogil.cudaStreamSynchronize(s)  # CTYPES_SYNC


def with_gil(s, n):
    for _ in range(n):
        ft.cuda_gil.cudaStreamSynchronize(s)  # GIL_SYNC


def main():
    # the churning threads hand the GIL back after 0.1 ms, not 5: the
    # calling thread gets it back from each call soon enough for
    # thousands of calls to take seconds
    sys.setswitchinterval(1e-4)
    ft.set_device(0)
    s, s2 = ft.stream(), ft.stream()
    dev, host = ft.malloc(4), ft.malloc_host(4)
    others = [threading.Thread(target=churn, args=(i,)) for i in range(3)]
    gil_thread = threading.Thread(target=with_gil, args=(s2, CALLS // 4))
    for t in others + [gil_thread]:
        t.start()
    for i in range(CALLS):
        ft.busy(s, 20)  # the sync then waits for the kernel, GIL released
        if i % 3 == 0:
            rc = ext_wait(s)
        elif i % 3 == 1:
            rc = ext_item(dev, host, s)
        else:
            rc = ctypes_wait(s)
        if rc:
            sys.exit(f"call {i}: {rc}")
    gil_thread.join()
    done.set()
    for t in others:
        t.join()
    print("py_threads done")


if __name__ == "__main__":
    main()
