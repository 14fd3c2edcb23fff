/* json.c: writing JSON for the report's outputs (see json.h): strict
 * string escaping (invalid UTF-8 bytes become U+FFFD, control characters
 * \u00XX), trace timestamps, and the stream a trace is written to. */
#define _GNU_SOURCE
#include "viewer/write/json.h"
#include "viewer/write/out_file.h"

#include <stdint.h>
#include <stdio_ext.h>

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
        /* a run of plain printable ASCII goes out in one write */
        const unsigned char *run = s;
        while (*s >= 0x20 && *s < 0x7f && *s != '"' && *s != '\\')
            s++;
        if (s > run)
            fwrite(run, 1, (size_t)(s - run), out);
        if (!*s)
            break;
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

/* Called for every timestamp of a trace: digits by hand, one write. */
void json_ts(FILE *out, int64_t ns)
{
    json_us(out, ns < 0 ? 0 : ns);
}

void json_us(FILE *out, int64_t ns)
{
    char buf[32], *p = buf + sizeof buf;
    uint64_t v = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    for (int i = 0; i < 3; i++, v /= 10)
        *--p = (char)('0' + v % 10);
    *--p = '.';
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (ns < 0)
        *--p = '-';
    fwrite(p, 1, (size_t)(buf + sizeof buf - p), out);
}

FILE *json_open_stream(const char *path, char *buf, size_t len)
{
    FILE *out = out_file_open(path); /* complete or absent: renamed into place by the report */
    if (!out)
        return NULL;
    setvbuf(out, buf, _IOFBF, len);
    __fsetlocking(out, FSETLOCKING_BYCALLER);
    return out;
}
