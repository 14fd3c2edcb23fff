/* term_text.c: text from a database, made safe for a terminal (see
 * term_text.h).  A run id, an API or kernel name, a call-site frame or an
 * NVTX name is whatever the traced program, its environment
 * (GPUTRACE_RUN_ID, SLURM_JOB_ID) or the file's author put there: raw, an
 * ESC would drive the terminal (colours, the title, the clipboard), and a
 * cut in the middle of a UTF-8 character would leave an invalid one.  Each
 * character is escaped or copied whole, and widths are counted in
 * characters, not bytes. */
#include "common/term_text.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

int term_utf8_char(const unsigned char *s, uint32_t *cp)
{
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    int n = (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
    if (!n || (n == 2 && s[0] < 0xc2) || (n == 4 && s[0] > 0xf4))
        return 0;
    uint32_t v = s[0] & (0x7f >> n);
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3f);
    }
    if ((n == 3 && (v < 0x800 || (v >= 0xd800 && v <= 0xdfff))) || (n == 4 && (v < 0x10000 || v > 0x10ffff)))
        return 0; /* overlong, a surrogate, past Unicode */
    *cp = v;
    return n;
}

/* Whether a terminal acts on the code point instead of showing it: C0
 * and C1 controls, DEL, and the bidirectional embeddings, overrides and
 * isolates, which reorder what follows them on the line. */
static int is_control(uint32_t c)
{
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

const char *term_cell(const char *str, int width, int flags, char *buf, size_t len)
{
    const unsigned char *s = (const unsigned char *)(str ? str : "");
    if (!len)
        return buf;
    int limit = flags & TERM_CUT ? width : 1 << 30, cols = 0, cut = 0;
    size_t o = 0;
    /* the last place where "..." would still fit after the text */
    size_t room_o = 0;
    int room_cols = 0;
    while (*s) {
        char piece[12];
        uint32_t cp = 0;
        int n = term_utf8_char(s, &cp), plen;
        if (!n) {
            plen = snprintf(piece, sizeof piece, "\\x%02x", *s);
            n = 1;
        } else if (is_control(cp)) {
            plen = snprintf(piece, sizeof piece, cp < 0x80 ? "\\x%02x" : "\\u%04x", (unsigned)cp);
        } else {
            memcpy(piece, s, (size_t)n);
            plen = n;
        }
        int pcols = plen == n ? 1 : plen; /* a character is one column, an escape one per letter */
        if (cols + pcols > limit || o + (size_t)plen >= len) {
            cut = 1;
            break;
        }
        memcpy(buf + o, piece, (size_t)plen);
        o += (size_t)plen;
        cols += pcols;
        s += n;
        if (cols + 3 <= limit && o + 3 < len) {
            room_o = o;
            room_cols = cols;
        }
    }
    if (cut && (flags & TERM_ELLIPSIS) && room_o + 3 < len) {
        o = room_o;
        cols = room_cols;
        memcpy(buf + o, "...", 3);
        o += 3;
        cols += 3;
    }
    if (flags & TERM_PAD)
        while (cols < width && o + 1 < len) {
            buf[o++] = ' ';
            cols++;
        }
    buf[o] = 0;
    return buf;
}

const char *term_text(const char *s, char *buf, size_t len)
{
    return term_cell(s, 0, 0, buf, len);
}
