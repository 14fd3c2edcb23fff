/* test_intern.c: the log of an interning table's slots (collector/intern.h):
 * the writer visits each slot made ready once, in the order they were, and
 * only the new ones; a slot counted but not logged yet stops the visit
 * until it is; a forked child's reset clears what was reported from the
 * log, and rebuilds the log from the table when a maker was caught between
 * counting and logging (its thread is not in the child). */
#include "collector/intern.h"

#include <criterion/criterion.h>

#define SLOTS 64

struct slot {
    struct gt_intern_seq s;
    uint64_t item[4];
};

static struct slot table[SLOTS];
static _Atomic uint32_t made[SLOTS];
static struct gt_intern_log lg = { 0, made };

static uint32_t put(uint64_t x)
{
    return gt_intern_seq(table, SLOTS, sizeof *table, offsetof(struct slot, item), x * 2654435761u | 1, &x, 1,
                         sizeof x, &lg);
}

struct visits { uint32_t n; uint32_t at[SLOTS * 2]; };

static void visit(uint32_t i, void *ctx)
{
    struct visits *v = ctx;
    v->at[v->n++] = i;
    table[i].s.reported = 1;
}

Test(intern, the_writer_visits_each_new_slot_once_in_order)
{
    uint32_t seen = 0, id[10];
    struct visits v = { 0 };
    for (int k = 0; k < 5; k++)
        id[k] = put((uint64_t)k + 100);
    cr_assert_eq(put(102), id[2], "the same sequence: the same slot");
    gt_intern_each_new(&lg, &seen, visit, &v);
    cr_assert_eq(v.n, 5);
    for (int k = 0; k < 5; k++)
        cr_assert_eq(v.at[k], id[k] - 1, "visit %d: slot %u, made as %u", k, v.at[k], id[k] - 1);
    gt_intern_each_new(&lg, &seen, visit, &v);
    cr_assert_eq(v.n, 5, "nothing new: nothing visited");
    for (int k = 5; k < 10; k++)
        id[k] = put((uint64_t)k + 100);
    gt_intern_each_new(&lg, &seen, visit, &v);
    cr_assert_eq(v.n, 10);
    for (int k = 5; k < 10; k++)
        cr_assert_eq(v.at[k], id[k] - 1);
}

Test(intern, a_slot_counted_but_not_logged_stops_the_visit_until_it_is)
{
    uint32_t seen = 0;
    struct visits v = { 0 };
    uint32_t a = put(1), b = put(2);
    /* a third maker between its count and its log entry */
    uint32_t k = atomic_fetch_add(&lg.published, 1);
    uint32_t c = put(3); /* logged after the gap */
    gt_intern_each_new(&lg, &seen, visit, &v);
    cr_assert_eq(v.n, 2, "up to the gap (%u)", v.n);
    cr_assert_eq(v.at[0], a - 1);
    cr_assert_eq(v.at[1], b - 1);
    atomic_store(&made[k], 40 + 1); /* its slot, 40, logged now */
    gt_intern_each_new(&lg, &seen, visit, &v);
    cr_assert_eq(v.n, 4);
    cr_assert_eq(v.at[2], 40);
    cr_assert_eq(v.at[3], c - 1);
}

Test(intern, a_reset_clears_what_was_reported_and_mends_a_log_left_with_a_gap)
{
    uint32_t seen = 0;
    struct visits v = { 0 };
    uint32_t a = put(7), b = put(8);
    gt_intern_each_new(&lg, &seen, visit, &v);
    cr_assert(table[a - 1].s.reported && table[b - 1].s.reported);
    gt_intern_reset(&lg, table, SLOTS, sizeof *table, &seen);
    cr_assert(!table[a - 1].s.reported && !table[b - 1].s.reported, "reported cleared");
    gt_intern_each_new(&lg, &seen, visit, &v);
    cr_assert_eq(v.n, 4, "both visited again after the reset");
    /* a maker caught at a fork between its count and its log entry, its
     * slot ready: the child's reset finds it in the table */
    uint32_t c = put(9);
    uint32_t k = atomic_fetch_add(&lg.published, 1);
    atomic_store(&made[k - 1], 0); /* c's entry not logged either */
    (void)k;
    gt_intern_reset(&lg, table, SLOTS, sizeof *table, &seen);
    cr_assert_eq(atomic_load(&lg.published), 3, "the log rebuilt: the 3 ready slots");
    v.n = 0;
    gt_intern_each_new(&lg, &seen, visit, &v);
    cr_assert_eq(v.n, 3);
    int found = 0;
    for (uint32_t i = 0; i < v.n; i++)
        found += v.at[i] == c - 1;
    cr_assert_eq(found, 1, "the slot made while the log had a gap is visited once");
}
