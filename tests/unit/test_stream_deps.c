/* test_stream_deps.c: the dependency clocks of streams and events
 * (viewer/analyse/stream_deps.h): what a sync transitively waits for. */
#include "viewer/analyse/stream_deps.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

/* The cutoff the clock gives stream h, or -1 if it does not name it. */
static int64_t cutoff(const struct dep_clock *c, int64_t h)
{
    for (int i = 0; i < c->n; i++)
        if (c->e[i].handle == h)
            return c->e[i].t;
    return -1;
}

Test(stream_deps, chain_of_events)
{
    struct stream_deps d = { 0 };
    /* compute (0x10) -> side (0x20) -> nccl (0x30) -> compute, as pg_sync.c */
    deps_record(&d, 0x100, 0x10, 100);
    cr_assert(deps_wait(&d, 0x20, 0x100));
    deps_record(&d, 0x200, 0x20, 200);
    cr_assert(deps_wait(&d, 0x30, 0x200));
    deps_record(&d, 0x300, 0x30, 300);
    cr_assert(deps_wait(&d, 0x10, 0x300));
    struct dep_clock s;
    deps_stream_scope(&d, 0x10, 400, &s);
    cr_expect_eq(cutoff(&s, 0x10), 400); /* its own stream up to the sync */
    cr_expect_eq(cutoff(&s, 0x30), 300); /* the all-reduce's stream up to the end event */
    cr_expect_eq(cutoff(&s, 0x20), 200); /* and what that waited for */
    /* an event sync: the event's record and what its stream waited for */
    const struct dep_clock *e = deps_event(&d, 0x200);
    cr_assert(e);
    cr_expect_eq(cutoff(e, 0x20), 200);
    cr_expect_eq(cutoff(e, 0x10), 100);
    cr_expect_eq(cutoff(e, 0x30), -1);
    /* a wait for an event never recorded waits for nothing */
    cr_expect_not(deps_wait(&d, 0x10, 0x999));
    /* a record replaces the event's earlier one */
    deps_record(&d, 0x100, 0x40, 500);
    e = deps_event(&d, 0x100);
    cr_expect_eq(cutoff(e, 0x40), 500);
    cr_expect_eq(cutoff(e, 0x10), -1);
    deps_free(&d);
}

Test(stream_deps, legacy_default_stream)
{
    struct stream_deps d = { 0 };
    deps_created(&d, 0x10, 0); /* blocking */
    deps_created(&d, 0x20, 1); /* cudaStreamNonBlocking */
    deps_launch(&d, 0, 100);   /* legacy work waits for every blocking stream's earlier work */
    struct dep_clock s;
    deps_stream_scope(&d, 0, 150, &s);
    cr_expect_eq(s.all, 100);
    cr_expect_eq(d.nblocking, 1);
    cr_expect_eq(d.blocking[0], 0x10);
    /* a blocking stream's later work waits for the legacy stream's */
    deps_launch(&d, 0x10, 200);
    deps_stream_scope(&d, 0x10, 250, &s);
    cr_expect_eq(cutoff(&s, 0), 200);
    cr_expect_eq(s.all, 100);
    /* a non-blocking one's does not */
    deps_launch(&d, 0x20, 200);
    deps_stream_scope(&d, 0x20, 250, &s);
    cr_expect_eq(cutoff(&s, 0), -1);
    cr_expect_eq(s.all, INT64_MIN);
    deps_free(&d);
}

/* cudaStreamLegacy (1) and 0 are one stream: work launched on one and an
 * event recorded on the other (or a wait) meet on one clock */
Test(stream_deps, legacy_handles_one_stream)
{
    struct stream_deps d = { 0 };
    deps_created(&d, 0x10, 0);  /* blocking */
    deps_launch(&d, 0, 100);    /* on 0: waits for every blocking stream's earlier work */
    deps_record(&d, 0x100, 1, 150); /* recorded on cudaStreamLegacy */
    const struct dep_clock *e = deps_event(&d, 0x100);
    cr_assert(e);
    cr_expect_eq(e->all, 100);           /* it carries the legacy launch's wait */
    cr_expect_eq(cutoff(e, 0), 150);     /* named as the one legacy stream */
    cr_expect_eq(cutoff(e, 1), -1);
    deps_record(&d, 0x200, 0x20, 300);
    cr_assert(deps_wait(&d, 1, 0x200)); /* a wait on cudaStreamLegacy: the legacy stream's clock */
    struct dep_clock s;
    deps_stream_scope(&d, 0, 400, &s);
    cr_expect_eq(cutoff(&s, 0x20), 300);
    deps_free(&d);
}

Test(stream_deps, clock_keeps_the_newest)
{
    struct stream_deps d = { 0 };
    /* more streams than a clock names: the oldest entries go, never the newest */
    for (int i = 0; i < DEP_STREAMS + 4; i++) {
        deps_record(&d, 0x1000 + i, 0x10 + i, 100 + i);
        deps_wait(&d, 0x5, 0x1000 + i);
    }
    struct dep_clock s;
    deps_stream_scope(&d, 0x5, 1000, &s);
    cr_expect_eq(s.n, DEP_STREAMS);
    cr_expect_eq(cutoff(&s, 0x5), 1000);
    cr_expect_eq(cutoff(&s, 0x10 + DEP_STREAMS + 3), 100 + DEP_STREAMS + 3);
    cr_expect_eq(cutoff(&s, 0x10), -1);
    deps_free(&d);
}
