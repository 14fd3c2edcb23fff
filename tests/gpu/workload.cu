// workload.cu: the real-GPU twin of the simulator workloads (tests/apps), one
// process, one rank.  Each step plants what the simulator workloads plant: a
// blocking scalar read (async 4-byte copy + cudaStreamSynchronize), a
// device-wide sync while a copy stream is busy, a pageable upload, and an
// NCCL all-reduce on the compute stream; then the well-overlapped twin
// (pinned upload on a copy stream, all-reduce on a comm stream ordered by
// events).  Exits non-zero if the all-reduced data is wrong.
#include <cuda_runtime.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)
#define NK(x) do { ncclResult_t r = (x); if (r != ncclSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r)); exit(1); } } while (0)

__global__ void busy_kernel(float *x, int n, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        for (int k = 0; k < iters; k++)
            v = v * 0.999f + 0.001f;
        x[i] = v;
    }
}

__global__ void loss_kernel(const float *x, float *loss) { *loss = x[0]; }

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    const int n = 1 << 22;          // 16 MiB of floats
    const size_t grad = 1 << 24;    // 64 MiB gradient bucket
    CK(cudaSetDevice(0));
    ncclComm_t comm;
    int dev = 0;
    NK(ncclCommInitAll(&comm, 1, &dev));
    cudaStream_t compute, comm_s, copy_s;
    CK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&comm_s, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&copy_s, cudaStreamNonBlocking));
    cudaEvent_t up, grads, reduced;
    CK(cudaEventCreateWithFlags(&up, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&grads, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&reduced, cudaEventDisableTiming));
    float *x, *g, *loss, *h_pinned, *h_loss;
    CK(cudaMalloc(&x, n * sizeof(float)));
    CK(cudaMalloc(&g, grad * sizeof(float)));
    CK(cudaMalloc(&loss, sizeof(float)));
    CK(cudaMallocHost(&h_pinned, n * sizeof(float)));
    CK(cudaMallocHost(&h_loss, sizeof(float)));
    std::vector<float> h_pageable(n, 1.0f);
    CK(cudaMemset(g, 0, grad * sizeof(float)));
    for (int s = 0; s < steps; s++) {
        // planted: pageable upload, all-reduce on the compute stream, scalar read, device-wide sync
        CK(cudaMemcpyAsync(x, h_pageable.data(), n * sizeof(float), cudaMemcpyHostToDevice, compute));
        busy_kernel<<<n / 256, 256, 0, compute>>>(x, n, 200);
        NK(ncclAllReduce(g, g, grad, ncclFloat32, ncclSum, comm, compute));
        loss_kernel<<<1, 1, 0, compute>>>(x, loss);
        CK(cudaMemcpyAsync(h_loss, loss, sizeof(float), cudaMemcpyDeviceToHost, compute));
        CK(cudaStreamSynchronize(compute));                       // loss.item()
        CK(cudaMemcpyAsync(x, h_pinned, n * sizeof(float), cudaMemcpyHostToDevice, copy_s));
        CK(cudaDeviceSynchronize());                              // waits for copy_s too
        // the overlapped twin
        CK(cudaMemcpyAsync(x, h_pinned, n * sizeof(float), cudaMemcpyHostToDevice, copy_s));
        CK(cudaEventRecord(up, copy_s));
        CK(cudaStreamWaitEvent(compute, up, 0));
        busy_kernel<<<n / 256, 256, 0, compute>>>(x, n, 200);
        CK(cudaEventRecord(grads, compute));
        CK(cudaStreamWaitEvent(comm_s, grads, 0));
        NK(ncclAllReduce(g, g, grad, ncclFloat32, ncclSum, comm, comm_s));
        busy_kernel<<<n / 256, 256, 0, compute>>>(x, n, 200);
        CK(cudaEventRecord(reduced, comm_s));
        CK(cudaStreamWaitEvent(compute, reduced, 0));
    }
    CK(cudaDeviceSynchronize());
    float check = -1;
    CK(cudaMemcpy(&check, g, sizeof check, cudaMemcpyDeviceToHost));
    printf("workload: %d steps, loss %f, grad[0] %f\n", steps, *h_loss, check);
    NK(ncclCommDestroy(comm));
    return check == 0.0f ? 0 : 1;
}
