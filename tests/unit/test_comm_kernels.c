/* test_comm_kernels.c: which kernel names are communication
 * (viewer/model/comm_kernels.h), on names as traces hold them: demangled
 * (Kineto, Nsight Systems) and mangled (CUPTI's own records, and the
 * kernels Kineto leaves mangled).  The NCCL symbols are read off NCCL
 * 2.28.9's libnccl.so.2 (nm); the other mangled names are what g++ makes
 * of each library's kernel declaration (same ABI as nvcc's), demangled
 * with c++filt for the demangled cases; the identifiers and namespaces are
 * the libraries' own (docs/report.md lists where each was read). */
#include "viewer/model/comm_kernels.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void function_is(const char *name, const char *want)
{
    char buf[256];
    cr_expect_str_eq(comm_kernel_function(name, buf, sizeof buf), want, "function of %s", name);
}

Test(comm_kernels, function_names)
{
    function_is("void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, "
                "unsigned long, unsigned int**, unsigned long, unsigned long)",
                "(anonymous namespace)::multimem_all_reduce_kernel");
    function_is("_ZN12_GLOBAL__N_1L26multimem_all_reduce_kernelIN3c108BFloat16ELi16EEEvPT_mPPjmm",
                "(anonymous namespace)::multimem_all_reduce_kernel");
    function_is("_ZN4vllm26cross_device_reduce_1stageIN3c108BFloat16ELi8EEEvPNS_8RankDataENS_11RankSignalsEPVNS_"
                "8MetadataEPT_ii",
                "vllm::cross_device_reduce_1stage");
    function_is("_ZN12tensorrt_llm7kernelsL22oneShotAllReduceKernelIfLi8EEEvi",
                "tensorrt_llm::kernels::oneShotAllReduceKernel");
    function_is("_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE",
                "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    function_is("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
                "ncclKernel_AllReduce_RING_LL_Sum_float");
    /* a template argument with parentheses and a lambda, as PyTorch's hold */
    function_is("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::"
                "launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
                "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() "
                "const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, float, at::detail::Array<char*, 2>)",
                "at::native::vectorized_elementwise_kernel");
    function_is("ampere_sgemm_32x128_nt", "ampere_sgemm_32x128_nt"); /* no parameters: as it is */
}

Test(comm_kernels, bad_names_are_kept_or_cut_never_read_past)
{
    char small[8];
    cr_expect_str_eq(comm_kernel_function("vllm::cross_device_reduce_1stage(int)", small, sizeof small), "vllm::c");
    function_is("_Z999999999ncclX", "_Z999999999ncclX"); /* a length past the end: not read as mangled */
    function_is("_ZN", "_ZN");
    function_is("(((", "(((");
    function_is(">>>)))", ">>>)))");
    function_is("", "");
    cr_expect(!comm_kernel_name(""));
    cr_expect(!comm_kernel_name(NULL));
    cr_expect(!comm_kernel_name("::"));
    cr_expect(!comm_kernel_name("a::::b"));
}

/* One real kernel of each library the default list knows (demangled as
 * the traces show them), and kernels that are not communication. */
static const char *const comm[] = {
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "_Z44ncclSymkDevKernel_AllReduce_AGxLL_R_sum_f3221ncclSymkDevWorkArgs4K",
    "ncclDevKernel_Generic(ncclDevComm*, channelMasks, ncclWork*)", /* RCCL */
    "_ZN12_GLOBAL__N_1L26multimem_all_reduce_kernelIN3c108BFloat16ELi16EEEvPT_mPPjmm",
    "void (anonymous namespace)::one_shot_all_reduce_kernel<float, 16, 8>(float**, float*, float*, unsigned long, "
    "unsigned long, unsigned int**, unsigned long, unsigned long)",
    "void (anonymous namespace)::two_shot_all_reduce_kernel_inplace<c10::BFloat16, 16, 4>(c10::BFloat16**, "
    "unsigned long, unsigned long, unsigned int**, unsigned long, unsigned long)",
    "void c10d::intra_node_comm::oneShotAllReduceKernel<8u, true>(c10::BFloat16*, unsigned long, unsigned long, "
    "c10d::intra_node_comm::P2pState**, c10::BFloat16**, unsigned long)",
    "void vllm::cross_device_reduce_2stage<__half, 4>(vllm::RankData*, vllm::RankSignals, vllm::Metadata volatile*, "
    "__half*, int, int)",
    "void quickreduce::allreduce_prototype_twoshot<quickreduce::AllReduceTwoshot<__half, quickreduce::CodecFP, "
    "false>, __half>(__half const*, __half*, unsigned int, unsigned int, int, unsigned char**, unsigned int, "
    "unsigned int, long)",
    "void tensorrt_llm::kernels::twoShotAllReduceKernel<__nv_bfloat16, 8>(tensorrt_llm::kernels::AllReduceParams)",
    "void tensorrt_llm::kernels::ar_fusion::allreduce_fusion_kernel_oneshot_lamport<__nv_bfloat16, 8, true>("
    "tensorrt_llm::kernels::ar_fusion::AllReduceFusionParams<__nv_bfloat16>)",
    "tensorrt_llm::kernels::moe_a2a::moeA2ADispatchKernel(int const*, tensorrt_llm::kernels::moe_a2a::"
    "DispatchKernelPointers, int, int, int, int, int, int)",
    "_ZN7deep_ep12internode_ll8dispatchILi8ELi7168EEEvPvPf",
    "void deep_ep::intranode::combine<__nv_bfloat16, 8, 768>(__nv_bfloat16*, float*, __nv_bfloat16 const*, "
    "float const*, int*, int*, int*, int*, int, int, int, int, int, int, int)",
    "void deep_ep::intranode::notify_dispatch<8>(int const*, int*, int const*, int*, int, int, int, bool const*, "
    "int*, int*, int, int, void**, int**, int, int)",
    "void deep_ep::elastic::hybrid_dispatch_impl<8, 1024>(void*)",
    "void rdxn_on_stream_kernel<float, (rdxn_ops)0>(int, float*, float const*, unsigned long)",
    "void barrier_on_stream_kernel_threadgroup<(threadgroup_t)3>(int, int)",
    "nvshmemi_proxy_rma_entrypoint(void*, void*, rma_bytesdesc_t, int, int)",
    "mscclKernel_Sum_hip_bfloat16_LL_false(ncclDevComm*, mscclAlgo*, mscclWork*)",
    "userbuffers_fp16_sum_inplace_gpu_rw(int, int, int, int, int, int, int, void**, int, unsigned long)",
    "kuserbuffers_pullsend(int, int, int*, int*)",
};
static const char *const compute[] = {
    "void (anonymous namespace)::softmax_warp_backward<float, float, float, 10, true, false>(float*, float const*, "
    "float const*, int, int, int, bool const*)",
    "_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionE",
    "_ZN7deep_ep9internode19get_dispatch_layoutILi256EEEvPKlPi", /* DeepEP's layout: local */
    "void deep_ep::elastic::dispatch_copy_epilogue_impl<8>(void*, void*)",
    "my_a2a_dispatch", /* tests/apps/custom_comm.c: only when --comm-kernels names it */
    /* a template argument that names a communication kernel does not make one */
    "void at::native::elementwise_kernel<128, 4, vllm::cross_device_reduce_1stage>(int)",
    "ampere_sgemm_32x128_nt",
};

Test(comm_kernels, default_list)
{
    cr_assert_eq(comm_kernels_set("+", (char[64]){ 0 }, 64), 0); /* "+": the default, nothing added */
    for (size_t i = 0; i < sizeof comm / sizeof *comm; i++)
        cr_expect(comm_kernel_name(comm[i]), "communication: %s", comm[i]);
    for (size_t i = 0; i < sizeof compute / sizeof *compute; i++)
        cr_expect(!comm_kernel_name(compute[i]), "compute: %s", compute[i]);
}

Test(comm_kernels, patterns_match_a_tail_after_a_namespace)
{
    char err[64];
    cr_assert_eq(comm_kernels_set("my_a2a_*,intranode::combine", err, sizeof err), 0);
    cr_expect(comm_kernel_name("void lib::ep::my_a2a_dispatch<4>(int)"));
    cr_expect(comm_kernel_name("my_a2a_combine"));
    cr_expect(comm_kernel_name("_ZN7deep_ep9intranode7combineILi8EEEvPv"));
    cr_expect(!comm_kernel_name("void deep_ep::internode::combine<8>(void*)"));
    cr_expect(!comm_kernel_name("_Z26multimem_all_reduce_kernelv")); /* replaced, not added */
    cr_expect(comm_kernel_name("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)")); /* NCCL's stay */
    cr_assert_eq(comm_kernels_set("", err, sizeof err), 0);
    cr_expect(!comm_kernel_name("my_a2a_combine"));
    cr_expect(comm_kernel_name("_Z22ncclDevKernel_SendRecv24ncclDevKernelArgsStorageILm4096EE"));
}

/* The default list is made at the first name asked about, by whichever of
 * the report's workers asks first: 16 threads ask at once, in a fresh
 * process each round (the list is made once a process).  Unguarded, some
 * threads missed the pattern in 29 of 200 rounds (a race the fuzzing found
 * under -j 2); every thread must see it every time. */
#define RACE_THREADS 16
static pthread_barrier_t race_bar;
static void *ask(void *arg)
{
    pthread_barrier_wait(&race_bar);
    *(int *)arg = comm_kernel_name("deep_ep::internode::combine");
    return NULL;
}

Test(comm_kernels, default_list_made_once_by_threads_at_once)
{
    for (int round = 0; round < 100; round++) {
        pid_t pid = fork();
        cr_assert(pid >= 0);
        if (pid == 0) {
            pthread_t t[RACE_THREADS];
            int got[RACE_THREADS] = { 0 }, missed = 0;
            pthread_barrier_init(&race_bar, NULL, RACE_THREADS);
            for (int i = 0; i < RACE_THREADS; i++)
                if (pthread_create(&t[i], NULL, ask, &got[i]) != 0)
                    _exit(RACE_THREADS + 1); /* the others wait at the barrier: gone with the process */
            for (int i = 0; i < RACE_THREADS; i++) {
                pthread_join(t[i], NULL);
                missed += !got[i];
            }
            _exit(missed);
        }
        int st = 0;
        cr_assert(waitpid(pid, &st, 0) == pid);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "round %d: %d of %d threads missed the default list (%d: no thread)", round,
                  WIFEXITED(st) ? WEXITSTATUS(st) : -1, RACE_THREADS, RACE_THREADS + 1);
    }
}
