/* order_notes.c: see order_notes.h.  A match by kernel order is a guess
 * the report checked; a reader must know which findings rest on it, and
 * why a kind was left out when the check failed. */
#include "viewer/write/order_notes.h"
#include "viewer/analyse/order_match.h"
#include "viewer/write/json.h"
#include "viewer/write/text_wrap.h"
#include "common/term_text.h"

#define KINDS_SHOWN 6 /* in the text report; the JSON lists them all */

/* The kinds kept (refused 0: "N NAME" a line each) or refused ("NAME:
 * why"), up to KINDS_SHOWN. */
static void kinds_text(FILE *out, const struct order_match *r, int refused)
{
    int shown = 0, left = 0;
    for (size_t i = 0; i < r->nkinds; i++) {
        const struct order_kind *k = &r->kinds[i];
        if (k->refused != refused)
            continue;
        if (shown++ == KINDS_SHOWN) {
            left++;
            shown--;
            continue;
        }
        char t[256];
        term_cell(k->name, 80, TERM_CUT | TERM_ELLIPSIS, t, sizeof t);
        if (refused) /* wrapped: a kernel's name and the reason passed 100 columns (117) */
            text_para(out, "      ", 8, "%s: %s", t, k->why);
        else
            fprintf(out, "      %6lld %s\n", (long long)k->groups, t);
    }
    if (left)
        fprintf(out, "      and %d kind(s) more (--format json lists them)\n", left);
}

void order_notes_text(FILE *out, const struct model *m)
{
    const struct order_match *r = m->order;
    if (!r)
        return;
    if (r->matched) {
        fprintf(out, "note: %lld collective(s) on %d rank(s) named no operation or group in their trace: matched\n"
                     "      across ranks by their order among each rank's NCCL kernels of one name, once checked\n"
                     "      (comm.straggler and comm.hang use them, comm.mismatch does not); per rank:\n",
                (long long)r->matched, r->ranks);
        kinds_text(out, r, 0);
    }
    if (r->refused) {
        fprintf(out, "note: %lld collective(s) named no operation or group in their trace, and their match by\n"
                     "      kernel order was refused (no analysis across ranks uses them):\n",
                (long long)r->refused);
        kinds_text(out, r, 1);
    }
}

void order_notes_json(FILE *out, const struct model *m)
{
    const struct order_match *r = m->order;
    if (!r)
        return;
    fprintf(out, ",\n\"order_matched\": {\"collectives\": %lld, \"refused\": %lld, \"ranks\": %d, \"kinds\": [",
            (long long)r->matched, (long long)r->refused, r->ranks);
    for (size_t i = 0; i < r->nkinds; i++) {
        const struct order_kind *k = &r->kinds[i];
        fprintf(out, "%s{\"kernel\": ", i ? ", " : "");
        json_string(out, k->name);
        fprintf(out, ", \"groups\": %lld, \"collectives\": %lld, \"matched\": %s", (long long)k->groups,
                (long long)k->colls, k->refused ? "false" : "true");
        if (k->refused) {
            fputs(", \"why\": ", out);
            json_string(out, k->why);
        }
        fputc('}', out);
    }
    fputs("]}", out);
}
