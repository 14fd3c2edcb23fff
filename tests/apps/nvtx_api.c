/* nvtx_api.c: every kind of NVTX call the tracer records, made through the
 * toolkit's header-only nvtx3 with no GPU: NVTX comes before the first CUDA
 * call; push/pop (ASCII, wide, with attributes: category, payload), nested;
 * a start/end range ended on another thread; marks; a domain with a
 * registered string; category and thread names; and a range left open when
 * the program exits.  tests/e2e/tracer_nvtx.sh checks the rows.
 */
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
#include <wchar.h>

static void *end_elsewhere(void *arg)
{
    nvtxRangeEnd(*(nvtxRangeId_t *)arg);
    return NULL;
}

int main(void)
{
    nvtxRangePushA("setup"); /* before any CUDA call */
    cudaStream_t s;
    if (cudaSetDevice(0) != cudaSuccess || cudaStreamCreate(&s) != cudaSuccess)
        return 1;
    nvtxRangePop();

    nvtxNameCategoryA(7, "io");
    nvtxNameOsThreadA(0, "main");
    nvtxEventAttributes_t a = { 0 };
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.category = 7;
    a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    a.payload.llValue = -42;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "load";
    int outer = nvtxRangePushEx(&a);
    int inner = nvtxRangePushW(L"d\u00e9code");
    int tracked = outer >= 0; /* without a tool, NVTX returns a negative "not tracked" */
    if (tracked && (outer != 0 || inner != 1))
        return 2;
    cudaStreamSynchronize(s);
    nvtxMarkA("checkpoint");
    nvtxRangePop();
    nvtxRangePop();
    if (tracked && nvtxRangePop() >= 0) /* nothing open: negative */
        return 3;

    nvtxDomainHandle_t d = nvtxDomainCreateA("trainer");
    nvtxStringHandle_t opt = nvtxDomainRegisterStringA(d, "optimizer.step");
    nvtxEventAttributes_t r = { 0 };
    r.version = NVTX_VERSION;
    r.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    r.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    r.message.registered = opt;
    r.payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
    r.payload.dValue = 0.5;
    nvtxDomainRangePushEx(d, &r);
    cudaStreamSynchronize(s);
    nvtxDomainRangePop(d);

    nvtxRangeId_t id = nvtxRangeStartA("prefetch");
    pthread_t t;
    pthread_create(&t, NULL, end_elsewhere, &id);
    pthread_join(t, NULL);

    nvtxRangePushA("shutdown"); /* still open at exit */
    cudaStreamDestroy(s);
    printf("nvtx_api done\n");
    return 0;
}
