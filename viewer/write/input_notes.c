/* input_notes.c: the notes on what the report left out of its inputs
 * (input_notes.h).  Neither is silent any more: a run directory's empty
 * file used to stop the whole report, and a second run in the inputs was
 * left out without a word. */
#include "viewer/write/input_notes.h"
#include "viewer/model/model.h"
#include "viewer/write/json.h"
#include "viewer/write/text_wrap.h"
#include "common/term_text.h"

#include <string.h>

/* Up to about room bytes of the list, escaped for the terminal, then
 * ", ..." for the rest, into buf (cap bytes, cap > room + 1 KiB). */
static const char *list_text(char *buf, size_t cap, char *const *v, size_t n, int base_only, size_t room)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        const char *s = v[i], *slash = base_only ? strrchr(s, '/') : NULL;
        char t[1024];
        term_text(slash ? slash + 1 : s, t, sizeof t);
        if (i && used + strlen(t) + 2 > room) {
            snprintf(buf + used, cap - used, ", ...");
            break;
        }
        used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", t);
        if (used >= cap) /* (not with cap > room + 1 KiB: the first name is < 1 KiB) */
            break;
    }
    return buf;
}

void input_notes_text(FILE *out, const struct model *m)
{
    if (m->nskipped) {
        char list[1200]; /* wrapped: a file's name is any length */
        fprintf(out, "note: %zu file(s) of the run directory hold no trace (empty, or no table: a process whose\n",
                m->nskipped);
        text_para(out, "      ", 6, "first write failed?) and were left out: %s",
                  list_text(list, sizeof list, m->skipped, m->nskipped, 1, 40));
    }
    if (m->nother_runs) {
        char t[1024], list[1200]; /* wrapped: a run's id is any length */
        fprintf(out, "note: the inputs hold %zu runs (recorded into one directory?): this report is of the latest,\n",
                m->nother_runs + 1);
        text_para(out, "      ", 6, "%s; not of %s (--run ID reports another)", term_text(m->run_id, t, sizeof t),
                  list_text(list, sizeof list, m->other_runs, m->nother_runs, 0, 40));
    }
}

static void list_json(FILE *out, const char *name, char *const *v, size_t n)
{
    if (!n)
        return;
    fprintf(out, ", \"%s\": [", name);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputs(", ", out);
        json_string(out, v[i]);
    }
    fputc(']', out);
}

void input_notes_json(FILE *out, const struct model *m)
{
    list_json(out, "other_runs", m->other_runs, m->nother_runs);
    list_json(out, "skipped_files", m->skipped, m->nskipped);
}
