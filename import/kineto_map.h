/* kineto_map.h: Kineto's names and strings as our schema's numbers
 * (copy and memory kinds, sync types, NCCL operations and data types), and
 * the pass that numbers collectives once a trace is read. */
#ifndef GPUTRACE_IMPORT_KINETO_MAP_H
#define GPUTRACE_IMPORT_KINETO_MAP_H

#include <stdint.h>

struct out_db;

/* The CUPTI callback id of a runtime (domain 1) or driver (2) API by name,
 * for traces whose events carry no cbid; -1 if not one the report reads. */
int kineto_cbid_of(const char *name, int domain);
/* "Memcpy DtoH (Device -> Pageable)": CUPTI's memcpy kind and memory kinds
 * (0 where the name does not say). */
void kineto_copy_kinds(const char *name, int *copy_kind, int *src_kind, int *dst_kind);
/* "Event Sync" 1, "Stream Wait Event" 2, "Stream Sync" 3, "Context Sync" 4, else 0 */
int kineto_sync_type(const char *kind);
/* The api id (format/api_ids.h) of a collective, from PyTorch's
 * "Collective name" or else the kernel's name. */
int kineto_coll_api(const char *collective_name, const char *kernel_name);
int kineto_coll_is_scatter(int api);
/* PyTorch's dtype name as ncclDataType_t (-1 unknown), and its size (1 if unknown) */
int kineto_dtype(const char *name);
int64_t kineto_dtype_size(int dtype);
/* ncclRedOp_t from the kernel's name (ncclKernel_AllReduce_RING_LL_Sum_float), -1 if none */
int kineto_redop(const char *kernel_name);
/* A 62-bit hash of a text: the comm_id of a process group. */
int64_t kineto_hash(const char *s);
/* The place of rank in "[0, 1, 2]", or rank itself if the list is absent
 * or does not hold it. */
int kineto_rank_in(const char *ranks, int rank);
/* Numbers the process's collectives that have seq -2 (no sequence number
 * in the source) per group, in the order their kernels ran (seq -3: those
 * matched by kernel order, as GT_SEQ_ORDER | k; seq -4, sends and
 * receives, per direction and peer, as GT_SEQ_P2P | k), and gives
 * each the host times of its NCCL call where the trace has one (temp
 * tables import_host_seq, by group and Seq, then import_host, by the
 * kernel's correlation), else of the call that launched its kernel. */
void kineto_number(struct out_db *o);
/* The process's collectives made of NCCL kernels without collective args
 * (seq -3) given the trace's rank and world size, or deleted (with their
 * ext_corr rows) when the trace names no rank or world size: without them
 * nothing matches them across ranks. */
void kineto_order_ranks(struct out_db *o, int rank, int world);

#endif
