/* json.c: strict JSON string escaping (see json.h).  Invalid UTF-8 bytes
 * become U+FFFD; control characters become \u00XX. */
#include "viewer/json.h"

#include <stdint.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static int utf8_len(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    int n = (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
    if (!n || (n == 2 && s[0] < 0xc2) || (n == 4 && s[0] > 0xf4))
        return 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0)))
        return 0; /* overlong, or a surrogate */
    if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90)))
        return 0;
    return n;
}

void json_string(FILE *out, const char *str)
{
    const unsigned char *s = (const unsigned char *)(str ? str : "");
    putc('"', out);
    while (*s) {
        unsigned char c = *s;
        if (c == '"' || c == '\\') {
            putc('\\', out);
            putc(c, out);
            s++;
        } else if (c < 0x20 || c == 0x7f) {
            switch (c) {
            case '\n': fputs("\\n", out); break;
            case '\t': fputs("\\t", out); break;
            case '\r': fputs("\\r", out); break;
            default: fprintf(out, "\\u%04x", c); break;
            }
            s++;
        } else {
            int n = utf8_len(s);
            if (!n) {
                fputs("\\ufffd", out);
                s++;
            } else {
                fwrite(s, 1, (size_t)n, out);
                s += n;
            }
        }
    }
    putc('"', out);
}

void json_us(FILE *out, int64_t ns)
{
    if (ns < 0) {
        fputc('-', out);
        ns = -ns;
    }
    fprintf(out, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}
