/* nvtx_api.c: every kind of NVTX call the tracer records, made through the
 * toolkit's header-only nvtx3 with no GPU: NVTX comes before the first CUDA
 * call; push/pop (ASCII, wide, with attributes: category, payload), nested;
 * a start/end range ended on another thread; marks; a domain with a
 * registered string; category and thread names; a structured payload
 * (payload extension) whose schema gives no offsets and holds a pointer, and
 * one with an offset near 2^64, in
 * a domain named "NCCL" (read) and in another (not read); and a range left
 * open when the program exits; names formatted into one reused buffer;
 * a default-domain range inside one of NCCL's (levels are per domain).
 * tests/e2e/tracer_nvtx.sh checks the rows.
 */
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
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

    /* names formatted into one buffer in turn, as "step %d" is: each range
     * keeps the text it was pushed with (the tracer caches names by
     * address); longer, shorter, then different text at the same address */
    char buf[16];
    static const char *const steps[] = { "step 1", "step 12", "step", "step 3" };
    nvtxEventAttributes_t m = { 0 };
    m.version = NVTX_VERSION;
    m.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    m.messageType = NVTX_MESSAGE_TYPE_ASCII;
    m.message.ascii = buf;
    for (int i = 0; i < 4; i++) {
        snprintf(buf, sizeof buf, "%s", steps[i]);
        nvtxRangePushA(buf);
        nvtxRangePop();
        nvtxRangePushEx(&m);
        nvtxRangePop();
    }

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

    /* a schema packed by natural alignment (no offsets given): a at 0, b at
     * 4; the pointer after them is not read, so neither is c, whose place
     * follows from the pointer's size; d gives its offset and is read */
    struct params { uint8_t a; uint32_t b; const char *name; uint16_t c; int64_t d; };
    static const nvtxPayloadSchemaEntry_t fields[] = {
        { 0, NVTX_PAYLOAD_ENTRY_TYPE_UINT8, "a", NULL, 0, 0, NULL, NULL },
        { 0, NVTX_PAYLOAD_ENTRY_TYPE_UINT32, "b", NULL, 0, 0, NULL, NULL },
        { NVTX_PAYLOAD_ENTRY_FLAG_POINTER, NVTX_PAYLOAD_ENTRY_TYPE_CSTRING, "name", NULL, 0, 0, NULL, NULL },
        { 0, NVTX_PAYLOAD_ENTRY_TYPE_UINT16, "c", NULL, 0, 0, NULL, NULL },
        { 0, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "d", NULL, 0, offsetof(struct params, d), NULL, NULL },
    };
    nvtxDomainHandle_t nccl = nvtxDomainCreateA("NCCL");
    const nvtxPayloadSchemaAttr_t sa = {
        .fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE,
        .type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, .entries = fields, .numEntries = sizeof fields / sizeof *fields,
        .payloadStaticSize = sizeof(struct params) };
    uint64_t schema = nvtxPayloadSchemaRegister(nccl, &sa);
    struct params pv = { 7, 4096, "x", 3, -5 };
    nvtxPayloadData_t pd[] = { { schema, sizeof pv, &pv } };
    nvtxEventAttributes_t e = { 0 };
    e.version = NVTX_VERSION;
    e.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    e.messageType = NVTX_MESSAGE_TYPE_ASCII;
    e.message.ascii = "structured";
    e.payloadType = NVTX_PAYLOAD_TYPE_EXT;
    e.reserved0 = 1;
    e.payload.ullValue = (uint64_t)(uintptr_t)pd;
    nvtxDomainRangePushEx(nccl, &e);
    nvtxDomainRangePop(nccl);
    e.message.ascii = "structured elsewhere";
    nvtxDomainRangePushEx(d, &e);
    nvtxDomainRangePop(d);

    /* a schema whose second field claims an offset near 2^64 (a program's
     * bug): offset + size wraps to a small number; the field must be
     * skipped, not read from far outside the payload */
    static const nvtxPayloadSchemaEntry_t wild[] = {
        { 0, NVTX_PAYLOAD_ENTRY_TYPE_UINT8, "a", NULL, 0, 0, NULL, NULL },
        { 0, NVTX_PAYLOAD_ENTRY_TYPE_UINT64, "far", NULL, 0, UINT64_MAX - 3, NULL, NULL },
    };
    nvtxPayloadSchemaAttr_t wa = sa;
    wa.entries = wild;
    wa.numEntries = sizeof wild / sizeof *wild;
    pd[0].schemaId = nvtxPayloadSchemaRegister(nccl, &wa);
    e.message.ascii = "structured wild";
    nvtxDomainRangePushEx(nccl, &e);
    nvtxDomainRangePop(nccl);

    /* levels are per domain (NVTX keeps a stack per thread and domain): a
     * range of the default domain inside one of NCCL's is at level 0, as
     * train_step was inside the range NCCL 2.28 left open after
     * ncclCommInitRankConfig */
    e.payloadType = 0;
    e.message.ascii = "comm init";
    int n0 = nvtxDomainRangePushEx(nccl, &e);
    int lvl = nvtxRangePushA("under_comm");
    int popped = nvtxRangePop();
    nvtxDomainRangePop(nccl);
    if (tracked && (n0 != 0 || lvl != 0 || popped != 0))
        return 4;

    nvtxRangeId_t id = nvtxRangeStartA("prefetch");
    pthread_t t;
    pthread_create(&t, NULL, end_elsewhere, &id);
    pthread_join(t, NULL);

    nvtxRangePushA("shutdown"); /* still open at exit */
    cudaStreamDestroy(s);
    printf("nvtx_api done\n");
    return 0;
}
