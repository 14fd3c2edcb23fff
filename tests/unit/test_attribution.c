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
