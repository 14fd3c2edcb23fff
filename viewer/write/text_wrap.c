/* text_wrap.c: lines of the text report broken to fit (text_wrap.h). */
#include "viewer/write/text_wrap.h"

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

void text_wrap(FILE *out, int indent, const char *text)
{
    const char *p = text;
    while (*p) {
        size_t room = TEXT_COLUMNS - indent, n = strlen(p);
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
    }
}
