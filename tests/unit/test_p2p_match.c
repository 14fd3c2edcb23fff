/* test_p2p_match.c: sends matched to their receives across ranks
 * (viewer/analyse/analysis_p2p.c) on made-up runs, against what NCCL's
 * ordering rule says: the k-th send from a to b meets the k-th receive on
 * b from a, whatever their sequence numbers; a pair whose count or
 * datatype differ is a mismatch; a send left over is a hang naming both
 * ranks when the run did not end well; a receive from a rank the trace
 * lacks says nothing; and a backlog past what a pair keeps still pairs
 * every operation, in order.  Linked against the report's own objects
 * (viewer/libreport.a): the findings store and the model's API names are
 * the real ones. */
#include "viewer/analyse/analysis_p2p.h"
#include "viewer/analyse/coll_spill.h"
#include "viewer/analyse/findings.h"
#include "viewer/write/finding_out.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { API_SEND = 1, API_RECV = 2, API_ALLREDUCE = 3 };

#define NPROCS 3
static struct model m;
static struct proc procs[NPROCS];
static struct findings fs;

static void add(size_t pi, int api, int peer, int64_t count, int dtype)
{
    struct proc *p = &procs[pi];
    p->colls = realloc(p->colls, (p->ncolls + 1) * sizeof *p->colls);
    int64_t t = 1000000 * (int64_t)(p->ncolls + 1);
    p->colls[p->ncolls] = (struct coll){ .comm = 5, .seq = (int64_t)p->ncolls, .count = count, .bytes = count * 4,
                                         .start = t, .end = t + 1000, .gstart = t + 100, .gend = t + 900,
                                         .api = api, .dtype = dtype, .peer = peer, .rank = (int)pi, .nranks = 3,
                                         .gstream = 1, .site = (int)p->ncolls + 1 };
    p->ncolls++;
}

/* A finding's facts as the JSON renders them (write/finding_json.c). */
static char facts_text[2048];
static const char *facts_json(const struct finding *f)
{
    FILE *out = fmemopen(facts_text, sizeof facts_text, "w");
    cr_assert(out);
    finding_facts_json(out, NULL, f); /* no places: no model needed */
    fclose(out);
    return facts_text;
}

/* Its message, as every output words it (write/finding_text.c). */
static char message_text[FINDING_TEXT_LEN];
static const char *message(const struct finding *f)
{
    return finding_message(&m, f, message_text, sizeof message_text);
}

static void setup(void)
{
    memset(procs, 0, sizeof procs);
    memset(&fs, 0, sizeof fs);
    for (size_t pi = 0; pi < NPROCS; pi++) {
        procs[pi].rank = (int)pi;
        procs[pi].has_end = 1;
        snprintf(procs[pi].host, sizeof procs[pi].host, "h");
    }
    m = (struct model){ .procs = procs, .nprocs = NPROCS };
    /* the report's own API table, as a file names them */
    model_set_api(&m, API_SEND, "ncclSend");
    model_set_api(&m, API_RECV, "ncclRecv");
    model_set_api(&m, API_ALLREDUCE, "ncclAllReduce");
}

static void run(void)
{
    struct coll_spill spill;
    coll_spill_open(&spill, NPROCS);
    for (size_t pi = 0; pi < NPROCS; pi++)
        coll_spill_add(&spill, &m, pi);
    analyse_p2p(&m, &fs, &spill);
    coll_spill_close(&spill);
}

static void teardown(void)
{
    p2p_free(&m);
    for (int i = 0; i < m.napis; i++)
        free(m.api_names[i]);
    free(m.api_names);
    free(m.roles);
    free(m.answers);
    charges_free(&fs.charges);
    for (size_t pi = 0; pi < NPROCS; pi++)
        free(procs[pi].colls);
    free(fs.v);
}

static const struct p2p_pair *pair(int src, int dst)
{
    for (size_t i = 0; i < m.p2p->npairs; i++)
        if (m.p2p->pairs[i].src == src && m.p2p->pairs[i].dst == dst)
            return &m.p2p->pairs[i];
    return NULL;
}

static size_t count_kind(enum finding_kind k)
{
    size_t n = 0;
    for (size_t i = 0; i < fs.n; i++)
        n += fs.v[i].kind == k;
    return n;
}

/* Rank 0 sends 5 to rank 1 first, then rank 1 receives them between
 * all-reduces and sends 5 on to rank 2, which receives them last: no
 * sequence number of a send equals its receive's. */
Test(p2p_match, by_order_not_sequence, .init = setup, .fini = teardown)
{
    for (int i = 0; i < 5; i++)
        add(0, API_SEND, 1, 100 + i, 7);
    for (int i = 0; i < 5; i++) {
        add(1, API_ALLREDUCE, 0, 8, 7);
        add(1, API_RECV, 0, 100 + i, 7);
    }
    for (int i = 0; i < 5; i++)
        add(1, API_SEND, 2, 200 + i, 7);
    for (int i = 0; i < 5; i++)
        add(2, API_RECV, 1, 200 + i, 7);
    run();
    const struct p2p_pair *a = pair(0, 1), *b = pair(1, 2);
    cr_assert(a && b);
    cr_assert_eq(m.p2p->npairs, 2);
    cr_assert_eq(a->matched, 5);
    cr_assert_eq(b->matched, 5);
    /* the counts differ from one operation to the next: matched in order,
     * each to its own, none mismatched */
    cr_assert_eq(a->mismatched, 0);
    cr_assert_eq(b->mismatched, 0);
    cr_assert_eq(a->bytes, 4 * (100 + 101 + 102 + 103 + 104));
    cr_assert_eq(fs.n, 0);
}

Test(p2p_match, datatype_mismatch_names_both, .init = setup, .fini = teardown)
{
    for (int i = 0; i < 3; i++)
        add(0, API_SEND, 2, 64, 7);
    for (int i = 0; i < 3; i++)
        add(2, API_RECV, 0, 64, i == 1 ? 2 : 7);
    run();
    cr_assert_eq(pair(0, 2)->mismatched, 1);
    cr_assert_eq(count_kind(F_COMM_MISMATCH), 1);
    cr_assert(strstr(facts_json(&fs.v[0]), "\"sender_rank\": 0, \"receiver_rank\": 2, \"ranks\": [0, 2]"), "%s",
              facts_text);
    cr_assert(strstr(message(&fs.v[0]), "int32") && strstr(message_text, "float32"), "%s", message_text);
}

Test(p2p_match, send_left_over_is_a_hang_when_killed, .init = setup, .fini = teardown)
{
    for (int i = 0; i < 4; i++)
        add(1, API_SEND, 2, 64, 7);
    for (int i = 0; i < 3; i++)
        add(2, API_RECV, 1, 64, 7);
    procs[1].has_end = 0; /* killed, waiting in its last send */
    procs[1].end = 50000000;
    run();
    cr_assert_eq(pair(1, 2)->matched, 3);
    cr_assert_eq(count_kind(F_COMM_HANG), 1);
    const struct finding *f = &fs.v[0];
    cr_assert(strstr(facts_json(f), "\"sender_rank\": 1, \"receiver_rank\": 2, \"ranks\": [1, 2],"
                                    " \"unmatched_sends\": 1"), "%s", facts_text);
    cr_assert(strstr(message(f), "rank 1's ncclSend to rank 2"), "%s", message_text);
    cr_assert_gt(f->wait_ns, 0);
}

Test(p2p_match, left_over_in_a_run_that_ended_well_is_a_mismatch, .init = setup, .fini = teardown)
{
    add(0, API_SEND, 1, 64, 7);
    add(1, API_RECV, 0, 64, 7);
    add(1, API_RECV, 0, 64, 7);
    run();
    cr_assert_eq(count_kind(F_COMM_MISMATCH), 1);
    cr_assert(strstr(message(&fs.v[0]), "rank 1's ncclRecv from rank 0"), "%s", message_text);
}

Test(p2p_match, peer_not_traced_says_nothing, .init = setup, .fini = teardown)
{
    for (int i = 0; i < 3; i++)
        add(0, API_RECV, 2, 64, 7); /* rank 2 of the communicator is in no file */
    run();
    cr_assert_eq(fs.n, 0);
    cr_assert_eq(m.p2p->unmatched_untraced, 3);
}

/* More sends waiting than a pair keeps: every one still pairs with its
 * receive, in order (the counts tell), and the datatype of one past the
 * kept ones is not checked but those kept are. */
Test(p2p_match, backlog_past_the_queue, .init = setup, .fini = teardown)
{
    int n = P2P_QUEUE_MAX + 100;
    for (int i = 0; i < n; i++)
        add(0, API_SEND, 1, 10, 7);
    for (int i = 0; i < n; i++) /* rank 1's receives come after as many other operations */
        add(1, API_ALLREDUCE, 0, 8, 7);
    for (int i = 0; i < n + 1; i++)
        add(1, API_RECV, 0, 10, i == 3 ? 2 : 7);
    run();
    const struct p2p_pair *a = pair(0, 1);
    cr_assert_eq(a->matched, n);
    cr_assert_eq(a->mismatched, 1);
    cr_assert_eq(a->nrecvs - a->recvs_head + (size_t)a->recvs_over, 1);
    cr_assert_eq(count_kind(F_COMM_MISMATCH), 2); /* the datatype, and the receive left over */
}
