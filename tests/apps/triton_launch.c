/* triton_launch.c: a launcher as Triton's is: it opens the driver library
 * itself (the simulator's, standing for libcuda.so.1, path in argv[1]),
 * RTLD_LOCAL, takes cuLaunchKernelEx from the handle with dlsym, and
 * launches with it; then takes cuLaunchKernel through cuGetProcAddress, as
 * libcudart and NCCL reach the driver, and launches once more.  For
 * tracer_loading.sh: the first launch is recorded by the wrapper our dlsym
 * hands out, the second only by CUPTI (the report makes it a call); both
 * kernels run.  Prints each result; exits 0. */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>

/* the kernel: a host function on the simulator (docs/simulator.md) */
void triton_kernel(void **args)
{
    int *x = *(int **)args[0];
    *x += 1;
}

int main(int argc, char **argv)
{
    void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!h) {
        printf("dlopen: %s\n", dlerror());
        return 1;
    }
    CUresult (*launch_ex)(const CUlaunchConfig *, CUfunction, void **, void **) =
        (CUresult (*)(const CUlaunchConfig *, CUfunction, void **, void **))dlsym(h, "cuLaunchKernelEx");
    CUresult (*sync)(CUstream) = (CUresult (*)(CUstream))dlsym(h, "cuStreamSynchronize");
    CUresult (*get_proc)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *) =
        (CUresult (*)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *))dlsym(h, "cuGetProcAddress_v2");
    if (!launch_ex || !sync || !get_proc) {
        printf("dlsym: %s\n", dlerror());
        return 1;
    }
    static int counter;
    int *p = &counter;
    void *params[] = { &p };
    CUlaunchConfig config = { .gridDimX = 1, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 32, .blockDimY = 1,
                              .blockDimZ = 1, .hStream = NULL };
    printf("cuLaunchKernelEx %d\n", (int)launch_ex(&config, (CUfunction)(void *)triton_kernel, params, NULL));
    CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                       void **, void **) = NULL;
    CUdriverProcAddressQueryResult status;
    printf("cuGetProcAddress %d\n", (int)get_proc("cuLaunchKernel", (void **)&launch, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
    if (launch)
        printf("cuLaunchKernel %d\n", (int)launch((CUfunction)(void *)triton_kernel, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL));
    printf("cuStreamSynchronize %d\n", (int)sync(NULL));
    printf("kernels ran %d\n", counter);
    return 0;
}
