/* nccl_surface.c: the NCCL 2.28 entry points beyond communicators and
 * operations, on a single-process communicator of the simulator: memory
 * (ncclMemAlloc/Free), buffer and window registration, a user reduction
 * operator, and a group ended by ncclGroupSimulateEnd (which launches
 * nothing) followed by an ungrouped all-reduce; ncclCommFinalize and
 * ncclCommRevoke before the communicator is destroyed.  Each call prints
 * "API RESULT", so that tests/e2e/nccl_comms.sh can compare the records
 * with what the program saw; two calls fail on purpose (destroying a
 * built-in operator, revoking with flags), to see their errors pass through.
 */
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <stdio.h>

static int show(const char *api, ncclResult_t rc)
{
    printf("%s %d\n", api, (int)rc);
    return (int)rc;
}

int main(void)
{
    ncclComm_t comm;
    int dev0 = 0, bad = 0;
    cudaStream_t s;
    if (cudaSetDevice(0) != cudaSuccess || cudaStreamCreate(&s) != cudaSuccess)
        return 1;
    bad |= show("ncclCommInitAll", ncclCommInitAll(&comm, 1, &dev0));
    void *buf = NULL, *reg = NULL;
    ncclWindow_t win = NULL;
    ncclRedOp_t op;
    float scale = 0.5f;
    bad |= show("ncclMemAlloc", ncclMemAlloc(&buf, 1 << 20));
    bad |= show("ncclCommRegister", ncclCommRegister(comm, buf, 1 << 20, &reg));
    bad |= show("ncclCommWindowRegister", ncclCommWindowRegister(comm, buf, 1 << 20, &win, NCCL_WIN_DEFAULT));
    bad |= show("ncclRedOpCreatePreMulSum", ncclRedOpCreatePreMulSum(&op, &scale, ncclFloat32, ncclScalarHostImmediate, comm));
    bad |= show("ncclRedOpDestroy", ncclRedOpDestroy(op, comm));
    if (show("ncclRedOpDestroy", ncclRedOpDestroy(ncclSum, comm)) != ncclInvalidArgument) /* built in: refused */
        bad = 1;
    /* what would this group cost?  Simulated: nothing runs */
    ncclSimInfo_t sim = NCCL_SIM_INFO_INITIALIZER;
    bad |= show("ncclGroupStart", ncclGroupStart());
    bad |= show("ncclAllReduce", ncclAllReduce(buf, buf, 1024, ncclFloat32, ncclSum, comm, s));
    bad |= show("ncclGroupSimulateEnd", ncclGroupSimulateEnd(&sim));
    /* ungrouped again: it runs at once */
    bad |= show("ncclAllReduce", ncclAllReduce(buf, buf, 1024, ncclFloat32, ncclSum, comm, s));
    if (cudaStreamSynchronize(s) != cudaSuccess)
        bad = 1;
    bad |= show("ncclCommWindowDeregister", ncclCommWindowDeregister(comm, win));
    bad |= show("ncclCommDeregister", ncclCommDeregister(comm, reg));
    bad |= show("ncclMemFree", ncclMemFree(buf));
    bad |= show("ncclCommFinalize", ncclCommFinalize(comm));
    if (show("ncclCommRevoke", ncclCommRevoke(comm, 99)) != ncclInvalidArgument) /* flags must be 0 */
        bad = 1;
    bad |= show("ncclCommDestroy", ncclCommDestroy(comm));
    fprintf(stderr, "estimated time of the simulated group: %.1f us\n", sim.estimatedTime);
    return bad ? 1 : 0;
}
