/* text_wrap.c: lines of the text report broken to fit (text_wrap.h). */
#include "viewer/write/text_wrap.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Whether the word at s is a unit, not to be parted from its number. */
static int is_unit(const char *s)
{
    static const char *const units[] = { "ms", "us", "ns", "s", "MiB", "GiB", "KiB", "GB/s" };
    size_t n = strcspn(s, " ;,)");
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (n == strlen(units[i]) && !strncmp(s, units[i], n))
            return 1;
    return 0;
}

/* text from column `col` on, the lines after the first from `indent`; a
 * lead that leaves less than a few words' room ends its line first */
static void wrap_from(FILE *out, int col, int indent, const char *text)
{
    const char *p = text;
    if (*p && col > TEXT_COLUMNS - 20) {
        fprintf(out, "\n%*s", indent, "");
        col = indent;
    }
    while (*p) {
        size_t room = TEXT_COLUMNS - col, n = strlen(p);
        if (n <= room) {
            fprintf(out, "%s\n", p);
            return;
        }
        size_t cut = room;
        while (cut > 0 && (p[cut] != ' ' || is_unit(p + cut + 1)))
            cut--;
        if (!cut) /* one long word: up to the next space */
            for (cut = room; p[cut] && p[cut] != ' '; cut++)
                ;
        fprintf(out, "%.*s\n", (int)cut, p);
        p += cut;
        while (*p == ' ')
            p++;
        if (*p)
            fprintf(out, "%*s", indent, "");
        col = indent;
    }
}

void text_para(FILE *out, const char *lead, int indent, const char *fmt, ...)
{
    char buf[4096], *text = buf;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof buf && (text = malloc((size_t)n + 1))) { /* a long one: whole, or cut to buf */
        va_start(ap, fmt);
        vsnprintf(text, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    if (!text)
        text = buf;
    fputs(lead, out);
    const char *last = strrchr(lead, '\n');
    wrap_from(out, (int)strlen(last ? last + 1 : lead), indent, text);
    if (text != buf)
        free(text);
}
