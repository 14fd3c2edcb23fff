/* order_notes.h: the report's note on collectives matched across ranks by
 * kernel order (viewer/analyse/order_match.h): how many, of which kernel
 * kinds, and which kinds were refused and why; in the text report and in
 * the JSON ("order_matched", docs/report-json.md). */
#ifndef GPUTRACE_ORDER_NOTES_H
#define GPUTRACE_ORDER_NOTES_H

#include "viewer/model/model.h"

#include <stdio.h>

/* "note: ..." lines; nothing when no collective was matched by order. */
void order_notes_text(FILE *out, const struct model *m);
/* `,\n"order_matched": {...}`, only when some collective was. */
void order_notes_json(FILE *out, const struct model *m);

#endif
