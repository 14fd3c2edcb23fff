/* wrap_nccl_mem.c: NCCL's memory and reduction-operator entry points:
 * ncclMemAlloc/ncclMemFree, buffer registration (ncclCommRegister,
 * ncclCommDeregister), window registration (ncclCommWindowRegister,
 * ncclCommWindowDeregister: collective calls, which block until every
 * member has made them), and user reduction operators
 * (ncclRedOpCreatePreMulSum, ncclRedOpDestroy).  Each is recorded as a call
 * (result, bytes where there is a size); what they return passes through
 * untouched.  Signatures as NCCL 2.28's nccl.h declares them.
 */
#define _GNU_SOURCE
#include "libtrace/real.h"
#include "libtrace/trace.h"

#include <nccl.h>

ncclResult_t ncclMemAlloc(void **ptr, size_t size)
{
    ncclResult_t (*real)(void **, size_t) = REAL(ncclMemAlloc);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclMemAlloc))
        return real(ptr, size);
    c.r->bytes = size;
    ncclResult_t rc = real(ptr, size);
    gt_exit(&c, rc);
    return rc;
}

ncclResult_t ncclMemFree(void *ptr)
{
    ncclResult_t (*real)(void *) = REAL(ncclMemFree);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclMemFree))
        return real(ptr);
    ncclResult_t rc = real(ptr);
    gt_exit(&c, rc);
    return rc;
}

ncclResult_t ncclCommRegister(const ncclComm_t comm, void *buff, size_t size, void **handle)
{
    ncclResult_t (*real)(const ncclComm_t, void *, size_t, void **) = REAL(ncclCommRegister);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclCommRegister))
        return real(comm, buff, size, handle);
    c.r->bytes = size;
    ncclResult_t rc = real(comm, buff, size, handle);
    gt_exit(&c, rc);
    return rc;
}

ncclResult_t ncclCommDeregister(const ncclComm_t comm, void *handle)
{
    ncclResult_t (*real)(const ncclComm_t, void *) = REAL(ncclCommDeregister);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclCommDeregister))
        return real(comm, handle);
    ncclResult_t rc = real(comm, handle);
    gt_exit(&c, rc);
    return rc;
}

ncclResult_t ncclCommWindowRegister(ncclComm_t comm, void *buff, size_t size, ncclWindow_t *win, int winFlags)
{
    ncclResult_t (*real)(ncclComm_t, void *, size_t, ncclWindow_t *, int) = REAL(ncclCommWindowRegister);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclCommWindowRegister))
        return real(comm, buff, size, win, winFlags);
    c.r->bytes = size;
    ncclResult_t rc = real(comm, buff, size, win, winFlags);
    gt_exit(&c, rc);
    return rc;
}

ncclResult_t ncclCommWindowDeregister(ncclComm_t comm, ncclWindow_t win)
{
    ncclResult_t (*real)(ncclComm_t, ncclWindow_t) = REAL(ncclCommWindowDeregister);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclCommWindowDeregister))
        return real(comm, win);
    ncclResult_t rc = real(comm, win);
    gt_exit(&c, rc);
    return rc;
}

ncclResult_t ncclRedOpCreatePreMulSum(ncclRedOp_t *op, void *scalar, ncclDataType_t datatype,
                                      ncclScalarResidence_t residence, ncclComm_t comm)
{
    ncclResult_t (*real)(ncclRedOp_t *, void *, ncclDataType_t, ncclScalarResidence_t, ncclComm_t) =
        REAL(ncclRedOpCreatePreMulSum);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclRedOpCreatePreMulSum))
        return real(op, scalar, datatype, residence, comm);
    ncclResult_t rc = real(op, scalar, datatype, residence, comm);
    gt_exit(&c, rc);
    return rc;
}

ncclResult_t ncclRedOpDestroy(ncclRedOp_t op, ncclComm_t comm)
{
    ncclResult_t (*real)(ncclRedOp_t, ncclComm_t) = REAL(ncclRedOpDestroy);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclRedOpDestroy))
        return real(op, comm);
    ncclResult_t rc = real(op, comm);
    gt_exit(&c, rc);
    return rc;
}
