/* test_plugin_join.c: NCCL's own records (the nccl_* tables the tracer
 * fills as NCCL's profiler plugin) joined to the wrappers' collectives, or
 * standing in for them (viewer/read/plugin_join.h), on rows written into
 * an in-memory database of the tracer's schema: operations matched by
 * communicator (paired by rank, size and order made), function and NCCL's
 * sequence whatever order NCCL's records come in; those on a communicator
 * no wrapper saw made collectives of their own, sorted in by start, their
 * kernel found later; a wrapped collective on an unknown communicator
 * taking NCCL's identity; how far an unfinished one got; the JSON note. */
#define _GNU_SOURCE
#include "format/schema.h"
#include "viewer/read/plugin_join.h"
#include "viewer/write/plugin_notes.h"

#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { API_ALLREDUCE = 1, API_BROADCAST, API_SEND, API_RECV, NAPIS };
static const char *const api_names[NAPIS] = { "?", "ncclAllReduce", "ncclBroadcast", "ncclSend", "ncclRecv" };

static struct model m;
static struct proc p;
static sqlite3 *db;
static size_t cap;

static void exec(const char *sql)
{
    char *err = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
    cr_assert_eq(rc, SQLITE_OK, "%s: %s", sql, err ? err : "");
}

static void setup(void)
{
    memset(&m, 0, sizeof m);
    memset(&p, 0, sizeof p);
    cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
    exec(gt_schema_sql);
    /* NCCL's names of functions and types, as labels of process 1 */
    exec("INSERT INTO label VALUES (1, 1, 'AllReduce'), (1, 2, 'ncclFloat32'), (1, 3, 'Broadcast'),"
         " (1, 4, 'ncclInt8')");
    m.api_names = (char **)api_names;
    m.napis = NAPIS;
    m.dbs = &db;
    m.ndbs = 1;
    m.procs = &p;
    m.nprocs = 1;
    p.id = 1;
    cap = 8;
    p.colls = calloc(cap, sizeof *p.colls);
}

static void teardown(void)
{
    free(p.colls);
    free(p.plugin_depth);
    sqlite3_close(db);
}

TestSuite(plugin_join, .init = setup, .fini = teardown);

static struct coll *wrapped(int api, int64_t call_id, int64_t comm, int64_t seq, int64_t start, int rank)
{
    struct coll *c = &p.colls[p.ncolls++];
    *c = (struct coll){ .call_id = call_id, .api = api, .comm = comm, .seq = seq, .start = start, .end = start + 100,
                        .rank = rank, .nranks = comm ? 2 : 0, .peer = -1, .gstream = -1 };
    return c;
}

/* NCCL's all-reduce (func label 1, float32, 1024 elements) of event id
 * `ev`, NCCL's sequence nseq, on communicator hash as rank `rank`, from
 * start for 1000 ns, its one kernel channel from start + 200 to start +
 * 800 (done) or never ended. */
static void nccl_allreduce(int64_t ev, int64_t hash, int rank, int64_t nseq, int64_t start, int done)
{
    char sql[512], end[32] = "NULL";
    if (done)
        snprintf(end, sizeof end, "%lld", (long long)start + 800);
    snprintf(sql, sizeof sql,
             "INSERT INTO nccl_op VALUES (1, %lld, %lld, %lld, %lld, 1, 2, 1024, 0, 0, %d, -1, 2, 0, 0, 0, 0, %lld,"
             " %lld);"
             "INSERT INTO nccl_kernel_ch VALUES (1, %lld, %lld, 0, %lld, %s, 0, 0);",
             (long long)ev, (long long)hash, (long long)nseq, (long long)nseq, rank, (long long)start,
             (long long)start + 1000, (long long)ev + 1000, (long long)ev, (long long)start + 200, end);
    exec(sql);
}

/* NCCL's communicator 0xabc (rank 0 of 2) is the wrapper's 777: its two
 * all-reduces, recorded out of order, match the wrapper's two by NCCL's
 * sequence; nothing is added. */
Test(plugin_join, operations_on_a_wrapped_communicator_are_matched)
{
    exec("INSERT INTO nccl_comm VALUES (1, 2748, 0, 2, 1, 0, 5, 100);"
         "INSERT INTO comm VALUES (1, 4096, 777, 0, 2, 0, 90);");
    wrapped(API_ALLREDUCE, 10, 777, 0, 1000, 0);
    wrapped(API_ALLREDUCE, 11, 777, 1, 2000, 0);
    nccl_allreduce(2, 2748, 0, 1, 2010, 1);
    nccl_allreduce(1, 2748, 0, 0, 1010, 1);
    plugin_join(&m, &p, &cap);
    cr_expect_eq(p.plugin_ops, 2);
    cr_expect_eq(p.plugin_matched, 2);
    cr_expect_eq(p.plugin_alone, 0);
    cr_expect_eq(p.ncolls, 2);
    cr_expect_eq(p.nplugin_depth, 0, "both finished");
}

/* A communicator no wrapper saw made (hash 0xdef, rank 1 of 2; the
 * wrapper's one is rank 0): its operations are collectives of their own,
 * call_id the event's negative, NCCL's hash and sequence, bytes from
 * NCCL's type, GPU time the kernel channels' span until the kernel is
 * found; sorted in among the wrapped ones by start. */
Test(plugin_join, operations_no_wrapper_saw_become_collectives)
{
    exec("INSERT INTO nccl_comm VALUES (1, 3567, 1, 2, 1, 0, 5, 100);"
         "INSERT INTO comm VALUES (1, 4096, 777, 0, 2, 0, 90);");
    wrapped(API_ALLREDUCE, 10, 777, 0, 1000, 0);
    wrapped(API_ALLREDUCE, 11, 777, 1, 3000, 0);
    nccl_allreduce(7, 3567, 1, 0, 2000, 1);
    plugin_join(&m, &p, &cap);
    cr_expect_eq(p.plugin_ops, 1);
    cr_expect_eq(p.plugin_matched, 0);
    cr_expect_eq(p.plugin_alone, 1);
    cr_assert_eq(p.ncolls, 3);
    cr_expect_eq(p.colls[0].call_id, 10);
    cr_expect_eq(p.colls[2].call_id, 11);
    const struct coll *c = &p.colls[1];
    cr_expect_eq(c->call_id, -7);
    cr_expect_eq(c->comm, 3567);
    cr_expect_eq(c->seq, 0);
    cr_expect_eq(c->api, API_ALLREDUCE);
    cr_expect_eq(c->count, 1024);
    cr_expect_eq(c->bytes, 4096, "1024 float32");
    cr_expect_eq(c->rank, 1);
    cr_expect_eq(c->nranks, 2);
    cr_expect_eq(c->start, 2000);
    cr_expect_eq(c->end, 3000);
    cr_expect_eq(c->gstart, 2200);
    cr_expect_eq(c->gend, 2800);
    cr_expect_eq(c->gstream, -1);
    cr_expect_eq(c->op, -1);
}

/* The kernel of a collective only the plugin saw: the first NCCL kernel
 * overlapping its channels' span. */
Test(plugin_join, plugin_kernels_finds_the_kernel_in_the_channels_span)
{
    struct coll *c = wrapped(API_ALLREDUCE, -7, 3567, 0, 2000, 1);
    c->gstart = 2200;
    c->gend = 2600;
    struct gop ops[3] = {
        { .start = 1000, .end = 1500, .kind = GOP_KERNEL, .nccl = 1, .stream = 3, .name = 4 },
        { .start = 2100, .end = 2300, .kind = GOP_KERNEL, .nccl = 0, .stream = 5, .name = 5 },
        { .start = 2150, .end = 2700, .kind = GOP_KERNEL, .nccl = 1, .stream = 13, .name = 6 },
    };
    p.ops = ops;
    p.nops = 3;
    plugin_kernels(&p);
    cr_expect_eq(c->gstart, 2150);
    cr_expect_eq(c->gend, 2700);
    cr_expect_eq(c->gstream, 13);
    cr_expect_eq(c->kname, 6);
    p.ops = NULL;
}

/* A wrapped all-reduce on a communicator the tracer did not see made
 * (comm 0, rank -1) is NCCL's on the communicator no wrapper's is paired
 * with: it takes NCCL's hash, sequence, rank and size. */
Test(plugin_join, a_collective_on_an_unknown_communicator_takes_nccls_identity)
{
    exec("INSERT INTO nccl_comm VALUES (1, 3567, 1, 2, 1, 0, 5, 100);");
    wrapped(API_ALLREDUCE, 10, 0, 0, 1000, -1);
    p.unknown_comm_colls = 1;
    nccl_allreduce(7, 3567, 1, 4, 1010, 1);
    plugin_join(&m, &p, &cap);
    cr_expect_eq(p.plugin_matched, 1);
    cr_expect_eq(p.plugin_alone, 0);
    cr_expect_eq(p.unknown_comm_colls, 0);
    cr_assert_eq(p.ncolls, 1);
    cr_expect_eq(p.colls[0].comm, 3567);
    cr_expect_eq(p.colls[0].seq, 4);
    cr_expect_eq(p.colls[0].rank, 1);
    cr_expect_eq(p.colls[0].nranks, 2);
    cr_expect_eq(p.colls[0].call_id, 10);
}

/* An operation whose kernel channel never ended: NCCL left it in its
 * kernel, noted by its place in p->colls. */
Test(plugin_join, how_far_an_unfinished_operation_got)
{
    exec("INSERT INTO nccl_comm VALUES (1, 2748, 0, 2, 1, 0, 5, 100);"
         "INSERT INTO comm VALUES (1, 4096, 777, 0, 2, 0, 90);");
    wrapped(API_ALLREDUCE, 10, 777, 0, 1000, 0);
    wrapped(API_ALLREDUCE, 11, 777, 1, 2000, 0);
    nccl_allreduce(1, 2748, 0, 0, 1010, 1);
    nccl_allreduce(2, 2748, 0, 1, 2010, 0);
    plugin_join(&m, &p, &cap);
    cr_expect_eq(model_plugin_depth(&p, 1), PD_KERNEL);
    cr_expect_eq(model_plugin_depth(&p, 0), PD_NONE, "finished");
}

Test(plugin_join, the_json_note_counts_every_process)
{
    p.plugin_ops = 5;
    p.plugin_matched = 3;
    p.plugin_alone = 2;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    plugin_note_json(f, &m);
    fclose(f);
    cr_expect_str_eq(buf, ",\n\"nccl_plugin\": {\"ops\": 5, \"joined\": 3, \"alone\": 2}");
    free(buf);
}

Test(plugin_join, nothing_without_ncclls_tables_filled)
{
    wrapped(API_ALLREDUCE, 10, 777, 0, 1000, 0);
    plugin_join(&m, &p, &cap);
    cr_expect_eq(p.plugin_ops, 0);
    cr_expect_eq(p.ncolls, 1);
}
