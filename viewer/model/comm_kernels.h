/* comm_kernels.h: which GPU kernels are communication.  NCCL's own
 * (whose function name starts with "nccl": ncclKernel_*, ncclDevKernel_*,
 * ncclSymkDevKernel_*, RCCL's ncclDevKernel_Generic; and any kernel
 * launched inside an NCCL call, known by its correlation id:
 * load_proc.c), and those of a list of name patterns for communication
 * libraries that are not NCCL (PyTorch's symmetric memory, vLLM's custom
 * all-reduce, TensorRT-LLM's, DeepEP, NVSHMEM, RCCL's MSCCL,
 * TransformerEngine's userbuffers), which --comm-kernels replaces or
 * extends (docs/report.md, "Communication kernels that are not NCCL's",
 * says where each name was read).  Each is counted as communication in
 * every analysis: not compute, in comm_ns, exposed when compute does not
 * hide it. */
#ifndef GPUTRACE_COMM_KERNELS_H
#define GPUTRACE_COMM_KERNELS_H

#include <stddef.h>

/* The patterns used unless --comm-kernels says otherwise: shell-style
 * globs (fnmatch), comma separated, matched against a kernel's function
 * name: its namespaces and identifier, without return type, template
 * arguments or parameters, as comm_kernel_function makes it of a
 * demangled or a mangled name ("(anonymous namespace)::multimem_all_reduce_
 * kernel" for "void (anonymous namespace)::multimem_all_reduce_kernel<float,
 * 16>(float*, ...)"), or any tail of it that follows a "::" (so
 * "multimem_*" matches in whatever namespace).  A line each, as --help
 * shows them. */
#define COMM_KERNELS_DEFAULT_1 "multimem_*,one_shot_all_reduce*,two_shot_all_reduce*" /* PyTorch symmetric memory */
#define COMM_KERNELS_DEFAULT_2 "cross_device_reduce_*,quickreduce::allreduce_prototype*" /* vLLM */
#define COMM_KERNELS_DEFAULT_3 "oneShotAllReduceKernel,twoShotAllReduceKernel" /* TensorRT-LLM, older PyTorch */
#define COMM_KERNELS_DEFAULT_4 "tensorrt_llm::*allreduce*,tensorrt_llm::*moeA2A*" /* TensorRT-LLM */
#define COMM_KERNELS_DEFAULT_5 "deep_ep::*dispatch,deep_ep::*combine" /* DeepEP */
#define COMM_KERNELS_DEFAULT_6 "deep_ep::*dispatch_impl,deep_ep::*combine_impl" /* DeepEP (elastic) */
#define COMM_KERNELS_DEFAULT_7 "*_on_stream_kernel*,nvshmemi_proxy_*,nvshmemi_signal_op_kernel" /* NVSHMEM */
#define COMM_KERNELS_DEFAULT_8 "mscclKernel_*,*userbuffers_*" /* RCCL's MSCCL, TransformerEngine */
#define COMM_KERNELS_DEFAULT                                                                                  \
    COMM_KERNELS_DEFAULT_1 "," COMM_KERNELS_DEFAULT_2 "," COMM_KERNELS_DEFAULT_3 "," COMM_KERNELS_DEFAULT_4 \
                           "," COMM_KERNELS_DEFAULT_5 "," COMM_KERNELS_DEFAULT_6 "," COMM_KERNELS_DEFAULT_7 \
                           "," COMM_KERNELS_DEFAULT_8
/* The same list as --help prints it, a library a line. */
#define COMM_KERNELS_DEFAULT_HELP                                                                                 \
    COMM_KERNELS_DEFAULT_1 ",\n" COMM_KERNELS_DEFAULT_2 ",\n" COMM_KERNELS_DEFAULT_3 ",\n" COMM_KERNELS_DEFAULT_4 \
                           ",\n" COMM_KERNELS_DEFAULT_5 ",\n" COMM_KERNELS_DEFAULT_6 ",\n" COMM_KERNELS_DEFAULT_7 \
                           ",\n" COMM_KERNELS_DEFAULT_8

/* The function name of a kernel name as a trace holds it (above): into
 * buf, cut to len; a name it cannot read is copied as it is.  Returns
 * buf. */
char *comm_kernel_function(const char *name, char *buf, size_t len);

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
