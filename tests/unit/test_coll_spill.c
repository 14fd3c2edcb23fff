/* test_coll_spill.c: every rank's collectives through the report's
 * temporary file (viewer/analyse/coll_spill.c), against sorting them all in memory
 * by (communicator, sequence, process, index), as the analyses across
 * ranks did before: with the file, with no file to be had, and with a file
 * that fills up part-way; each process's written whole or in batches (a
 * window at a time); and the scratch store beneath (viewer/model/tmpstore.c)
 * with nothing in it. */
#include "viewer/analyse/coll_spill.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define NPROCS 6

static struct model m;
static struct proc procs[NPROCS];

/* Collectives on a few communicators with sequences that repeat, in a
 * process's own order too (a damaged file's duplicates); process 3 has
 * none, process 5 uses a communicator no one else does. */
static void make_run(unsigned seed, size_t per_proc)
{
    srand(seed);
    memset(procs, 0, sizeof procs);
    for (int pi = 0; pi < NPROCS; pi++) {
        struct proc *p = &procs[pi];
        p->ncolls = pi == 3 ? 0 : per_proc / 2 + (size_t)rand() % per_proc;
        p->colls = calloc(p->ncolls + 1, sizeof *p->colls);
        for (size_t i = 0; i < p->ncolls; i++)
            p->colls[i] = (struct coll){ .comm = pi == 5 ? 99 : 1 + rand() % 4, .seq = rand() % 300,
                                         .start = (int64_t)i * 1000, .gstart = rand() % 7 ? (int64_t)i * 1000 + 5 : 0,
                                         .gend = (int64_t)i * 1000 + 50, .count = rand() % 3, .api = 7,
                                         .nranks = NPROCS, .gstream = rand() % 3 - 1, .site = (int)i };
    }
    m = (struct model){ .procs = procs, .nprocs = NPROCS };
}

static void free_run(void)
{
    for (int pi = 0; pi < NPROCS; pi++)
        free(procs[pi].colls);
}

/* What a group callback saw: every member, in order, and where each group
 * started. */
struct seen { struct coll_rec *v; size_t n, cap; size_t *starts; size_t nstarts; };

static void collect(const struct coll_rec *v, size_t n, void *ctx)
{
    struct seen *s = ctx;
    cr_assert_gt(n, 0);
    s->starts = realloc(s->starts, (s->nstarts + 1) * sizeof *s->starts);
    s->starts[s->nstarts++] = s->n;
    for (size_t k = 0; k < n; k++) {
        cr_assert(v[k].comm == v[0].comm && v[k].seq == v[0].seq, "a group holds one (comm, seq)");
        if (s->n == s->cap) {
            s->cap = s->cap ? s->cap * 2 : 256;
            s->v = realloc(s->v, s->cap * sizeof *s->v);
        }
        s->v[s->n++] = v[k];
    }
}

static int cmp_all(const void *a, const void *b)
{
    const struct coll_rec *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    if (x->proc != y->proc)
        return x->proc - y->proc;
    return x->index - y->index;
}

/* Writes process pi's collectives in batches of random sizes, as a
 * process read a window at a time hands them over. */
static void add_in_batches(struct coll_spill *s, size_t pi)
{
    const struct proc *p = &procs[pi];
    size_t done = 0;
    while (done < p->ncolls) {
        size_t n = 1 + (size_t)rand() % (p->ncolls / 3 + 1);
        if (n > p->ncolls - done)
            n = p->ncolls - done;
        coll_spill_add_batch(s, pi, p->colls + done, n, done);
        done += n;
    }
    coll_spill_end_proc(s, pi);
}

/* Spills the run (raising the file size limit to fsize after the first
 * process, when fsize > 0; each process in batches when `batched`) and
 * checks the groups against the reference. */
static void check_run(rlim_t fsize, int batched)
{
    struct coll_spill s;
    coll_spill_open(&s, NPROCS);
    size_t total = 0;
    for (size_t pi = 0; pi < NPROCS; pi++) {
        if (batched)
            add_in_batches(&s, pi);
        else
            coll_spill_add(&s, &m, pi);
        total += procs[pi].ncolls;
        if (pi == 0 && fsize) {
            struct rlimit r = { fsize, fsize };
            signal(SIGXFSZ, SIG_IGN); /* a write past the limit fails with EFBIG instead */
            cr_assert_eq(setrlimit(RLIMIT_FSIZE, &r), 0);
        }
    }
    if (fsize)
        cr_assert_lt(s.store.fd, 0, "the file filled up: the records went to memory");
    struct coll_rec *want = malloc((total + 1) * sizeof *want);
    size_t n = 0;
    for (size_t pi = 0; pi < NPROCS; pi++)
        for (size_t i = 0; i < procs[pi].ncolls; i++) {
            const struct coll *c = &procs[pi].colls[i];
            want[n++] = (struct coll_rec){ .comm = c->comm, .seq = c->seq, .start = c->start, .gstart = c->gstart,
                                           .gend = c->gend, .count = c->count, .api = c->api, .nranks = c->nranks,
                                           .gstream = c->gstream, .site = c->site, .proc = (int32_t)pi,
                                           .index = (int32_t)i };
        }
    qsort(want, n, sizeof *want, cmp_all);
    for (int pass = 0; pass < 2; pass++) { /* the analyses read it more than once */
        struct seen got = { 0 };
        coll_spill_groups(&s, collect, &got);
        cr_assert_eq(got.n, total, "every collective once (pass %d)", pass);
        for (size_t k = 0; k < n; k++)
            cr_assert(!memcmp(&got.v[k], &want[k], sizeof want[k]), "record %zu in (comm, seq, process, index) order", k);
        size_t groups = 0;
        for (size_t k = 0; k < n; k++)
            groups += !k || want[k].comm != want[k - 1].comm || want[k].seq != want[k - 1].seq;
        cr_assert_eq(got.nstarts, groups, "one call per (comm, seq)");
        free(got.v);
        free(got.starts);
    }
    for (size_t pi = 0; pi < NPROCS; pi++)
        for (int64_t comm = 0; comm <= 100; comm++) {
            int used = 0;
            for (size_t i = 0; i < procs[pi].ncolls; i++)
                used |= procs[pi].colls[i].comm == comm;
            cr_assert_eq(coll_spill_used(&s, pi, comm), used, "process %zu, communicator %lld", pi, (long long)comm);
        }
    free(want);
    coll_spill_close(&s);
}

Test(coll_spill, through_the_file_merged_in_order)
{
    make_run(1, 2000); /* groups larger than the merge's read buffer */
    check_run(0, 0);
    free_run();
}

Test(coll_spill, in_batches_merged_into_each_process_run)
{
    make_run(4, 2000);
    check_run(0, 1);
    free_run();
}

Test(coll_spill, in_memory_when_no_file_can_be_made)
{
    setenv("TMPDIR", "/nonexistent/gputrace-test", 1);
    make_run(2, 500);
    struct coll_spill s;
    coll_spill_open(&s, NPROCS);
    cr_assert_lt(s.store.fd, 0);
    coll_spill_close(&s);
    check_run(0, 0);
    check_run(0, 1);
    free_run();
}

Test(coll_spill, to_memory_when_the_file_fills_up)
{
    make_run(3, 3000);
    /* the first process fits; the next does not */
    check_run((rlim_t)(procs[0].ncolls * sizeof(struct coll_rec)) + 100, 0);
    free_run();
}

Test(coll_spill, an_empty_run)
{
    memset(procs, 0, sizeof procs);
    m = (struct model){ .procs = procs, .nprocs = NPROCS };
    check_run(0, 0);
    check_run(0, 1);
}

/* A process without collectives appends nothing, from a NULL array: in
 * memory, before anything else was stored (the sanitizers caught a memcpy
 * to and from NULL there), and in the file. */
Test(tmpstore, empty_appends_in_memory_and_in_the_file)
{
    for (int in_memory = 0; in_memory < 2; in_memory++) {
        if (in_memory)
            setenv("TMPDIR", "/nonexistent/gputrace-test", 1);
        struct tmpstore t;
        tmpstore_open(&t);
        cr_assert_eq(t.fd < 0, in_memory);
        cr_assert_eq(tmpstore_append(&t, NULL, 0), 0);
        uint64_t at = tmpstore_append(&t, "abc", 3);
        cr_assert_eq(tmpstore_append(&t, NULL, 0), 3);
        char buf[4] = "";
        tmpstore_read(&t, at, buf, 3);
        tmpstore_read(&t, 3, NULL, 0);
        cr_assert_str_eq(buf, "abc");
        tmpstore_close(&t);
    }
}
