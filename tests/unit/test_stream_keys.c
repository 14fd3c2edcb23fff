/* test_stream_keys.c: the model's names for GPU streams
 * (viewer/model/stream_keys.c): CUPTI's stream ids are unique within a
 * context only, so two contexts' streams of one id must get two keys, and
 * a user must read CUPTI's id again; one context's ids stay as they are. */
#include "viewer/model/model.h"
#include "viewer/model/stream_keys.h"

#include <criterion/criterion.h>

static struct proc p;

static void fresh(void) { memset(&p, 0, sizeof p); }
static void done(void) { model_stream_keys_free(&p.skeys); }

TestSuite(stream_keys, .init = fresh, .fini = done);

/* a process of one GPU: its ids as they are */
Test(stream_keys, one_context_keeps_the_ids)
{
    for (int id = 7; id < 40; id++)
        cr_expect_eq(model_stream_key(&p, 1, id), id);
    cr_expect_eq(model_stream_raw(&p, 13), 13);
}

/* two GPUs, each with a stream 8: two keys; each written as 8 */
Test(stream_keys, two_contexts_one_id)
{
    int a = model_stream_key(&p, 1, 8), b = model_stream_key(&p, 2, 8);
    cr_expect_eq(a, 8, "the first context to name an id keeps it");
    cr_expect_neq(a, b, "stream 8 of context 2 is another stream");
    cr_expect_eq(model_stream_key(&p, 2, 8), b, "the same stream, the same key");
    cr_expect_eq(model_stream_key(&p, 1, 8), a);
    cr_expect_eq(model_stream_raw(&p, a), 8);
    cr_expect_eq(model_stream_raw(&p, b), 8, "what a user reads is CUPTI's id");
    /* ids only one context has stay theirs, whatever the order */
    cr_expect_eq(model_stream_key(&p, 2, 9), 9);
    cr_expect_eq(model_stream_key(&p, 1, 10), 10);
    int c = model_stream_key(&p, 3, 8);
    cr_expect(c != a && c != b, "a third context's stream 8: a third key");
    cr_expect_eq(model_stream_raw(&p, c), 8);
}

/* no context named (a trace without one), an unknown stream, an id past
 * any counter: as they are */
Test(stream_keys, what_is_kept_as_it_is)
{
    cr_expect_eq(model_stream_key(&p, 1, 7), 7);
    cr_expect_eq(model_stream_key(&p, 0, 7), 7, "no context: the stream whose id it is");
    cr_expect_eq(model_stream_key(&p, 2, -1), -1);
    cr_expect_eq(model_stream_key(&p, 1, STREAM_KEY_OWN + 5), STREAM_KEY_OWN + 5);
    cr_expect_eq(model_stream_raw(&p, STREAM_KEY_OWN + 5), STREAM_KEY_OWN + 5, "no key of its own was made");
}
