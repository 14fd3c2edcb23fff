#!/usr/bin/env python3
"""gen_kineto.py OUT MIB [NCCL]: a synthetic PyTorch profiler (Kineto) trace of
about MIB mebibytes, shaped like a real one (tests/data/traces): per step of
work a CPU operator, the cudaLaunchKernel it makes, the kernel, their ac2g
flow pair; a copy and a stream sync now and then; nanosecond decimals after
baseTimeNanoseconds.  One kernel in four is an NCCL kernel without
collective args (numbered by kernel order on import: its costliest path),
or none with NCCL=0 (a compute kernel instead: the cost of the rest).
Prints the number of events.  Written in blocks: a 2 GiB file takes a
minute or so."""
import sys

out, mib = sys.argv[1], float(sys.argv[2])
nccl = len(sys.argv) < 4 or sys.argv[3] != "0"
target = int(mib * 2**20)
names = ["void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>(int, float*)",
         "ampere_sgemm_128x64_nn", "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(float)",
         "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"
         if nccl else "void at::native::reduce_kernel<512, 1>(at::native::ReduceOp<float>, float*)"]
head = ('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}],\n'
        '"distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},\n'
        '"baseTimeNanoseconds": 1700000000000000000, "traceEvents": [\n')
events = 0
with open(out, "w") as f:
    f.write(head)
    written, corr, t = len(head), 1, 1000000.0
    first = True
    while written < target:
        parts = []
        for _ in range(2000):
            k = names[corr % len(names)]
            ev = [
                '{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 100, "tid": 100, "ts": %.3f, "dur": 9.125,'
                ' "args": {"External id": %d, "Record function id": 0, "Ev Idx": %d}}' % (t, corr, corr),
                '{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": %.3f,'
                ' "dur": 4.250, "args": {"External id": %d, "cbid": 211, "correlation": %d}}' % (t + 1, corr, corr),
                '{"ph": "s", "id": %d, "pid": 100, "tid": 100, "ts": %.3f, "cat": "ac2g", "name": "ac2g"}' % (corr, t + 1),
                '{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 7, "ts": %.3f, "dur": 6.500, "args":'
                ' {"External id": %d, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": %d,'
                ' "registers per thread": 32, "shared memory": 0, "grid": [512, 1, 1], "block": [256, 1, 1]}}'
                % (k, t + 8, corr, corr),
                '{"ph": "f", "id": %d, "pid": 0, "tid": 7, "ts": %.3f, "cat": "ac2g", "name": "ac2g", "bp": "e"}'
                % (corr, t + 8),
            ]
            if corr % 50 == 0:
                ev.append('{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0,'
                          ' "tid": 7, "ts": %.3f, "dur": 2.0, "args": {"device": 0, "context": 1, "stream": 7,'
                          ' "correlation": %d, "bytes": 4}}' % (t + 15, corr + 1))
                ev.append('{"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": %.3f,'
                          ' "dur": 1.0, "args": {"cuda_sync_kind": "Stream Sync", "stream": 7, "correlation": %d}}'
                          % (t + 17, corr + 2))
                corr += 2
            events += len(ev)
            parts.append((",\n" if not first else "") + ",\n".join(ev))
            first = False
            corr += 1
            t += 20.0
        block = "".join(parts)
        f.write(block)
        written += len(block)
    f.write("\n]}\n")
print(events)
