/* finding_text.c: a finding's message and fix, in words, from its
 * measured fields and its facts (findings.h): the one place they are
 * written, for every output (text, JSON, Chrome trace, HTML).  Each is
 * cut at FINDING_TEXT_LEN - 1 bytes, where it always was; what is added
 * to a message (where a straggler's time went, the clocks' caveat, where
 * each rank of a hang stopped) is added only as it always was: while it
 * fits. */
#define _GNU_SOURCE
#include "viewer/write/finding_out.h"
#include "viewer/analyse/ledger.h"
#include "viewer/write/output.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A message or fix being written: at most FINDING_TEXT_LEN - 1 bytes. */
struct text { char s[FINDING_TEXT_LEN]; };

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void say(struct text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->s, sizeof t->s, fmt, ap);
    va_end(ap);
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void say_more(struct text *t, const char *fmt, ...)
{
    size_t l = strlen(t->s);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->s + l, sizeof t->s - l, fmt, ap);
    va_end(ap);
}

/* "once" or "N times"; "1 copy" or "N copies". */
struct count_words { char s[64]; };

static struct count_words times_words(long long n)
{
    struct count_words t;
    if (n == 1)
        snprintf(t.s, sizeof t.s, "once");
    else
        snprintf(t.s, sizeof t.s, "%lld times", n);
    return t;
}

static struct count_words count_words(long long n, const char *one, const char *many)
{
    struct count_words t;
    snprintf(t.s, sizeof t.s, "%lld %s", n, n == 1 ? one : many);
    return t;
}

const char *finding_range(const struct model *m, const struct finding *f, char *buf, size_t len)
{
    snprintf(buf, len, "%s", f->range > 0 && f->proc >= 0 ? model_label(&m->procs[f->proc], f->range - 1) : "");
    return buf;
}

static double ms(int64_t ns)
{
    return (double)ns / 1e6;
}

static const char *dtype_name(int t)
{
    static const char *const names[] = { "int8", "uint8", "int32", "uint32", "int64", "uint64",
                                         "float16", "float32", "float64", "bfloat16", "fp8e4m3", "fp8e5m2" };
    return t >= 0 && t < (int)(sizeof names / sizeof *names) ? names[t] : "?";
}

/* ---- syncs and copies ------------------------------------------------------ */

static void sync_text(const struct model *m, const struct finding *f, struct text *msg, struct text *fix)
{
    const char *api = f->api > 0 ? model_api_name(m, f->api) : "sync";
    double measured = ms(finding_measured(f)); /* what was measured; the cost charged is beside it */
    char on[320] = ""; /* what the longest one waited for */
    if (f->waited_for[0])
        snprintf(on, sizeof on, ", waiting for %s%s", f->waited_for,
                 f->waited_other ? " on another stream (through an event)" : "");
    switch (f->kind) {
    case F_SYNC_REDUNDANT:
        say(msg, "%s waited %s with nothing pending on the GPU (%.2f ms)", api, times_words(f->count).s, measured);
        say(fix, "remove it: there was no GPU work to wait for");
        break;
    case F_SYNC_NO_CONSUMER:
        say(msg, "%s blocked the host %s (%.2f ms)%s, but no result was copied back; the GPU then idled %.2f ms", api,
            times_words(f->count).s, ms(f->host_blocked_ns), on, measured);
        if (f->waited_other) /* the ProcessGroupNCCL pattern: the stream is ordered already */
            say(fix, "the stream already waits for that work through the event (cudaStreamWaitEvent), so the GPU"
                     " keeps the order: remove the host sync, or synchronise only where the host reads a result");
        else
            say(fix, "to order streams use cudaEventRecord + cudaStreamWaitEvent; otherwise remove it");
        break;
    case F_SYNC_DEVICE_WIDE:
        say(msg, "%s waited for every stream %s%s; the data read sat on one stream: %.2f ms waited beyond it", api,
            times_words(f->count).s, on, measured);
        say(fix, "wait for that stream or an event recorded after the copy (cudaStreamSynchronize /"
                 " cudaEventSynchronize) instead of the whole device");
        break;
    case F_SYNC_SCALAR_READ:
        say(msg, "%s read a few bytes back %s (like .item() or print(tensor))%s; the GPU then idled %.2f ms", api,
            times_words(f->count).s, on, measured);
        if (finding_from_torch(m, f))
            say(fix, "keep the value on the GPU (accumulate the loss as a tensor, call .item() once every N steps), or"
                     " copy it with .to('cpu', non_blocking=True) into pinned memory and read it a step later");
        else
            say(fix, "keep the value on the GPU, or copy it asynchronously into pinned memory and read it a step later");
        break;
    case F_SYNC_IMPLICIT:
        say(msg, "%s synchronised implicitly %s%s, blocking the host %.2f ms; the GPU then idled %.2f ms", api,
            times_words(f->count).s, on, ms(f->host_blocked_ns), measured);
        say(fix, "use the Async form with pinned memory, and move frees and allocations out of the loop");
        break;
    default:
        break;
    }
}

static void copy_text(const struct model *m, const struct finding *f, struct text *msg, struct text *fix)
{
    if (f->kind == F_COPY_PAGEABLE) {
        char waited[384] = "";
        if (f->gpu_wait_ns > 0)
            snprintf(waited, sizeof waited, ", %.2f ms of it waiting for earlier GPU work%s%s%s", ms(f->gpu_wait_ns),
                     *f->waited_for ? " (" : "", f->waited_for, *f->waited_for ? ")" : "");
        say(msg, "%s (%.1f MiB in all) from/to pageable host memory blocked the host %.2f ms%s",
            count_words(f->count, "copy", "copies").s, (double)f->bytes / (1 << 20), ms(f->host_blocked_ns), waited);
        if (finding_from_torch(m, f)) /* pinned alone is not enough: c10 syncs after a blocking copy */
            say(fix, "pin the tensor (pin_memory=True in the DataLoader, or tensor.pin_memory()) and copy it with"
                     " .to(device, non_blocking=True): a blocking copy waits even from pinned memory");
        else
            say(fix, "allocate the host buffer pinned (cudaMallocHost, or pin_memory=True in a DataLoader) or register"
                     " it with cudaHostRegister");
    } else {
        say(msg, "%s ran on the compute stream, overlapping no kernel (%.2f ms)",
            count_words(f->count, "host-to-device copy", "host-to-device copies").s, ms(f->exposed_ns));
        say(fix, "issue uploads on a separate copy stream and order them with cudaEventRecord + cudaStreamWaitEvent");
    }
}

/* Whether a range's name says the host was loading data: PyTorch's
 * DataLoader names its iterator's ranges "enumerate(DataLoader)#..."; a
 * program's own say "data" or "load" ("data_loading", "load_batch"). */
static int loads_data(const char *name)
{
    static const char *const words[] = { "dataloader", "data_load", "data load", "load_batch", "loading" };
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strcasestr(name, words[i]))
            return 1;
    return 0;
}

static void idle_text(const struct model *m, const struct finding *f, struct text *msg, struct text *fix)
{
    char gpu[48] = "the GPU", range[FINDING_RANGE_LEN] = "";
    if (f->facts.has & FACT_DEVICE)
        snprintf(gpu, sizeof gpu, "GPU %d", f->facts.device);
    finding_range(m, f, range, sizeof range);
    /* measured: every gap, some of which a sync or copy found with it
     * may have been charged (the message then says how much is this one's) */
    if (*range)
        say(msg, "%s sat idle %s (gaps of --idle-gap-us or more) for %.2f ms in all while the host was in %.200s",
            gpu, times_words(f->count).s, ms(f->gpu_idle_ns), range);
    else
        say(msg, "%s sat idle %s (gaps of --idle-gap-us or more) for %.2f ms in all, the host in no named range",
            gpu, times_words(f->count).s, ms(f->gpu_idle_ns));
    if (*range && loads_data(range))
        say(fix, "the GPU waits for the next batch: load it in worker processes, ready before the step ends"
                 " (DataLoader(num_workers=N, pin_memory=True, persistent_workers=True, prefetch_factor=2)), and"
                 " copy it with .to(device, non_blocking=True)");
    else if (*range)
        say(fix, "the host does not submit work fast enough while it runs %.200s: move that work off the step's"
                 " path (another thread or process, or less often), or batch it; CUDA graphs cut launch cost", range);
    else
        say(fix, "the host does not submit work fast enough: look at CPU-side work between launches (data loading,"
                 " Python overhead); CUDA graphs cut launch cost");
}

static void stalled_text(const struct model *m, const struct finding *f, struct text *msg, struct text *fix)
{
    char gpu[48] = "the GPU", range[FINDING_RANGE_LEN] = "";
    if (f->facts.has & FACT_DEVICE)
        snprintf(gpu, sizeof gpu, "GPU %d", f->facts.device);
    finding_range(m, f, range, sizeof range);
    say(msg, "%s sat idle %s for %.2f ms in all with work queued for it (its call had returned)", gpu,
        times_words(f->count).s, ms(f->gpu_idle_ns));
    if (*range)
        say_more(msg, ", while the host was in %.200s", range);
    if (f->waited_for[0])
        say_more(msg, "; the longest ended when %.200s started", f->waited_for);
    say(fix, "the work waited for something that ran on no GPU of this process's records: look at what its stream"
             " waits for (a cudaStreamWaitEvent on an event recorded late, a host function, an NCCL kernel's"
             " stream), at other processes on the same GPU (nvidia-smi, MPS), or at GPU records the trace lost"
             " (the profiler's buffer)");
}

static void bubble_text(const struct model *m, const struct finding *f, struct text *msg, struct text *fix)
{
    char range[FINDING_RANGE_LEN];
    finding_range(m, f, range, sizeof range);
    say(msg, "the process's GPUs sat idle %.2f ms in all, in %s, while another of them worked: their work waited"
             " for each other's (a model split across GPUs runs one stage at a time)",
        ms(f->gpu_idle_ns), count_words(f->count, "stretch", "stretches").s);
    for (int k = 0; k < f->facts.ngpus; k++)
        say_more(msg, "%s GPU %d %.2f ms", k ? "," : ";", f->facts.gpus[k].device, ms(f->facts.gpus[k].idle_ns));
    if (*range)
        say_more(msg, "; most of it while the host was in %.200s", range);
    int blocked = f->host_blocked_ns * 2 >= f->gpu_idle_ns;
    if (blocked)
        say_more(msg, "; the host was blocked in a sync or copy for %.2f ms of it, so the next step's work could not"
                      " be queued beside it", ms(f->host_blocked_ns));
    /* the bound, where the host waited (else its own pace may set the step) */
    if (blocked && f->facts.step_ns > 0 && f->facts.busiest_step_ns < f->facts.step_ns)
        say_more(msg, "; a step took %.2f ms (median), its busiest GPU working %.2f ms of it: about what a step"
                      " takes with the stages side by side", ms(f->facts.step_ns), ms(f->facts.busiest_step_ns));
    say(fix, "keep every GPU busy: split each batch into micro-batches that follow each other through the stages (a"
             " pipeline schedule: torch.distributed.pipelining, GPipe or 1F1B), or shard instead of splitting the"
             " model (FSDP); without them, remove a sync that waits for the last stage each step so that the next"
             " step's first stage runs beside it");
}

static void launch_text(const struct model *m, const struct finding *f, struct text *msg, struct text *fix)
{
    char range[FINDING_RANGE_LEN];
    finding_range(m, f, range, sizeof range);
    say(msg, "the GPU idled %.2f ms in %lld gaps shorter than --idle-gap-us between its kernels (%.1f us each on"
             " average): it runs each kernel as soon as the host launches it, and waits for the next launch",
        ms(f->gpu_idle_ns), (long long)f->count, f->count ? (double)f->gpu_idle_ns / (double)f->count / 1e3 : 0.0);
    if (*range)
        say_more(msg, "; most of them while the host was in %.200s", range);
    say(fix, "launch fewer, larger kernels: capture the step in a CUDA graph (torch.compile(mode=\"reduce-overhead\"),"
             " torch.cuda.graphs), fuse small kernels, or give each kernel more work (a larger batch)");
}

/* ---- collectives within a rank ----------------------------------------------- */

static void exposed_text(const struct model *m, const struct finding *f, struct text *msg, struct text *fix)
{
    if (f->kind == F_COMM_EXPOSED && (f->facts.has & FACT_UNCLAIMED)) {
        say(msg, "communication kernels ran %.2f ms with no compute beside them, in %s that no call site's"
                 " collectives explain (kernels with no collective call recorded, or collectives overlapped more"
                 " than --exposed-fraction)",
            ms(f->exposed_ns), count_words(f->count, "stretch", "stretches").s);
        if (f->facts.kernel[0])
            say_more(msg, "; the kernel that ran most of them: %.200s", f->facts.kernel);
        say(fix, "start communication as soon as its inputs are ready, on its own stream, so that compute hides"
                 " it (bucketed gradients, overlapped all-gathers); where no compute is left to hide it, make"
                 " less of it (larger buckets, fewer collectives, a faster algorithm or link)");
    } else if (f->kind == F_COMM_EXPOSED) {
        say(msg, "%s ran less than %.0f%% overlapped by compute: %.2f ms of communication with no compute beside it",
            count_words(f->count, "collective", "collectives").s, f->facts.exposed_fraction * 100, ms(f->exposed_ns));
        say(fix, "launch collectives on their own stream as soon as their inputs are ready (bucketed gradients), so"
                 " that compute hides them");
    } else {
        say(msg, "%s launched on a stream that also runs compute cannot overlap it: %.2f ms not overlapped, of which the"
                 " compute queued after them on that stream could hide %.2f ms on another stream",
            count_words(f->count, "collective", "collectives").s, ms(f->exposed_ns), ms(f->hideable_ns));
        say(fix, "use a separate communication stream, ordered with cudaEventRecord + cudaStreamWaitEvent");
    }
    if (finding_from_torch(m, f))
        say(fix, "call dist.all_reduce(..., async_op=True) and wait() on the returned work only where the result is"
                 " needed, or let DistributedDataParallel bucket the gradients: both run the all-reduce on NCCL's"
                 " own stream, overlapping backward");
}

/* ---- across ranks -------------------------------------------------------------- */

/* "(iterations 3-5)", "(iteration 3)" of the range a straggler's time went to. */
static void iterations(const struct finding *f, char *buf, size_t len)
{
    buf[0] = 0;
    if (f->iter_first >= 0)
        snprintf(buf, len, f->iter_last > f->iter_first ? " (iterations %lld-%lld)" : " (iteration %lld)",
                 (long long)f->iter_first, (long long)f->iter_last);
}

static void straggler_text(const struct model *m, const struct finding *f, struct text *msg, struct text *fix)
{
    const struct finding_facts *x = &f->facts;
    int r = x->straggler_rank;
    say(msg, "rank %d reached %lld of %s last (%lld by more than %.1f ms); the other ranks waited %.2f ms for it", r,
        (long long)f->count, count_words(x->collectives, "collective", "collectives").s, (long long)x->clearly_last,
        ms(x->margin_ns), ms(f->wait_ns));
    say(fix, "look at what rank %d does before its collectives (data loading, uneven work, a slower GPU or host)", r);
    if (x->placed) { /* where its time went (straggler_place.c) */
        char iters[64], site[2048] = "", range[FINDING_RANGE_LEN];
        iterations(f, iters, sizeof iters);
        finding_range(m, f, range, sizeof range);
        if (x->site > 0 && f->proc >= 0)
            model_callsite(m, &m->procs[f->proc], x->site, site, sizeof site);
        say_more(msg, ". Before the %lld collectives it reached more than %.1f ms after the others, it spent %.2f ms"
                      " more than the other ranks' mean in NVTX range %.200s%s, ",
                 (long long)x->late, ms(x->margin_ns), x->excess / 1e6, range, iters);
        if (x->in_calls >= 5e3) /* 0.01 ms as shown */
            say_more(msg, "%.2f ms of that in CUDA and NCCL calls", x->in_calls / 1e6);
        else
            say_more(msg, "none of it in CUDA or NCCL calls");
        if (x->in_calls > x->excess / 2 && *site)
            say(fix, "look at rank %d's calls in %.200s%s, at %.200s (%.2f ms more than the other ranks there)", r,
                range, iters, site, x->at_site / 1e6);
        else
            say(fix, "look at what rank %d does in %.200s%s outside CUDA and NCCL calls (%.2f ms more than the other"
                     " ranks: data loading, uneven work, a slower host)",
                r, range, iters, (x->excess - (x->in_calls > 0 ? x->in_calls : 0)) / 1e6);
    }
    char why[256];
    if (x->clock_low == 1)
        snprintf(why, sizeof why, " (low confidence: %d host(s) share no collective with rank %d's host, so their"
                                  " clocks are aligned only by the realtime clock)", x->unaligned, x->ref_rank);
    else if (x->clock_low == 2)
        snprintf(why, sizeof why, " (low confidence: its mean lead, %.3f ms, is within %dx the hosts' clock"
                                  " alignment residual, %.3f ms)", x->lead_ns / 1e6, x->factor, ms(x->residual_ns));
    if (x->clock_low && strlen(msg->s) + 1 < sizeof msg->s)
        say_more(msg, "%s", why);
}

/* A point-to-point pair: its sends disagreeing with their receives, or
 * operations left over with no match (analysis_p2p.c). */
static void pair_text(const struct model *m, const struct finding *f, struct text *msg, struct text *fix)
{
    const struct finding_facts *x = &f->facts;
    const struct finding_call *s = &x->call[0], *v = &x->call[1];
    int a = x->sender_rank, b = x->receiver_rank;
    if (!(x->has & FACT_UNMATCHED)) {
        say(msg, "%lld of %lld sends from rank %d to rank %d disagree with their receives: rank %d sent %lld %s,"
                 " rank %d received %lld %s (communicator %llx)",
            (long long)f->count, (long long)x->matched, a, b, a, (long long)s->count, dtype_name(s->dtype), b,
            (long long)v->count, dtype_name(v->dtype), (unsigned long long)x->comm_id);
        say(fix, "the two ranks disagree on the tensor passed between them: check the shapes and dtypes each stage"
                 " sends and expects");
        return;
    }
    int sender = x->unmatched_sends, me = sender ? a : b, them = sender ? b : a;
    const char *mine = sender ? "ncclSend" : "ncclRecv", *theirs = sender ? "ncclRecv" : "ncclSend";
    char what[160];
    if (f->count == 1)
        snprintf(what, sizeof what, "rank %d's %s %s rank %d", me, mine, sender ? "to" : "from", them);
    else
        snprintf(what, sizeof what, "%lld %ss of rank %d %s rank %d (the first:", (long long)f->count, mine, me,
                 sender ? "to" : "from", them);
    say(msg, "%s%scount %lld, %s, its operation %lld on communicator %llx) ha%s no matching %s on rank %d%s", what,
        f->count == 1 ? " (" : " ", (long long)s->count, dtype_name(s->dtype), (long long)model_seq_shown(x->seq),
        (unsigned long long)x->comm_id, f->count == 1 ? "s" : "ve", theirs, them,
        f->kind == F_COMM_HANG ? ": the run ended with it waiting" : "");
    say(fix, "rank %d %s rank %d than rank %d %s it: look for a stage that skips a micro-batch or exits its loop"
             " early (rank-dependent control flow)",
        me, sender ? "sends more to" : "expects more from", them, them, sender ? "receives from" : "sends to");
    (void)m;
}

static void setup_text(const struct model *m, const struct finding *f, struct text *msg, struct text *fix)
{
    const struct finding_facts *x = &f->facts;
    char by[400] = "";
    size_t l = 0;
    for (int k = 0; k < x->nsetup && l < sizeof by; k++)
        l += (size_t)snprintf(by + l, sizeof by - l, "%s%.60s %s %.2f ms", k ? ", " : "",
                              model_api_name(m, x->setup[k].api), times_words(x->setup[k].count).s,
                              ms(x->setup[k].host_ns));
    say(msg, "%s that waited for no GPU work held the host %.2f ms while the GPU idled %.2f ms (%s):"
             " set-up (the CUDA context, a module loaded at a kernel's first launch, memory allocated or freed,"
             " a stream or graph made)",
        count_words(f->count, "CUDA call", "CUDA calls").s, ms(f->host_blocked_ns), ms(f->gpu_idle_ns), by);
    say(fix, "do set-up once, before the steps that are timed or traced, and reuse it: allocate buffers once"
             " (PyTorch's caching allocator frees to the driver only at torch.cuda.empty_cache() or when memory"
             " runs short), make streams and handles up front; a kernel's first launch loads its module (lazy"
             " loading): run warm-up steps first (a profiler schedule's wait and warmup), or set"
             " CUDA_MODULE_LOADING=EAGER");
}

static void lazy_text(const struct model *m, const struct finding *f, struct text *msg, struct text *fix)
{
    const struct finding_facts *x = &f->facts;
    say(msg, "the first %s between rank %d and rank %d blocked the host %.2f ms while NCCL connected the pair; the"
             " later ones took %.3f ms%s",
        x->grouped ? "group of send/recv (its ncclGroupEnd)" : model_api_name(m, f->api), f->rank, x->peer_rank,
        ms(x->first_call_ns), ms(x->typical_call_ns),
        x->shared ? " (the same ncclGroupEnd as a connection above: charged there)" : "");
    say(fix, "NCCL connects two ranks at their first send/recv (NCCL_RUNTIME_CONNECT, on by default since 2.22): warm"
             " the connections up with one small send/recv per peer before the timed loop, or set"
             " NCCL_RUNTIME_CONNECT=0 to connect every peer in ncclCommInitRank");
}

/* ", where each rank stopped: 0 kernel running, 1 not started", added
 * while it fits (399 bytes, and the message). */
static void stops_text(const struct finding_facts *x, struct text *msg)
{
    char text[400] = "";
    size_t lt = 0;
    for (int i = 0; i < x->nstops && lt < sizeof text; i++)
        lt += (size_t)snprintf(text + lt, sizeof text - lt, "%s%d %s", lt ? ", " : "", x->stops[i].rank,
                               finding_stop_text(x->stops[i].at));
    size_t l = strlen(msg->s);
    if (lt < sizeof text && l + lt + 24 < sizeof msg->s)
        say_more(msg, "; where each rank stopped: %s", text);
}

/* A time since the run's start, in ms as the report's other times: "4985.21 ms". */
static void when(int64_t ns, char *buf, size_t len)
{
    snprintf(buf, len, "%.2f ms", ms(ns));
}

/* "rank 3 blocked in cudaMemcpy since 4985.21 ms into the run, at
 * train.py:88" (write/finding_json.c gives the same as facts). */
static void place_words(const struct model *m, const struct finding_place *w, char *buf, size_t len)
{
    char t[32], name[2048] = "";
    when(w->since_ns, t, sizeof t);
    const struct proc *p = w->proc >= 0 && (size_t)w->proc < m->nprocs ? &m->procs[w->proc] : NULL;
    if (w->kind == PLACE_CALL) {
        if (p && w->site > 0)
            model_callsite(m, p, w->site, name, sizeof name);
        snprintf(buf, len, "rank %d blocked in %.64s since %s into the run%s%.200s", w->rank,
                 model_api_name(m, w->api), t, *name ? ", at " : "", name);
    } else if (w->kind == PLACE_RANGE) {
        snprintf(buf, len, "rank %d in NVTX range %.200s, open since %s into the run (no call in flight)", w->rank,
                 p ? model_label(p, w->label) : "?", t);
    } else {
        snprintf(buf, len, "rank %d in host code since %s into the run (its last traced call's end; no call in"
                           " flight, no NVTX range open)", w->rank, t);
    }
}

/* The fix of a hang some ranks never reached, naming where each of them
 * was instead, as many as fit. */
static void places_fix(const struct model *m, const struct finding_facts *x, const char *ranks, struct text *fix)
{
    say(fix, "rank(s) %s never reached it: ", ranks);
    for (int i = 0; i < x->nplaces; i++) {
        char one[640];
        place_words(m, &x->places[i], one, sizeof one);
        size_t l = strlen(fix->s);
        if (l + strlen(one) + 8 >= sizeof fix->s) {
            say_more(fix, "; ...");
            return;
        }
        say_more(fix, "%s%s", i ? "; " : "", one);
    }
    if (x->nranks > x->nplaces)
        say_more(fix, "; ...");
}

static void coll_text(const struct model *m, const struct finding *f, struct text *msg, struct text *fix)
{
    const struct finding_facts *x = &f->facts;
    char ranks[256];
    finding_rank_list(x, ranks, sizeof ranks);
    if (f->kind == F_COMM_MISMATCH) {
        const struct finding_call *got = &x->call[0], *want = &x->call[1];
        say(msg, "collective %lld of communicator %llx: rank(s) %s called %s(count %lld, type %d) where the others"
                 " called %s(count %lld, type %d)",
            (long long)x->seq, (unsigned long long)x->comm_id, ranks, model_api_name(m, got->api),
            (long long)got->count, got->dtype, model_api_name(m, want->api), (long long)want->count, want->dtype);
        say(fix, "the ranks issue different collectives at the same point: look for rank-dependent control flow or"
                 " shapes");
    } else if (x->list_of == FACT_LIST_STOPPED) {
        say(msg, "every member entered %s (collective %lld of communicator %llx) and none finished it: rank(s) %s"
                 " stopped inside",
            model_api_name(m, f->api), (long long)x->seq, (unsigned long long)x->comm_id, ranks);
        say(fix, "a rank's GPU work before this collective never ended, or the ranks disagree on it: look at each"
                 " rank's last kernels before it (and the inflight table)");
    } else {
        say(msg, "the run ended with %lld rank(s) waiting in %s (collective %lld of communicator %llx) that rank(s) %s"
                 " never entered",
            (long long)x->entered, model_api_name(m, f->api), (long long)x->seq, (unsigned long long)x->comm_id, ranks);
        if (x->has & FACT_PLACES) /* where each was instead (hang_place.c) */
            places_fix(m, x, ranks, fix);
        else
            say(fix, "find where rank(s) %s were stuck (their last calls, and the inflight table) before this"
                     " collective", ranks);
        if (x->has & FACT_STOPS) /* how far each rank got in it, from NCCL's plugin */
            stops_text(x, msg);
    }
}

static void render(const struct model *m, const struct finding *f, struct text *msg, struct text *fix)
{
    msg->s[0] = fix->s[0] = 0;
    switch (f->kind) {
    case F_SYNC_REDUNDANT:
    case F_SYNC_NO_CONSUMER:
    case F_SYNC_DEVICE_WIDE:
    case F_SYNC_IMPLICIT:
    case F_SYNC_SCALAR_READ:
        sync_text(m, f, msg, fix);
        break;
    case F_COPY_PAGEABLE:
    case F_COPY_SERIALIZED:
        copy_text(m, f, msg, fix);
        break;
    case F_COMM_EXPOSED:
    case F_COMM_SAME_STREAM:
        exposed_text(m, f, msg, fix);
        break;
    case F_COMM_STRAGGLER:
        straggler_text(m, f, msg, fix);
        break;
    case F_COMM_MISMATCH:
    case F_COMM_HANG:
        if (f->facts.has & FACT_PAIR)
            pair_text(m, f, msg, fix);
        else
            coll_text(m, f, msg, fix);
        break;
    case F_GPU_IDLE:
        idle_text(m, f, msg, fix);
        break;
    case F_GPU_LAUNCH_BOUND:
        launch_text(m, f, msg, fix);
        break;
    case F_COMM_LAZY_CONNECT:
        lazy_text(m, f, msg, fix);
        break;
    case F_HOST_SETUP:
        setup_text(m, f, msg, fix);
        break;
    case F_GPU_STALLED:
        stalled_text(m, f, msg, fix);
        break;
    case F_GPU_PIPELINE_BUBBLE:
        bubble_text(m, f, msg, fix);
        break;
    case F_KIND_COUNT:
        break;
    }
}

const char *finding_steady(const struct model *m, const struct finding *f, int named_rank, char *buf, size_t len)
{
    *buf = 0;
    if (f->it_costed < 1 || f->it_of < 2)
        return buf;
    char who[64] = "";
    if (named_rank) {
        char l[48];
        snprintf(who, sizeof who, " on %s", proc_label(f->rank, f->proc >= 0 ? m->procs[f->proc].pid : -1, l, sizeof l));
    }
    long long of = f->it_of > f->it_costed ? f->it_of : f->it_costed;
    if (f->it_costed < 3 && f->it_costed >= of) /* too few for a spread, and a cost in each */
        return buf;
    if (f->it_costed < 3) /* too few for a spread */
        snprintf(buf, len, "iteration%s: a cost in only %lld of %lld", who, (long long)f->it_costed, of);
    else
        snprintf(buf, len, "iteration%s: %.2f ms median (%.2f-%.2f ms, 10th-90th percentile), in %lld of %lld", who,
                 (double)f->it_median_ns / 1e6, (double)f->it_p10_ns / 1e6, (double)f->it_p90_ns / 1e6,
                 (long long)f->it_costed, of);
    return buf;
}

const char *finding_cost_words(const struct finding *f)
{
    switch (finding_cost_field[f->kind]) {
    case COST_host_blocked: return "host blocked";
    case COST_gpu_idle: return "GPU idle";
    case COST_exposed: return "not overlapped"; /* "exposed", HTA's word, read as jargon */
    case COST_wait: return f->kind == F_COMM_STRAGGLER ? "the others waited" : "waited";
    }
    return "";
}

const char *finding_gpu_time(const struct findings *fs, const int *group, size_t leader, char *buf, size_t len)
{
    int64_t cost = 0, waste = 0;
    size_t gpus = 0, most = 0;
    for (size_t j = leader; j < fs->n; j++) {
        const struct finding *f = &fs->v[j];
        if (group[j] != (int)leader)
            continue;
        model_add(&cost, finding_cost(f));
        model_add(&waste, f->waste_ns);
        const struct ledger *l = f->proc >= 0 ? ledger_of(fs, (size_t)f->proc) : NULL;
        size_t k = l ? ledger_ngpus(l) : 1;
        gpus += k;
        most = k > most ? k : most;
    }
    /* the header's figure is shown to 0.01 ms: a difference below that is none */
    if (most < 2 || (cost - waste) / 5000 == 0)
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "%.2f ms of GPU time over its %zu GPUs", (double)waste / 1e6, gpus);
    return buf;
}

const char *finding_message(const struct model *m, const struct finding *f, char *buf, size_t len)
{
    struct text msg, fix;
    render(m, f, &msg, &fix);
    snprintf(buf, len, "%s", msg.s);
    return buf;
}

const char *finding_suggestion(const struct model *m, const struct finding *f, char *buf, size_t len)
{
    struct text msg, fix;
    render(m, f, &msg, &fix);
    snprintf(buf, len, "%s", fix.s);
    return buf;
}
