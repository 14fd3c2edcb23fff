/* comm_kernels.h: which GPU kernels are communication.  NCCL's own
 * (names starting with "nccl": ncclKernel_*, ncclDevKernel_*, and any
 * kernel launched inside an NCCL call, known by its correlation id:
 * load_proc.c), and those of a list of name patterns for communication
 * libraries that are not NCCL (vLLM's custom all-reduce, DeepEP, PyTorch's
 * symmetric-memory all-reduce, TransformerEngine's userbuffers), which
 * --comm-kernels replaces or extends (docs/report.md).  Each is counted as
 * communication in every analysis: not compute, in comm_ns, exposed when
 * compute does not hide it. */
#ifndef GPUTRACE_COMM_KERNELS_H
#define GPUTRACE_COMM_KERNELS_H

#include <stddef.h>

/* The patterns used unless --comm-kernels says otherwise: shell-style
 * globs (fnmatch), comma separated, matched against the whole name as the
 * trace has it (mangled C++ names included: hence the *...*). */
#define COMM_KERNELS_DEFAULT_1 "*cross_device_reduce*,*deep_ep*dispatch*,*deep_ep*combine*" /* vLLM, DeepEP */
#define COMM_KERNELS_DEFAULT_2 "*one_shot_all_reduce*,*two_shot_all_reduce*,*userbuffers*" /* PyTorch, TE */
#define COMM_KERNELS_DEFAULT COMM_KERNELS_DEFAULT_1 "," COMM_KERNELS_DEFAULT_2

/* Sets the list: "PATTERNS" replaces the default, "+PATTERNS" adds to it,
 * "" leaves only NCCL's own.  0, or -1 with a reason in err (an empty
 * pattern, too many). */
int comm_kernels_set(const char *spec, char *err, size_t errlen);
/* Whether a kernel of this name is communication. */
int comm_kernel_name(const char *name);
/* For each of n names (NULL entries: no), whether it is: an array the
 * caller frees; NULL if n is 0 or memory ran out (then: none is, but NCCL's
 * own prefix, which model_op_is_nccl checks as well). */
unsigned char *comm_kernels_mark(char *const *names, int n);

/* NCCL's copies and memsets (its copy-engine collectives, docs/nccl-ce.md:
 * gop.nccl set on an operation that is no kernel): the collective whose
 * call made operation g of p (its host call inside the collective's, on
 * its stream, within its GPU time), or NULL; and the name the exports
 * give it, "<ncclFunc> (copy engine) <what>" ("nccl" for the function
 * when the collective is not loaded), or `what` for any other operation.
 * Named after NCCL, as HTA's classification by name (^nccl) wants. */
struct model;
struct proc;
struct gop;
struct coll;
const struct coll *comm_op_collective(const struct proc *p, const struct gop *g);
const char *comm_op_name(const struct model *m, const struct proc *p, const struct gop *g, const char *what,
                         char *buf, size_t len);

#endif
