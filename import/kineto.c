/* kineto.c: a PyTorch profiler (Kineto) trace into our schema, streamed:
 * the top-level object is walked member by member, and each element of
 * traceEvents is parsed, written and forgotten (json_stream.h).
 *
 * What each event becomes (docs/import.md has every field):
 *   cuda_runtime / cuda_driver   cupti_api (domain 1 / 2): the report makes
 *                                calls of them as of any CUPTI API record
 *   kernel, gpu_memcpy, gpu_memset  gpu_op kinds 1-3
 *   cuda_sync                    gpu_op kind 4 (synchronisation records)
 *   user_annotation, ProfilerStep#N  nvtx_range (push/pop, default domain)
 *   NCCL kernels with collective args  collective + ext_corr
 *   NCCL kernels without them     collective numbered by kernel order (seq
 *                                GT_SEQ_ORDER | k), where the trace has a rank
 *   distributedInfo, deviceProperties, process_name, thread_name  process, thread_name
 * Times: ts and dur are microseconds, integer in old traces, with ns
 * decimals in newer ones, read exactly (no double); when
 * baseTimeNanoseconds is there, ts counts from it, and it becomes the
 * process's clock offset. */
#define _GNU_SOURCE
#include "import/import.h"
#include "import/json_stream.h"
#include "import/kineto_map.h"
#include "import/out_db.h"
#include "format/api_ids.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_DEVICES 64
#define MAX_LATER 256 /* process groups (a job has a few) */
#define MAX_LOW_THREADS 1024

struct kin {
    struct out_db *o;
    sqlite3_stmt *host_call; /* import_host: NCCL calls as host events (our own export) */
    sqlite3_stmt *host_seq;  /* import_host_seq: those with their group and sequence number */
    struct jstream j;
    int pid;                     /* the host process: first host event's pid */
    int rank, world, nccl_version, device;
    char *cmdline;
    char *gpu_names[MAX_DEVICES];
    int64_t base_ns, lo, hi;
    int have_base, have_times, saw_events, shift_set;
    int32_t ph, cat, name; /* the nodes of the event being read, as wanted() saw them; -1 none */
    int64_t shift;
    /* counts, for the notes */
    uint64_t events, runtime, no_cbid, kernels, copies, memsets, syncs, ranges, nccl, nccl_args, flows, skipped,
        event_syncs, nccl_order;
    uint64_t bad_times, bad_args; /* events whose numbers our arithmetic cannot hold: left out */
    /* the rank and world size the collectives matched by order were
     * written with (by_order), and whether they all had the same */
    int ord_rank, ord_world, ord_mixed;
    uint64_t ord_rows;
    /* the groups of collectives written before distributedInfo named the
     * rank (Kineto writes it after traceEvents in on-demand traces): their
     * rank is set once the file is read (ranks_later) */
    struct later_group { int64_t comm_id; char *ranks; } later[MAX_LATER];
    int nlater;
    /* process and thread names of pids MAX_DEVICES or less (meta_event) */
    char *low_name[MAX_DEVICES + 1];
    uint8_t low_cpu[MAX_DEVICES + 1];
    struct low_thread { int pid, tid; char *name; } low_threads[MAX_LOW_THREADS];
    int nlow_threads;
};

static void widen(struct kin *k, int64_t a, int64_t b)
{
    if (!k->have_times || a < k->lo)
        k->lo = a;
    if (!k->have_times || b > k->hi)
        k->hi = b;
    k->have_times = 1;
}

/* an int member, or def */
static int64_t member(struct kin *k, const struct jnode *obj, const char *key, int64_t def)
{
    int ok;
    int64_t v = js_int(&k->j, obj, key, &ok);
    return ok ? v : def;
}

static void host_pid(struct kin *k, const struct jnode *ev)
{
    int ok;
    int64_t pid = js_int(&k->j, ev, "pid", &ok);
    if (ok && !k->pid && pid > 0 && pid < (1ll << 31))
        k->pid = (int)pid;
}

/* The times of an X event, or -1 if it has none. */
static int times(struct kin *k, const struct jnode *ev, int64_t *start, int64_t *end)
{
    int64_t dur = 0;
    if (js_us_to_ns(js_get(&k->j, ev, "ts"), start) != 0)
        return -1;
    const struct jnode *d = js_get(&k->j, ev, "dur");
    if (d && js_us_to_ns(d, &dur) != 0)
        return -1;
    if (dur < 0)
        dur = 0;
    /* epoch times (older traces, no baseTimeNanoseconds) pass the report's
     * bound of 2^60 ns: they are kept from an hour before the first one
     * seen, the shift added to the clock offset */
    if (!k->shift_set) {
        k->shift_set = 1;
        if (*start > (1ll << 59))
            k->shift = (*start / 3600000000000ll - 1) * 3600000000000ll;
    }
    /* a time near the ends of the 64-bit range (a damaged or made-up
     * trace) that the shift or the duration would carry past them: the
     * event is left out, counted (a note) */
    if (__builtin_sub_overflow(*start, k->shift, start) || __builtin_add_overflow(*start, dur, end)) {
        k->bad_times++;
        return -1;
    }
    widen(k, *start, *end);
    return 0;
}

static void api_event(struct kin *k, const struct jnode *ev, const struct jnode *args, const char *name, int domain)
{
    int64_t start, end;
    if (times(k, ev, &start, &end) != 0)
        return;
    host_pid(k, ev);
    int ok;
    int cbid = (int)js_int(&k->j, args, "cbid", &ok);
    if (!ok) {
        cbid = kineto_cbid_of(name, domain);
        k->no_cbid += cbid < 0;
    }
    int64_t corr = member(k, args, "correlation", 0);
    out_capi(k->o, domain, cbid < 0 ? 0 : cbid, (int)member(k, ev, "tid", 0), start, end, corr, NULL);
    k->runtime++;
}

/* A group whose collectives were written without a rank, the trace's
 * rank not known yet: kept once (its ranks list too), up to MAX_LATER. */
static void rank_later(struct kin *k, int64_t comm_id, const char *ranks)
{
    for (int i = 0; i < k->nlater; i++)
        if (k->later[i].comm_id == comm_id)
            return;
    if (k->nlater == MAX_LATER)
        return;
    k->later[k->nlater].comm_id = comm_id;
    k->later[k->nlater++].ranks = ranks ? strdup(ranks) : NULL;
}

/* Those groups' collectives given the rank's place in each, once
 * distributedInfo has said the rank. */
static void ranks_later(struct kin *k)
{
    sqlite3_stmt *st = NULL;
    if (k->rank >= 0 && k->nlater)
        out_flush(k->o);
    if (k->rank >= 0 && k->nlater &&
        sqlite3_prepare_v2(k->o->db, "UPDATE collective SET rank = ? WHERE process_id = ? AND comm_id = ? AND rank = -1"
                           " AND seq != -3", -1, &st, NULL) == SQLITE_OK) {
        for (int i = 0; i < k->nlater; i++) {
            sqlite3_bind_int(st, 1, kineto_rank_in(k->later[i].ranks, k->rank));
            sqlite3_bind_int64(st, 2, k->o->pid_row);
            sqlite3_bind_int64(st, 3, k->later[i].comm_id);
            sqlite3_step(st);
            sqlite3_reset(st);
        }
    }
    sqlite3_finalize(st);
    for (int i = 0; i < k->nlater; i++)
        free(k->later[i].ranks);
    k->nlater = 0;
}

/* The collective of an NCCL kernel whose args name no operation or group
 * (older PyTorch, or a profiler run without record_shapes): a collective of
 * an invented communicator per kernel name, the same on every rank of the
 * job, numbered by its order among the rank's kernels of that name
 * (kineto_number: seq -3 becomes GT_SEQ_ORDER | k).  The name says the
 * operation, reduction, data type, algorithm and protocol, which NCCL
 * chooses alike on every rank of one operation; the report checks the
 * match before it uses it (viewer/analyse/order_match.c).  Its rank is the
 * trace's, set once the whole file is read (kineto_order_ranks). */
static void by_order(struct kin *k, const char *kname, int64_t corr, int stream, int64_t start, int64_t end)
{
    struct out_coll c = { .start = start, .end = end, .stream = stream, .peer = -1, .seq = -3, .rank = -1,
                          .datatype = -1 };
    c.api = kineto_coll_api(NULL, kname);
    c.op = kineto_redop(kname);
    char key[512];
    snprintf(key, sizeof key, "gputrace: NCCL kernels matched by order|%.*s", (int)strcspn(kname, "("), kname);
    c.comm_id = kineto_hash(key);
    if (__builtin_add_overflow(corr, 1ll << 32, &c.call_id)) {
        k->bad_args++;
        return;
    }
    /* the rank, when distributedInfo came first (as Kineto writes it):
     * then kineto_order_ranks has no UPDATE of them all to make */
    if (k->rank >= 0 && k->world > 0) {
        c.rank = k->rank;
        c.nranks = k->world;
    }
    if (!k->ord_rows++) {
        k->ord_rank = c.rank;
        k->ord_world = c.nranks;
    } else if (c.rank != k->ord_rank || c.nranks != k->ord_world) {
        k->ord_mixed = 1;
    }
    out_coll(k->o, &c);
    out_ext(k->o, c.call_id, corr);
    k->nccl_order++;
}

/* An NCCL kernel's collective, from the args PyTorch gives it. */
static void collective(struct kin *k, const struct jnode *args, const char *kname, int64_t corr, int stream,
                       int64_t start, int64_t end)
{
    const char *cname = js_str(&k->j, args, "Collective name");
    const char *pg = js_str(&k->j, args, "Process Group Name");
    const char *pg_ranks = js_str(&k->j, args, "Process Group Ranks");
    k->nccl++;
    if (!cname || !pg) { /* which operation of which group it ran is not said */
        by_order(k, kname, corr, stream, start, end);
        return;
    }
    k->nccl_args++;
    struct out_coll c = { .start = start, .end = end, .stream = stream, .peer = -1 };
    c.api = kineto_coll_api(cname, kname);
    int p2p = c.api == GT_API_ncclSend || c.api == GT_API_ncclRecv;
    c.datatype = kineto_dtype(js_str(&k->j, args, "dtype"));
    c.op = kineto_redop(kname);
    int64_t in = member(k, args, "In msg nelems", 0), outn = member(k, args, "Out msg nelems", 0);
    c.count = kineto_coll_is_scatter(c.api) ? outn : in;
    /* a correlation or a size past what 64 bits hold: no collective of
     * it (a kernel's correlation is CUPTI's 32-bit id; counted, a note) */
    if (__builtin_add_overflow(corr, 1ll << 32, &c.call_id) ||
        __builtin_mul_overflow(c.count, kineto_dtype_size(c.datatype), &c.bytes)) {
        k->bad_args++;
        return;
    }
    c.nranks = (int)member(k, args, "Group size", 0);
    /* the group: its name and members (the same on every rank of it) */
    char key[512];
    snprintf(key, sizeof key, "%s|%s", pg, pg_ranks ? pg_ranks : "");
    c.comm_id = kineto_hash(key);
    int ok;
    if (p2p) {
        /* PyTorch's record_param_comms of a send or recv
         * (ProcessGroupNCCL::send, recv) gives "Rank" the peer's rank in
         * the group, and "Seq" the next collective's number ("seq + 1 to
         * match collective"); Kineto adds the peer's global rank as "Dst
         * Rank" or "Src Rank".  The rank's own place in the group is its
         * global rank's; the number, as the tracer's (libtrace/p2p_seq.h),
         * the operation's place among this rank's sends to (receives from)
         * that peer, once the file is read (seq -4, kineto_number): in the
         * collectives' sequence it made one all-reduce different numbers
         * on different ranks. */
        int send = c.api == GT_API_ncclSend;
        int64_t peer = js_int(&k->j, args, "Rank", &ok);
        if (!ok) {
            int64_t g = member(k, args, send ? "Dst Rank" : "Src Rank", -1);
            peer = g >= 0 && g < INT32_MAX ? kineto_rank_in(pg_ranks, (int)g) : -1;
        }
        c.peer = peer >= 0 && peer < INT32_MAX ? (int)peer : -1;
        /* the rank's own side, where the trace gives it (our export does),
         * else the trace's rank, each as its place in the group */
        int64_t own = member(k, args, send ? "Src Rank" : "Dst Rank", -1);
        c.rank = kineto_rank_in(pg_ranks, own >= 0 && own < INT32_MAX ? (int)own : k->rank);
        c.seq = -4;
    } else {
        c.rank = (int)member(k, args, "Rank", kineto_rank_in(pg_ranks, k->rank));
        c.seq = js_int(&k->j, args, "Seq", &ok);
        if (!ok)
            c.seq = -2; /* numbered in issue order once the file is read (kineto_number) */
    }
    if (c.rank < 0 && k->rank < 0)
        rank_later(k, c.comm_id, pg_ranks);
    out_coll(k->o, &c);
    out_ext(k->o, c.call_id, corr);
}

static void gpu_event(struct kin *k, const struct jnode *ev, const struct jnode *args, const char *cat,
                      const char *name)
{
    struct out_gop g = { .stream = (int)member(k, args, "stream", member(k, ev, "tid", 0)),
                         .device = (int)member(k, args, "device", member(k, ev, "pid", 0)),
                         .context = (int)member(k, args, "context", 0), .corr = member(k, args, "correlation", 0) };
    if (times(k, ev, &g.start, &g.end) != 0)
        return;
    if (!strcasecmp(cat, "kernel")) {
        g.kind = 1;
        g.name_id = out_string(k->o, name);
        k->kernels++;
        if (k->device < 0)
            k->device = g.device;
        if (!strncmp(name, "nccl", 4))
            collective(k, args, name, g.corr, g.stream, g.start, g.end);
    } else if (strcasestr(cat, "memcpy")) {
        g.kind = 2;
        g.bytes = member(k, args, "bytes", 0);
        kineto_copy_kinds(name, &g.copy_kind, &g.src_kind, &g.dst_kind);
        k->copies++;
    } else if (strcasestr(cat, "memset")) {
        g.kind = 3;
        g.bytes = member(k, args, "bytes", 0);
        int dummy;
        kineto_copy_kinds(name, &g.copy_kind, &dummy, &g.dst_kind); /* "Memset (Device)" */
        g.copy_kind = 0;
        k->memsets++;
    } else { /* cuda_sync */
        g.kind = 4;
        const char *kind = js_str(&k->j, args, "cuda_sync_kind");
        g.sync_type = kineto_sync_type(kind ? kind : name);
        g.event_id = (int)member(k, args, "wait_on_cuda_event_id", -1);
        if (g.stream == -1 || g.stream == (int)0xFFFFFFFF)
            g.stream = -1;
        k->syncs++;
        k->event_syncs += g.sync_type == 1;
    }
    out_gop(k->o, &g);
}

static void range_event(struct kin *k, const struct jnode *ev, const char *name)
{
    int64_t start, end;
    if (times(k, ev, &start, &end) != 0)
        return;
    host_pid(k, ev);
    out_nvtx(k->o, (int)member(k, ev, "tid", 0), 1, 0, out_label(k->o, name), start, end, NULL);
    k->ranges++;
}

static void meta_event(struct kin *k, const struct jnode *ev, const char *name)
{
    const struct jnode *args = js_get(&k->j, ev, "args");
    int ok;
    int64_t pid = js_int(&k->j, ev, "pid", &ok);
    /* a pid of MAX_DEVICES or less is a device's (Kineto's GPU "processes"
     * are their ids) unless labelled "CPU": a host process can have one
     * too (pid 1 in a container); its names are kept until the end, when
     * the host's pid is known (low_names) */
    int low = ok && pid >= 0 && pid <= MAX_DEVICES;
    if (!strcmp(name, "process_labels") && low) {
        const char *l = js_str(&k->j, args, "labels");
        k->low_cpu[pid] |= l && !strcmp(l, "CPU");
        return;
    }
    const char *v = js_str(&k->j, args, "name");
    if (!v || !ok)
        return;
    if (!strcmp(name, "process_name") && low && !k->low_name[pid]) {
        k->low_name[pid] = strdup(v);
    } else if (!strcmp(name, "process_name") && pid > MAX_DEVICES && !k->cmdline) {
        k->cmdline = strdup(v);
    } else if (!strcmp(name, "thread_name")) {
        int64_t tid = js_int(&k->j, ev, "tid", &ok);
        if (ok && pid > MAX_DEVICES)
            out_thread_name(k->o, (int)tid, v);
        else if (ok && low && k->nlow_threads < MAX_LOW_THREADS) {
            struct low_thread *t = &k->low_threads[k->nlow_threads];
            if ((t->name = strdup(v))) {
                t->pid = (int)pid;
                t->tid = (int)tid;
                k->nlow_threads++;
            }
        }
    }
}

/* The names kept of pids MAX_DEVICES or less: the host's, where its pid
 * is one of them and Kineto labelled it "CPU". */
static void low_names(struct kin *k)
{
    if (k->pid > 0 && k->pid <= MAX_DEVICES && k->low_cpu[k->pid]) {
        if (!k->cmdline && k->low_name[k->pid])
            k->cmdline = strdup(k->low_name[k->pid]);
        for (int i = 0; i < k->nlow_threads; i++)
            if (k->low_threads[i].pid == k->pid)
                out_thread_name(k->o, k->low_threads[i].tid, k->low_threads[i].name);
    }
    for (int i = 0; i <= MAX_DEVICES; i++)
        free(k->low_name[i]);
    for (int i = 0; i < k->nlow_threads; i++)
        free(k->low_threads[i].name);
}

/* CPU operators: no table of ours holds them; an NCCL call with the
 * correlation of its kernel (gputrace-report --kineto writes them so)
 * gives its collective the call's host times (kineto_number). */
static void cpu_op(struct kin *k, const struct jnode *ev, const struct jnode *args, const char *name)
{
    host_pid(k, ev);
    int ok, has_seq;
    int64_t corr = js_int(&k->j, args, "correlation", &ok), start, end;
    int64_t seq = js_int(&k->j, args, "Seq", &has_seq);
    const char *pg = js_str(&k->j, args, "Process Group Name"), *pg_ranks = js_str(&k->j, args, "Process Group Ranks");
    if (strncmp(name, "nccl", 4) || !k->host_call || times(k, ev, &start, &end) != 0)
        return;
    if (has_seq && pg && k->host_seq) { /* matched to its kernel by group and number, where the correlation is not */
        char key[512];
        snprintf(key, sizeof key, "%s|%s", pg, pg_ranks ? pg_ranks : "");
        sqlite3_bind_int64(k->host_seq, 1, k->o->pid_row);
        sqlite3_bind_int64(k->host_seq, 2, kineto_hash(key));
        sqlite3_bind_int64(k->host_seq, 3, seq);
        sqlite3_bind_int64(k->host_seq, 4, start);
        sqlite3_bind_int64(k->host_seq, 5, end);
        sqlite3_step(k->host_seq);
        sqlite3_reset(k->host_seq);
    }
    if (!ok)
        return;
    sqlite3_bind_int64(k->host_call, 1, k->o->pid_row);
    sqlite3_bind_int64(k->host_call, 2, corr);
    sqlite3_bind_int64(k->host_call, 3, start);
    sqlite3_bind_int64(k->host_call, 4, end);
    sqlite3_step(k->host_call);
    sqlite3_reset(k->host_call);
}

static void event(struct kin *k, int32_t root)
{
    const struct jnode *ev = js_node(&k->j, root);
    k->events++;
    if (ev->type != J_OBJ) {
        k->skipped++;
        return;
    }
    const char *ph = js_str(&k->j, ev, "ph"), *cat = js_str(&k->j, ev, "cat"), *name = js_str(&k->j, ev, "name");
    if (!ph || !name) {
        k->skipped++;
        return;
    }
    const struct jnode *args = js_get(&k->j, ev, "args");
    if (!strcmp(ph, "M")) {
        meta_event(k, ev, name);
        return;
    }
    if ((!strcmp(ph, "s") || !strcmp(ph, "f")) && cat && !strcmp(cat, "ac2g")) {
        k->flows++; /* the same link as the correlation both ends carry */
        return;
    }
    if (strcmp(ph, "X") || !cat) {
        k->skipped++;
        return;
    }
    if (!strcmp(cat, "cuda_runtime") || !strcasecmp(cat, "runtime"))
        api_event(k, ev, args, name, 1);
    else if (!strcmp(cat, "cuda_driver") || !strcasecmp(cat, "driver"))
        api_event(k, ev, args, name, 2);
    else if (!strcasecmp(cat, "kernel") || !strcmp(cat, "gpu_memcpy") || !strcasecmp(cat, "memcpy") ||
             !strcmp(cat, "gpu_memset") || !strcasecmp(cat, "memset") || !strcmp(cat, "cuda_sync"))
        gpu_event(k, ev, args, cat, name);
    else if (!strcmp(cat, "user_annotation") || (!strncmp(name, "ProfilerStep#", 13) && strcmp(cat, "gpu_user_annotation")))
        range_event(k, ev, name);
    else if (!strcmp(cat, "cpu_op") || !strcasecmp(cat, "operator") || !strcmp(cat, "python_function"))
        cpu_op(k, ev, args, name);
    else
        k->skipped++;
}

/* Whether the rest of an event is wanted, once ph, cat and name (which
 * Kineto writes first, but for flows) are read: not for flows (known by
 * ph alone) and CPU operators (but ProfilerStep#N), which no table holds;
 * their pid is read if it came. */
static int wanted(void *ctx, struct jstream *j, int32_t member)
{
    struct kin *k = ctx;
    const struct jnode *m = js_node(j, member);
    /* each member once, as it comes: a look at the whole event each time
     * was a tenth of the import */
    int first_ph = 0;
    if (m->type == J_STR && m->klen == 2 && !memcmp(m->key, "ph", 2)) {
        first_ph = k->ph < 0;
        k->ph = member;
    } else if (m->type == J_STR && m->klen == 3 && !memcmp(m->key, "cat", 3))
        k->cat = member;
    else if (m->type == J_STR && m->klen == 4 && !memcmp(m->key, "name", 4))
        k->name = member;
    /* by index: the text arena may move as the event is read (its nodes' pointers are fixed then) */
    const char *ph = k->ph >= 0 ? js_node(j, k->ph)->s : NULL, *cat = k->cat >= 0 ? js_node(j, k->cat)->s : NULL,
               *name = k->name >= 0 ? js_node(j, k->name)->s : NULL;
    /* a flow's end ("s", "f": two events in five of a trace), or any
     * event whose first "ph" says so, only counts, whatever its cat and
     * name (event() reads the first "ph"): its rest is skipped as soon as
     * that "ph" is read, not parsed up to its cat and name, which Kineto
     * writes last.  Only where the rest is in the buffer (2): else the
     * parse reads on as before, and a file cut short inside the event
     * stops with the same message.  next_event() counts it. */
    if (!ph || !cat || !name)
        return first_ph && (!strcmp(ph, "s") || !strcmp(ph, "f")) ? 2
               : ph && strcmp(ph, "X") && strcmp(ph, "s") && strcmp(ph, "f") ? 1 : -1;
    if ((!strcmp(ph, "s") || !strcmp(ph, "f")) && !strcmp(cat, "ac2g")) {
        k->flows++;
        k->events++;
        return 0;
    }
    if (!strcmp(ph, "X") && !strcmp(cat, "cpu_op") && strncmp(name, "ProfilerStep#", 13) && strncmp(name, "nccl", 4) &&
        k->pid) {
        k->events++;
        return 0;
    }
    return 1;
}

static void next_event(struct kin *k)
{
    int64_t before = (int64_t)k->events;
    k->ph = k->cat = k->name = -1;
    int32_t root = js_object(&k->j, wanted, k);
    if (k->j.skipped_here) { /* a flow (wanted's 2) */
        k->flows++;
        k->events++;
        return;
    }
    if ((int64_t)k->events == before)
        event(k, root);
}

/* "2.17.1" as NCCL_VERSION_CODE (21701, as since NCCL 2.9): 0, or -1 if
 * it is not three numbers each below 100 (nothing stored then). */
static int nccl_version_code(const char *s, int *code)
{
    int part[3];
    for (int i = 0; i < 3; i++) {
        if (*s < '0' || *s > '9')
            return -1;
        char *end;
        long v = strtol(s, &end, 10);
        if (v > 99 || end - s > 2 || (i < 2 && *end != '.')) /* (after the patch level, anything) */
            return -1;
        part[i] = (int)v;
        s = end + (i < 2);
    }
    *code = part[0] * 10000 + part[1] * 100 + part[2];
    return 0;
}

static void top_member(struct kin *k, const char *key)
{
    if (!strcmp(key, "traceEvents")) {
        js_expect(&k->j, '[');
        if (js_peek(&k->j) == ']') {
            js_next(&k->j);
            return;
        }
        for (;;) {
            next_event(k);
            int c = js_next(&k->j);
            if (c == ']')
                return;
            if (c != ',')
                js_fail(&k->j, c < 0 ? "truncated: the file ends inside traceEvents%s" : "not JSON: '%s' in traceEvents",
                        c < 0 ? "" : js_shown(c, (char[8]){ 0 }));
        }
    }
    int32_t root = js_value(&k->j, 1);
    const struct jnode *v = js_node(&k->j, root);
    if (!strcmp(key, "baseTimeNanoseconds") && v->type == J_NUM) {
        /* epoch ns, 0 to 2^62 (the year 2116), decimals dropped: else not
         * a clock this reader can use (ignored, a note) */
        errno = 0;
        char *end;
        long long base = strtoll(v->s, &end, 10);
        int whole = !*end || (*end == '.' && strspn(end + 1, "0123456789") == strlen(end + 1));
        if (!errno && whole && base >= 0 && base <= (1ll << 62)) {
            k->base_ns = base;
            k->have_base = 1;
        } else {
            char t[200];
            snprintf(t, sizeof t, "baseTimeNanoseconds %.40s is not a time in ns since 1970 this reader can use:"
                     " the clock offset is not set from it", v->s);
            out_note(k->o, "import", t);
        }
    } else if (!strcmp(key, "distributedInfo") && v->type == J_OBJ) {
        k->rank = (int)member(k, v, "rank", -1);
        k->world = (int)member(k, v, "world_size", -1);
        /* our own export's process without a rank (viewer/write/kineto_export.c):
         * numbered past the ranks for HTA, no rank */
        const struct jnode *u = js_get(&k->j, v, "gputrace_unranked");
        if (u && u->type == J_TRUE)
            k->rank = -1;
        const char *nv = js_str(&k->j, v, "nccl_version");
        char t[200];
        if (nv && strcmp(nv, "unknown") && nccl_version_code(nv, &k->nccl_version) != 0) { /* "unknown": Kineto could not tell */
            snprintf(t, sizeof t, "distributedInfo.nccl_version \"%.60s\" is no NCCL version (major.minor.patch,"
                     " each below 100): not stored", nv);
            out_note(k->o, "import", t);
        }
    } else if (!strcmp(key, "deviceProperties") && v->type == J_ARR) {
        for (int32_t c = v->child; c >= 0; c = k->j.nodes[c].next) {
            const struct jnode *d = &k->j.nodes[c];
            int ok;
            int64_t id = js_int(&k->j, d, "id", &ok);
            const char *n = js_str(&k->j, d, "name");
            if (ok && n && id >= 0 && id < MAX_DEVICES && !k->gpu_names[id])
                k->gpu_names[id] = strdup(n);
        }
    }
}

static void walk(struct kin *k)
{
    js_skip_bom(&k->j);
    int c = js_next(&k->j);
    if (c == '[') { /* the bare-array form of the trace event format */
        k->saw_events = 1;
        if (js_peek(&k->j) == ']') {
            js_next(&k->j);
            return;
        }
        for (;;) {
            next_event(k);
            int d = js_next(&k->j);
            if (d == ']')
                return;
            if (d != ',')
                js_fail(&k->j, d < 0 ? "truncated: the file ends inside the event array%s" : "not JSON: '%s' between events",
                        d < 0 ? "" : js_shown(d, (char[8]){ 0 }));
        }
    }
    if (c != '{')
        js_fail(&k->j, c < 0 ? "empty file%s" : "not a JSON trace (it starts with '%s')",
                c < 0 ? "" : js_shown(c, (char[8]){ 0 }));
    if (js_peek(&k->j) == '}') {
        js_next(&k->j);
        return;
    }
    for (;;) {
        js_expect(&k->j, '"');
        js_reset(&k->j);
        uint32_t len;
        char key[64];
        snprintf(key, sizeof key, "%s", js_string(&k->j, &len));
        js_expect(&k->j, ':');
        if (!strcmp(key, "traceEvents"))
            k->saw_events = 1;
        top_member(k, key);
        int d = js_next(&k->j);
        if (d == '}')
            return;
        if (d != ',')
            js_fail(&k->j, d < 0 ? "truncated: the file ends inside the top-level object%s" : "not JSON: '%s' between members",
                    d < 0 ? "" : js_shown(d, (char[8]){ 0 }));
    }
}

static void notes(struct kin *k)
{
    char t[512];
    if (k->no_cbid) {
        snprintf(t, sizeof t, "%llu runtime/driver events had no cbid and a name we do not know: their calls are not analysed",
                 (unsigned long long)k->no_cbid);
        out_note(k->o, "import", t);
    }
    if (k->nccl && k->nccl_args < k->nccl && k->nccl_order && k->rank >= 0 && k->world > 0) {
        snprintf(t, sizeof t, "%llu of %llu NCCL kernels carry no collective args (name, process group): matched"
                 " across ranks by their order among the rank's kernels of the same name, once the report has"
                 " checked that the ranks' kernels agree (docs/report.md); no comm.mismatch is looked for in them",
                 (unsigned long long)(k->nccl - k->nccl_args), (unsigned long long)k->nccl);
        out_note(k->o, "comm.*", t);
    } else if (k->nccl && k->nccl_args < k->nccl) {
        snprintf(t, sizeof t, "%llu of %llu NCCL kernels carry no collective args (name, process group) and the trace"
                 " names no rank: they count as communication time, but are no collectives to match across ranks",
                 (unsigned long long)(k->nccl - k->nccl_args), (unsigned long long)k->nccl);
        out_note(k->o, "comm.*", t);
    }
    if (!k->syncs)
        out_note(k->o, "sync.*", "no cuda_sync events: which stream a cudaStreamSynchronize waited for, and which"
                 " event a cudaEventSynchronize, is unknown; those syncs are counted, not analysed");
    else if (k->event_syncs)
        out_note(k->o, "sync.* (event syncs)", "Kineto's calls carry no event handles: a cudaEventSynchronize is"
                 " analysed only through the stream its cuda_sync event names");
    if (k->bad_times) {
        snprintf(t, sizeof t, "%llu events with times past what 64-bit nanoseconds hold (ts, dur) were left out",
                 (unsigned long long)k->bad_times);
        out_note(k->o, "import", t);
    }
    if (k->bad_args) {
        snprintf(t, sizeof t, "%llu NCCL kernels with a correlation or a size (count x dtype) past 64 bits: no"
                 " collective made of them", (unsigned long long)k->bad_args);
        out_note(k->o, "comm.*", t);
    }
    out_note(k->o, "comm.hang", "a Kineto trace holds finished events only: no call in flight to find a hang by");
    out_note(k->o, "call sites", "Kineto records no call stacks of CUDA calls: findings are grouped by API, not by"
             " call site");
}

int import_kineto_file(struct out_db *o, const char *path, char *err, size_t errlen)
{
    struct kin *k = calloc(1, sizeof *k);
    if (!k) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    k->o = o;
    k->rank = k->world = k->device = -1;
    if (js_open(&k->j, path) != 0) {
        snprintf(err, errlen, "%s: %s", path, k->j.err);
        free(k);
        return -1;
    }
    out_begin_process(o);
    if (out_exec(o, "CREATE TEMP TABLE IF NOT EXISTS import_host(process_id INTEGER, corr INTEGER, hs INTEGER,"
                    " he INTEGER); CREATE TEMP TABLE IF NOT EXISTS import_host_seq(process_id INTEGER,"
                    " comm_id INTEGER, seq INTEGER, hs INTEGER, he INTEGER)") == 0) {
        sqlite3_prepare_v2(o->db, "INSERT INTO import_host VALUES(?,?,?,?)", -1, &k->host_call, NULL);
        sqlite3_prepare_v2(o->db, "INSERT INTO import_host_seq VALUES(?,?,?,?,?)", -1, &k->host_seq, NULL);
    }
    jmp_buf on_error;
    k->j.on_error = &on_error;
    int rc = 0, refused = 0;
    if (setjmp(on_error) == 0) {
        walk(k);
        if (js_next(&k->j) >= 0)
            js_fail(&k->j, "not JSON: more after the trace's end");
        if (!k->saw_events)
            js_fail(&k->j, "not a Kineto trace: no traceEvents");
    } else {
        rc = -1;
    }
    if (rc == 0 && !k->runtime && !k->kernels && !k->copies && !k->memsets && !k->ranges) {
        snprintf(k->j.err, sizeof k->j.err, "not a Kineto trace: no CUDA or annotation events among %llu",
                 (unsigned long long)k->events);
        rc = -1;
        refused = 1; /* read to its end: not cut short, refused (however many events it had) */
    }
    if (rc != 0) {
        snprintf(err, errlen, "%s: %s", path, k->j.err);
        if (k->events && !refused) { /* a partial import: what was read stays, with a note */
            char t[400];
            snprintf(t, sizeof t, "the import stopped early: %s; %llu events before it were read", k->j.err,
                     (unsigned long long)k->events);
            out_note(o, "import", t);
        }
    }
    sqlite3_finalize(k->host_call);
    sqlite3_finalize(k->host_seq);
    k->host_call = k->host_seq = NULL;
    /* kernels without collective args: kept only with a rank, which they
     * have already if all were written after distributedInfo was read */
    if (k->rank < 0 || k->world <= 0 || k->ord_mixed ||
        (k->ord_rows && (k->ord_rank != k->rank || k->ord_world != k->world)))
        kineto_order_ranks(o, k->rank, k->world);
    ranks_later(k);
    low_names(k);
    kineto_number(o); /* collectives without a sequence number: numbered per group in order */
    notes(k);
    char source[4200];
    snprintf(source, sizeof source, "kineto:%s", path);
    struct out_process p = { .host = "", .cmdline = k->cmdline, .source = source, .pid = k->pid, .rank = k->rank,
                             .local_rank = -1, .world_size = k->world, .device = k->device,
                             .nccl_version = k->nccl_version, .start_ns = k->lo, .end_ns = k->hi };
    /* a base and a shift (times both epoch-based: made up) past 64 bits: the shift alone */
    if (__builtin_add_overflow(k->have_base ? k->base_ns : 0, k->shift, &p.clock_offset_ns))
        p.clock_offset_ns = k->shift;
    if (k->device >= 0 && k->device < MAX_DEVICES)
        p.gpu_name = k->gpu_names[k->device];
    out_end_process(o, &p);
    free(k->cmdline);
    for (int i = 0; i < MAX_DEVICES; i++)
        free(k->gpu_names[i]);
    js_close(&k->j);
    int partial = rc != 0 && k->events > 0 && !refused;
    free(k);
    return partial ? 1 : rc;
}
