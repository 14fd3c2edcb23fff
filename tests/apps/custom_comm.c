/* custom_comm.c: communication that is not NCCL's: each step runs a
 * compute kernel, then a custom all-reduce kernel named as vLLM's is
 * (cross_device_reduce_1stage, 2 ms), then an expert-parallel dispatch
 * kernel of the program's own library (my_a2a_dispatch, 1 ms), all on one
 * stream, 10 steps.  The report counts the first as communication by
 * default, the second only when --comm-kernels names it
 * (tests/e2e/nccl_comms.sh).  One process; no NCCL at all.
 */
#include <cuda_runtime_api.h>

#include <stdio.h>
#include <time.h>

#define STEPS 10

static void sleep_us(int us)
{
    struct timespec ts = { 0, (long)us * 1000 };
    nanosleep(&ts, NULL);
}

/* Kernels are exported host functions (the simulator's contract). */
void train_compute(void **args)
{
    (void)args;
    sleep_us(3000);
}

void cross_device_reduce_1stage(void **args)
{
    (void)args;
    sleep_us(2000);
}

void my_a2a_dispatch(void **args)
{
    (void)args;
    sleep_us(1000);
}

int main(void)
{
    cudaStream_t s;
    if (cudaSetDevice(0) || cudaStreamCreate(&s))
        return 1;
    void *none[1] = { NULL };
    for (int step = 0; step < STEPS; step++) {
        if (cudaLaunchKernel((const void *)train_compute, (dim3){ 1, 1, 1 }, (dim3){ 128, 1, 1 }, none, 0, s) ||
            cudaLaunchKernel((const void *)cross_device_reduce_1stage, (dim3){ 1, 1, 1 }, (dim3){ 128, 1, 1 }, none, 0, s) ||
            cudaLaunchKernel((const void *)my_a2a_dispatch, (dim3){ 1, 1, 1 }, (dim3){ 128, 1, 1 }, none, 0, s))
            return 1;
    }
    if (cudaStreamSynchronize(s))
        return 1;
    printf("custom_comm: %d steps\n", STEPS);
    return 0;
}
