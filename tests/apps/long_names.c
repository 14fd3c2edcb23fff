/* long_names.c: names longer than tracers usually keep: NVTX ranges named
 * with 300 bytes (ASCII, and wide with non-ASCII characters) and with 5000
 * (past what the tracer keeps: cut between characters, marked), and a
 * kernel whose name is 647 bytes, as C++ template kernels' are.
 * tests/e2e/report_hostile.sh checks what is stored and reported. */
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

/* an identifier of 640 letters, pasted together by the preprocessor */
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define A8 aaaaaaaa
#define A16 XCAT(A8, A8)
#define A32 XCAT(A16, A16)
#define A64 XCAT(A32, A32)
#define A128 XCAT(A64, A64)
#define A256 XCAT(A128, A128)
#define A512 XCAT(A256, A256)
#define LONG_KERNEL XCAT(kernel_, XCAT(A512, A128))

void LONG_KERNEL(void **args); /* exported (-rdynamic): the simulator names kernels by symbol */
void LONG_KERNEL(void **args)
{
    (void)args;
}

static char ascii[5001];
static wchar_t wide[5001];

static void range_a(size_t n, char c)
{
    memset(ascii, c, n);
    ascii[n] = 0;
    nvtxRangePushA(ascii);
    nvtxRangePop();
}

static void range_w(size_t n)
{
    for (size_t i = 0; i < n; i++)
        wide[i] = i % 2 ? L'w' : L'\u00e9';
    wide[n] = 0;
    nvtxRangePushW(wide);
    nvtxRangePop();
}

int main(void)
{
    cudaStream_t s;
    if (cudaSetDevice(0) != cudaSuccess || cudaStreamCreate(&s) != cudaSuccess)
        return 1;
    range_a(300, 'n');
    range_a(5000, 'm');
    range_w(300);
    range_w(5000);
    void *argv_[1] = { NULL };
    if (cudaLaunchKernel((const void *)LONG_KERNEL, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, argv_, 0, s) != cudaSuccess ||
        cudaStreamSynchronize(s) != cudaSuccess)
        return 2;
    puts("long_names done");
    return 0;
}
