/* cu_kernels_sim.c: the host bodies of the .cu workloads' kernels, for the
 * simulator (tests/sim/sim_nvcc_abi.c says the convention): each
 * gpusim_kernel_NAME runs on its simulated stream with the kernel's
 * arguments, and gpusim_kernel_NAME_args gives their sizes.  Linked only
 * into the simulator's builds of the .cu files. */
#include <errno.h>
#include <stddef.h>
#include <time.h>

/* The kernel's GPU time, slept through rather than spun: a GPU's time costs
 * the host no CPU, and four ranks spinning on two cores stretched every
 * kernel 1.5 times, so that the report checks took every run of these
 * workloads for a perturbed one (the simulator's modelled times sleep too). */
static void gpu_time_us(long us)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += us / 1000000;
    t.tv_nsec += (us % 1000000) * 1000;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
        ;
}

/* fwd_kernel(float *x, int n, float scale): 1 ms of compute */
const size_t gpusim_kernel_fwd_kernel_args[] = { sizeof(float *), sizeof(int), sizeof(float), 0 };
void gpusim_kernel_fwd_kernel(void **args)
{
    float *x = *(float **)args[0];
    int n = *(int *)args[1];
    float scale = *(float *)args[2];
    for (int i = 0; i < n; i++)
        x[i] = x[i] * scale + 1.0f;
    gpu_time_us(1000);
}

/* loss_kernel(const float *x, int n, float *loss) */
const size_t gpusim_kernel_loss_kernel_args[] = { sizeof(float *), sizeof(int), sizeof(float *), 0 };
void gpusim_kernel_loss_kernel(void **args)
{
    const float *x = *(const float **)args[0];
    int n = *(int *)args[1];
    float *loss = *(float **)args[2];
    *loss = x[0] + x[n - 1];
    gpu_time_us(50);
}

/* ema_kernel(float *avg, const float *x, int n): 5 ms, so that the host
 * reaches its cudaStreamSynchronize while it runs even when descheduled
 * for a few ms between the launch and the sync (a loaded machine: the
 * sync then rightly finds nothing pending) */
const size_t gpusim_kernel_ema_kernel_args[] = { sizeof(float *), sizeof(float *), sizeof(int), 0 };
void gpusim_kernel_ema_kernel(void **args)
{
    float *avg = *(float **)args[0];
    const float *x = *(const float **)args[1];
    int n = *(int *)args[2];
    for (int i = 0; i < n; i++)
        avg[i] = 0.9f * avg[i] + 0.1f * x[i];
    gpu_time_us(5000);
}

/* cu_train.cu's kernels: each takes the time it lasts here as its last
 * argument (us), and does its work on the host */
const size_t gpusim_kernel_train_fwd_args[] = { sizeof(float *), sizeof(float *), sizeof(int), sizeof(int), 0 };
void gpusim_kernel_train_fwd(void **args)
{
    gpu_time_us(*(int *)args[3]);
}

const size_t gpusim_kernel_train_loss_args[] = { sizeof(float *), sizeof(float *), sizeof(int), 0 };
void gpusim_kernel_train_loss(void **args)
{
    **(float **)args[1] = 1.0f;
    gpu_time_us(*(int *)args[2]);
}

const size_t gpusim_kernel_train_bwd_args[] = { sizeof(float *), sizeof(int), sizeof(float), sizeof(int), 0 };
void gpusim_kernel_train_bwd(void **args)
{
    float *grad = *(float **)args[0];
    int n = *(int *)args[1];
    float value = *(float *)args[2];
    for (int i = 0; i < n; i++)
        grad[i] = value;
    gpu_time_us(*(int *)args[3]);
}

const size_t gpusim_kernel_train_ema_args[] = { sizeof(float *), sizeof(float *), sizeof(int), sizeof(int), 0 };
void gpusim_kernel_train_ema(void **args)
{
    gpu_time_us(*(int *)args[3]);
}

/* checks that every gradient is the all-reduced sum of the ranks' values */
const size_t gpusim_kernel_train_update_args[] = { sizeof(float *), sizeof(int), sizeof(float), sizeof(int *),
                                                   sizeof(int), 0 };
void gpusim_kernel_train_update(void **args)
{
    const float *grad = *(const float **)args[0];
    int n = *(int *)args[1];
    float expected = *(float *)args[2];
    int *err = *(int **)args[3];
    for (int i = 0; i < n; i++)
        if (grad[i] != expected)
            *err = 1;
    gpu_time_us(*(int *)args[4]);
}
