"""py_train.py: a training loop written in Python on a framework
(tests/apps/pylib/site-packages/faketorch.py, driving the simulator through
ctypes), with four problems planted at lines of this file: the loss read
back every step (.item()), a device-wide synchronize to read metrics that
sat on one stream, the gradient all-reduce on the compute stream, and the
batch uploaded from pageable memory (.to('cuda') of an unpinned tensor).

Run as 4 ranks: gpusim-run -n 4 python3 tests/apps/py_train.py
(GPUSIM_LIB and PY_KERNELS_LIB name the simulator and the kernels).
What a correct report finds here; tests/e2e/report_workloads.py reads these
lines (as in the C workloads; callsite=@MARK is FILE:LINE of the line that
ends with the comment "# MARK"):
expect: sync.scalar_read ranks=0,1,2,3 callsite=@SCALAR_READ
expect: sync.device_wide ranks=0,1,2,3 callsite=@DEVICE_SYNC
expect: comm.same_stream ranks=0,1,2,3 callsite=@ALLREDUCE
expect: copy.pageable ranks=0,1,2,3 callsite=@TO_DEVICE
allow: comm.exposed gpu.idle sync.no_consumer comm.straggler (timing on 2 simulated cores, as for the C workloads)
allow: copy.serialized (the upload is on the compute stream too; its time is charged to copy.pageable)
"""
import ctypes, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "pylib", "site-packages"))
import faketorch as ft

STEPS = int(os.environ.get("APP_STEPS", "10"))
GRAD_ELEMS = 64 * 1024


def log_loss(loss_dev, loss_host, compute):
    return ft.item(loss_dev, loss_host, compute)  # SCALAR_READ


def train_step(step, comm, compute, copy, grad, loss_dev, loss_host, metrics_dev, metrics_host, prefetch_dev,
               prefetch_host, batch_dev, batch_host):
    ft.to_device(batch_dev, batch_host, len(batch_host), compute)  # TO_DEVICE
    ft.busy(compute, 1500)  # forward
    ft.busy(compute, 1500)  # backward
    ft.all_reduce(grad, GRAD_ELEMS, comm, compute)  # ALLREDUCE
    ft.busy(compute, 100)  # optimizer
    loss = log_loss(loss_dev, loss_host, compute)
    ft.copy_async(prefetch_dev, prefetch_host, 8 << 20, 1, copy)
    ft.copy_async(metrics_host, metrics_dev, 64 << 10, 2, compute)
    ft.synchronize()  # DEVICE_SYNC
    return loss


def main():
    ft.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    comm = ft.init_process_group()
    compute, copy = ft.stream(), ft.stream()
    grad, loss_dev = ft.malloc(GRAD_ELEMS * 4), ft.malloc(4)
    metrics_dev, prefetch_dev = ft.malloc(64 << 10), ft.malloc(8 << 20)
    loss_host, metrics_host, prefetch_host = ft.malloc_host(4), ft.malloc_host(64 << 10), ft.malloc_host(8 << 20)
    batch_dev, batch_host = ft.malloc(1 << 20), ctypes.create_string_buffer(1 << 20)  # not pinned
    total = 0.0
    for step in range(STEPS):
        total += train_step(step, comm, compute, copy, grad, loss_dev, loss_host, metrics_dev, metrics_host,
                            prefetch_dev, prefetch_host, batch_dev, batch_host)
    ft.destroy_process_group(comm)
    print(f"rank {os.environ.get('RANK', '0')}: {STEPS} steps, loss sum {total:.1f}")


if __name__ == "__main__":
    main()
