/* term_text.c: text from a database, made safe for a terminal (see
 * term_text.h).  A run id, an API or kernel name, a call-site frame or an
 * NVTX name is whatever the traced program, its environment
 * (GPUTRACE_RUN_ID, SLURM_JOB_ID) or the file's author put there: raw, an
 * ESC would drive the terminal (colours, the title, the clipboard), and a
 * cut in the middle of a UTF-8 character would leave an invalid one.  Each
 * character is escaped or copied whole, and widths are counted in
 * characters, not bytes. */
#include "common/term_text.h"
#include "common/utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

int term_utf8_char(const unsigned char *s, uint32_t *cp)
{
    return utf8_char(s, cp);
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
        } else if (utf8_is_control(cp)) {
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
