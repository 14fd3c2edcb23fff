/* cu_real_launch.cu: a CUDA C++ program built by nvcc against the toolkit's
 * real runtime, twice: -cudart shared (its launch imports
 * __cudaLaunchKernel@libcudart.so.13) and nvcc's default static runtime
 * (no dynamic CUDA import at all), for tracer_real_toolkit.sh.  Without a
 * GPU every call fails: each result is printed, and errno, so that a traced
 * run can be compared with an untraced one; exits 3 so that the status is
 * seen to pass through. */
#include <cerrno>
#include <cstdio>

__global__ void scale(float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= a;
}

int main()
{
    cudaStream_t s = 0;
    float *d = 0;
    errno = 0;
    std::printf("cudaStreamCreate %d\n", (int)cudaStreamCreate(&s));
    std::printf("cudaMalloc %d\n", (int)cudaMalloc(&d, 1024));
    scale<<<4, 64, 0, s>>>(d, 2.0f, 256);
    std::printf("__cudaLaunchKernel %d\n", (int)cudaGetLastError());
    std::printf("cudaStreamSynchronize %d\n", (int)cudaStreamSynchronize(s));
    std::printf("errno %d\n", errno);
    return 3;
}
