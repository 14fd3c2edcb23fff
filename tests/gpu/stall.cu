// stall.cu: a GPU that stops answering for a while, for the monitor's hang
// forensics on a real GPU (tests/gpu/run.sh step 7b).  Some quick steps,
// then one kernel that spins for STALL_S seconds (default 6) on the GPU's
// own nanosecond timer while the host waits in cudaStreamSynchronize, then
// a few more steps.  Under `gputrace record --monitor` with GPUTRACE_HANG_S
// below STALL_S the wait must write a hang window naming that sync's line.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); return 1; } } while (0)

__device__ unsigned long long now_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void spin(unsigned long long ns, int *out)
{
    unsigned long long t0 = now_ns();
    while (now_ns() - t0 < ns)
        ;
    *out = 1;
}

int main()
{
    const char *s = getenv("STALL_S");
    double stall_s = s ? atof(s) : 6.0;
    int *d = nullptr, h = 0;
    cudaStream_t st;
    CK(cudaSetDevice(0));
    CK(cudaStreamCreate(&st));
    CK(cudaMalloc(&d, sizeof *d));
    for (int i = 0; i < 20; i++) {
        spin<<<1, 1, 0, st>>>(1000000ULL, d); // 1 ms steps
        CK(cudaStreamSynchronize(st));
    }
    spin<<<1, 1, 0, st>>>((unsigned long long)(stall_s * 1e9), d);
    CK(cudaStreamSynchronize(st)); // the stalled wait: the hang window names this line
    for (int i = 0; i < 5; i++) {
        spin<<<1, 1, 0, st>>>(1000000ULL, d);
        CK(cudaStreamSynchronize(st));
    }
    CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    printf("stall: done (%d)\n", h);
    return h == 1 ? 0 : 1;
}
