/* own_profiler.c: a program that starts a CUPTI client of its own after its
 * first CUDA calls, as one that runs torch.profiler does.  CUPTI has one
 * callback subscriber per process: traced (preloaded, and injected as
 * gputrace record does), the tracer must not hold it where its wrappers see
 * the calls (tracer_cuda13.sh).  Prints the result of cuptiSubscribe. */
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <stdio.h>

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
    (void)userdata; (void)domain; (void)cbid; (void)data;
}

int main(void)
{
    cudaStream_t s;
    printf("cudaStreamCreate %d\n", (int)cudaStreamCreate(&s));
    printf("cudaStreamSynchronize %d\n", (int)cudaStreamSynchronize(s));
    CUpti_SubscriberHandle sub;
    printf("cuptiSubscribe %d\n", (int)cuptiSubscribe(&sub, on_callback, NULL));
    return 0;
}
