/* test_clock_align.c: the hosts' clocks fitted from the collectives
 * (viewer/analyse/clock_align.c) on made-up runs whose clock errors are
 * known: an offset with drift over a long run, jitter and outliers; a host
 * that shares no collective with the reference; hosts that share none at
 * all; point-to-point operations, which must not be used; and a straggler
 * whose lead is within the residual losing confidence. */
#include "viewer/analyse/clock_align.h"
#include "viewer/analyse/coll_spill.h"
#include "viewer/write/finding_out.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { API_ALLREDUCE = 1, API_SEND = 2 };

#define NPROCS 5
static struct model m;
static struct proc procs[NPROCS];
static struct coll_spill spill;

/* A deterministic jitter in [-amp, amp]. */
static int64_t jitter(unsigned *s, int64_t amp)
{
    *s = *s * 1103515245u + 12345u;
    return (int64_t)((*s >> 8) % (unsigned)(2 * amp + 1)) - amp;
}

/* The true clock error of process pi at true time t (ns). */
static int64_t true_error(size_t pi, int64_t t)
{
    if (!strcmp(procs[pi].host, "b"))
        return 3000000 + (int64_t)(20e-6 * (double)t); /* 3 ms ahead, drifting 20 ppm */
    if (!strcmp(procs[pi].host, "c"))
        return -7000000;
    return 0;
}

/* Hosts a (ranks 0, 1), b (2, 3), c (4).  Every 50 ms for 100 s one
 * all-reduce (comm 1) of ranks 0-3, ending at the same true time on all,
 * each end seen on its host's clock with +-20 us of jitter; one in 20 on
 * host b ends 2 ms late (a descheduled rank: an outlier).  Rank 4 is on
 * communicator 2 alone (c shares nothing with a), unless `c_shares`.  With
 * `api` the operations are of that API. */
static void make_run(int c_shares, int api, int ncolls)
{
    static const char *const hosts[NPROCS] = { "a", "a", "b", "b", "c" };
    memset(procs, 0, sizeof procs);
    unsigned seed = 7;
    for (size_t pi = 0; pi < NPROCS; pi++) {
        struct proc *p = &procs[pi];
        snprintf(p->host, sizeof p->host, "%s", hosts[pi]);
        p->rank = (int)pi;
        p->colls = calloc((size_t)ncolls + 1, sizeof *p->colls);
        p->ncolls = (size_t)ncolls;
        for (int i = 0; i < ncolls; i++) {
            int64_t t = 1000000000 + (int64_t)i * 50000000; /* true end */
            int64_t end = t + true_error(pi, t) + jitter(&seed, 20000), late = 0;
            if (pi == 2 && i % 20 == 7)
                late = 2000000; /* its kernel ended late; it started with the others */
            int alone = pi == 4 && !c_shares;
            p->colls[i] = (struct coll){ .comm = alone ? 2 : 1, .seq = i, .start = end - 11000000,
                                         .gstart = end - 10000000, .gend = end + late, .api = api,
                                         .rank = alone ? 0 : (int)pi, .nranks = alone ? 1 : (c_shares ? 5 : 4),
                                         .gstream = 1 };
        }
    }
    m = (struct model){ .procs = procs, .nprocs = NPROCS };
    model_set_api(&m, API_ALLREDUCE, "ncclAllReduce"); /* the report's own API table */
    model_set_api(&m, API_SEND, "ncclSend");
    coll_spill_open(&spill, NPROCS);
    for (size_t pi = 0; pi < NPROCS; pi++)
        coll_spill_add(&spill, &m, pi);
}

static void free_run(void)
{
    coll_spill_close(&spill);
    clock_align_free(&m);
    for (int i = 0; i < m.napis; i++)
        free(m.api_names[i]);
    free(m.api_names);
    free(m.roles);
    free(m.answers);
    for (size_t pi = 0; pi < NPROCS; pi++)
        free(procs[pi].colls);
}

static const struct host_clock *host(const char *name)
{
    for (size_t h = 0; h < m.clock->nhosts; h++)
        if (!strcmp(m.clock->hosts[h].host, name))
            return &m.clock->hosts[h];
    cr_assert_fail("no host %s", name);
    return NULL;
}

Test(clock_align, offset_and_drift_fitted_outliers_left_out)
{
    make_run(0, API_ALLREDUCE, 2000);
    clock_align_fit(&m, &spill);
    cr_assert_eq(m.clock->nhosts, 3);
    cr_assert(host("a")->reference);
    const struct host_clock *b = host("b");
    cr_assert(b->aligned);
    cr_assert_eq(b->shared, 2000);
    /* one in 20 late: trimmed */
    cr_assert(b->outliers >= 90 && b->outliers <= 110, "outliers %lld", (long long)b->outliers);
    cr_assert(fabs(b->drift_ppm - 20.0) < 1.0, "drift %.3f ppm", b->drift_ppm);
    cr_assert(b->residual_ns > 0 && b->residual_ns < 30000, "residual %lld", (long long)b->residual_ns);
    /* host c shares nothing with the reference: left on its clock, and said */
    cr_assert(!host("c")->aligned);
    cr_assert_eq(m.clock->unaligned, 1);
    cr_assert_eq(procs[4].align.on, 0);
    /* every end of host b now within the jitter of the reference's, over
     * the whole run (the drift included) */
    for (int i = 0; i < 2000; i += 97) {
        if (i % 20 == 7)
            continue;
        int64_t ref = model_aligned(&m, &procs[0], procs[0].colls[i].gend);
        int64_t got = model_aligned(&m, &procs[3], procs[3].colls[i].gend);
        cr_assert(llabs(got - ref) < 60000, "collective %d: %lld ns apart", i, (long long)(got - ref));
    }
    free_run();
}

Test(clock_align, short_run_offset_only)
{
    make_run(1, API_ALLREDUCE, 10); /* 0.5 s: too short to tell a drift */
    clock_align_fit(&m, &spill);
    const struct host_clock *b = host("b"), *c = host("c");
    cr_assert(b->aligned && c->aligned);
    cr_assert_eq(b->drift_ppm, 0.0);
    cr_assert(llabs(b->offset_ns - 3010000) < 40000, "offset %lld", (long long)b->offset_ns);
    cr_assert(llabs(c->offset_ns + 7000000) < 40000, "offset %lld", (long long)c->offset_ns);
    cr_assert_eq(m.clock->unaligned, 0);
    /* host c ran behind: the run's start moved back, no aligned time is negative */
    for (size_t pi = 0; pi < NPROCS; pi++)
        cr_assert_geq(model_aligned(&m, &procs[pi], procs[pi].colls[0].start), 0);
    free_run();
}

Test(clock_align, point_to_point_not_used)
{
    make_run(1, API_SEND, 50);
    clock_align_fit(&m, &spill);
    cr_assert_eq(m.clock->across, 0);
    cr_assert(!host("b")->aligned);
    cr_assert_eq(procs[2].align.on, 0);
    free_run();
}

Test(clock_align, no_collective_across_hosts)
{
    make_run(0, API_ALLREDUCE, 50);
    for (size_t pi = 2; pi < 4; pi++) /* host b on a communicator of its own */
        for (size_t i = 0; i < procs[pi].ncolls; i++)
            procs[pi].colls[i].comm = 3;
    coll_spill_close(&spill);
    coll_spill_open(&spill, NPROCS);
    for (size_t pi = 0; pi < NPROCS; pi++)
        coll_spill_add(&spill, &m, pi);
    clock_align_fit(&m, &spill);
    cr_assert_eq(m.clock->across, 0);
    cr_assert_eq(m.clock->unaligned, 2);
    cr_assert_eq(m.clock->residual_ns, 0);
    free_run();
}

Test(clock_align, one_host_nothing_to_do)
{
    make_run(1, API_ALLREDUCE, 20);
    for (size_t pi = 0; pi < NPROCS; pi++)
        snprintf(procs[pi].host, sizeof procs[pi].host, "a");
    cr_assert(!clock_align_hosts(&m));
    clock_align_fit(&m, &spill);
    cr_assert_eq(m.clock->nhosts, 1);
    cr_assert_eq(m.clock->across, 0);
    for (size_t pi = 0; pi < NPROCS; pi++)
        cr_assert_eq(procs[pi].align.on, 0);
    free_run();
}

/* A straggler on host b whose lead over the next rank is smaller than 3x
 * the residual is low confidence; one well clear of it keeps its own. */
Test(clock_align, straggler_within_residual_low_confidence)
{
    for (int lead_us = 20; lead_us <= 5000; lead_us += 4980) {
        make_run(1, API_ALLREDUCE, 200);
        for (size_t i = 0; i < procs[2].ncolls; i++) /* rank 2's kernels start last; the ends stay together */
            procs[2].colls[i].gstart += lead_us * 1000;
        coll_spill_close(&spill);
        coll_spill_open(&spill, NPROCS);
        for (size_t pi = 0; pi < NPROCS; pi++)
            coll_spill_add(&spill, &m, pi);
        clock_align_fit(&m, &spill);
        struct findings fs = { 0 };
        struct finding f = { .kind = F_COMM_STRAGGLER, .proc = 2, .rank = 2, .confidence = "high" };
        fs.v = &f;
        fs.n = 1;
        clock_align_confidence(&m, &fs, &spill);
        if (lead_us == 20) {
            cr_assert_str_eq(f.confidence, "low", "lead %d us, residual %lld ns", lead_us,
                             (long long)m.clock->residual_ns);
            char text[FINDING_TEXT_LEN];
            cr_assert(strstr(finding_message(&m, &f, text, sizeof text), "(low confidence: its mean lead, "),
                      "the message says why: %s", text);
        }
        else
            cr_assert_str_eq(f.confidence, "high", "lead %d us, residual %lld ns", lead_us,
                             (long long)m.clock->residual_ns);
        free_run();
    }
}
