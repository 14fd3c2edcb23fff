/* test_attribution.c: one charge per lost millisecond
 * (viewer/analyse/attribution.h): claims resolved in order of cause, no
 * interval of a rank's time given twice, clipped to the rank's life, and
 * only findings that are reported claiming time. */
#include "viewer/analyse/findings.h"
#include "viewer/model/timeline.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

void model_out_of_memory(void)
{
    abort();
}

/* The repetition rules are findings.c's; here every finding with a count is kept. */
int finding_kept(const struct finding *f, const struct report_opts *o)
{
    (void)o;
    return f->count > 0;
}

static struct proc procs[2];
static struct model m;
static struct findings fs;
static struct finding v[8];

static struct finding *add(enum finding_kind kind, int proc, int site, int64_t count)
{
    struct finding *f = &v[fs.n++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->proc = proc;
    f->callsite_id = site;
    f->count = count;
    return f;
}

static void setup(void)
{
    memset(&fs, 0, sizeof fs);
    memset(&m, 0, sizeof m);
    memset(procs, 0, sizeof procs);
    procs[0].end = 1000;
    procs[1].end = 1000;
    m.procs = procs;
    m.nprocs = 2;
    fs.v = v;
    fs.cap = 8;
}

static void teardown(void)
{
    charges_free(&fs.charges);
}

TestSuite(attribution, .init = setup, .fini = teardown);

Test(attribution, the_cause_wins)
{
    /* a collective exposed while its rank waited for a straggler: the wait is the straggler's */
    struct finding *str = add(F_COMM_STRAGGLER, 1, 0, 5);
    struct finding *exp = add(F_COMM_EXPOSED, 0, 7, 5);
    charge_add(&fs, exp, 0, 0, 40);
    charge_add(&fs, str, 0, 10, 50); /* on rank 0's time, for rank 1's finding */
    struct report_opts o = { 0 };
    attribute_costs(&fs, &m, &o);
    cr_expect_eq(str->cost_ns, 40);
    cr_expect_eq(exp->cost_ns, 10);
    cr_expect_eq(fs.charges.by_proc[0], 50);
    cr_expect_eq(fs.charges.by_proc[1], 0);
}

Test(attribution, never_twice_never_past_the_rank)
{
    struct finding *a = add(F_SYNC_REDUNDANT, 0, 1, 2);
    struct finding *b = add(F_SYNC_REDUNDANT, 0, 2, 2);
    struct finding *idle = add(F_GPU_IDLE, 0, -1, 1);
    charge_add(&fs, a, 0, 0, 10);
    charge_add(&fs, b, 0, 5, 15);      /* overlaps a: the earlier of one kind wins */
    charge_add(&fs, a, 0, 990, 1200);  /* past the process's end: clipped */
    charge_add(&fs, idle, 0, 0, 1000); /* the rest of the rank */
    struct report_opts o = { 0 };
    attribute_costs(&fs, &m, &o);
    cr_expect_eq(a->cost_ns, 20);
    cr_expect_eq(b->cost_ns, 5);
    cr_expect_eq(idle->cost_ns, 1000 - 25);
    cr_expect_eq(fs.charges.by_proc[0], 1000); /* all of its wall time, and no more */
    /* the pieces given are disjoint and add up to the costs */
    int64_t sum = 0;
    for (size_t i = 0; i < fs.charges.ngiven; i++) {
        sum += fs.charges.given[i].b - fs.charges.given[i].a;
        for (size_t j = 0; j < i; j++)
            cr_expect(fs.charges.given[j].b <= fs.charges.given[i].a || fs.charges.given[i].b <= fs.charges.given[j].a);
    }
    cr_expect_eq(sum, 1000);
}

Test(attribution, only_reported_findings_claim)
{
    struct finding *dropped = add(F_COMM_EXPOSED, 0, 3, 0); /* below its rule: count 0 */
    struct finding *idle = add(F_GPU_IDLE, 0, -1, 1);
    charge_add(&fs, dropped, 0, 100, 200);
    charge_add(&fs, idle, 0, 100, 200);
    struct report_opts o = { 0 };
    attribute_costs(&fs, &m, &o);
    cr_expect_eq(dropped->cost_ns, 0);
    cr_expect_eq(idle->cost_ns, 100);
}

Test(attribution, gaps_of_a_union)
{
    struct finding *f = add(F_SYNC_SCALAR_READ, 0, 4, 2);
    struct interval iv[] = { { 10, 20 }, { 30, 40 } };
    struct ivals busy = { iv, 2 };
    cr_expect_eq(charge_gaps(&fs, f, 0, &busy, 0, 50), 30);
    cr_expect_eq(charge_gaps(&fs, f, 0, &busy, 12, 18), 0);
    cr_expect_eq(charge_gaps(&fs, f, 0, &busy, 15, 35), 10);
    struct report_opts o = { 0 };
    attribute_costs(&fs, &m, &o);
    cr_expect_eq(f->cost_ns, 30); /* [0,10) [20,30) [40,50); the second gap claimed twice, given once */
}

/* The reference: qsort on charge_cmp with the place noted as the last key,
 * so that equal claims keep their order (a stable sort). */
struct placed { struct charge c; size_t at; };

static int placed_cmp(const void *x, const void *y)
{
    const struct placed *a = x, *b = y;
    int c = charge_cmp(&a->c, &b->c);
    return c ? c : (a->at > b->at) - (a->at < b->at);
}

Test(attribution, the_sort_is_a_stable_sort_in_charge_order)
{
    static const int kinds[] = { F_COMM_STRAGGLER, F_COMM_EXPOSED, F_SYNC_SCALAR_READ, F_SYNC_REDUNDANT, F_GPU_IDLE,
                                 F_COPY_PAGEABLE };
    srand(7);
    for (int round = 0; round < 4000; round++) {
        size_t n = 1 + (size_t)rand() % 300, nprocs = 1 + (size_t)rand() % 5;
        struct charge *v = malloc(n * sizeof *v);
        struct placed *ref = malloc(n * sizeof *ref);
        int64_t t = 0;
        for (size_t i = 0; i < n; i++) {
            /* mostly in time order per cause, as the analyses note them; some out of order, some equal */
            t += rand() % 4 == 0 ? -(rand() % 50) : rand() % 20;
            int64_t a = rand() % 8 == 0 ? rand() % 100 : t;
            /* (its place in gpu, which the sort carries and never compares: occ holds a mark's number) */
            v[i] = (struct charge){ a, a + rand() % 30, (int)((size_t)rand() % nprocs), rand() % 3, rand() % 2,
                                    (int8_t)kinds[rand() % 6], (int8_t)(i % FINDING_MARKS), (int16_t)i };
            ref[i] = (struct placed){ v[i], i };
        }
        qsort(ref, n, sizeof *ref, placed_cmp);
        charges_sort(v, n, nprocs);
        for (size_t i = 0; i < n; i++)
            if (memcmp(&v[i], &ref[i].c, sizeof v[i]) != 0) {
                cr_expect_fail("round %d: claim %zu of %zu differs (placed %d, not %d)", round, i, n, v[i].gpu,
                        ref[i].c.gpu);
                break;
            }
        free(v);
        free(ref);
    }
}
