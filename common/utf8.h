/* utf8.h: one UTF-8 character and whether a terminal acts on it instead
 * of showing it, for what echoes outside text: the report's tables and
 * lines (term_text.c) and the tracer's and the CLI's messages
 * (printable.c).  Inline: the tracer's library exports no name of its
 * own but gt_* (tests/e2e/tracer_exports.sh), and term_text.c is the
 * report's. */
#ifndef GPUTRACE_UTF8_H
#define GPUTRACE_UTF8_H

#include <stdint.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid
 * (overlong, a surrogate, past U+10FFFF, cut short by the NUL); *cp gets
 * its code point. */
static inline int utf8_char(const unsigned char *s, uint32_t *cp)
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
 * and C1 controls, DEL, and the bidirectional embeddings, overrides,
 * isolates and marks, which reorder what is shown around them. */
static inline int utf8_is_control(uint32_t c)
{
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) ||
           c == 0x200e || c == 0x200f || c == 0x061c; /* the marks: LRM, RLM, ALM */
}

#endif
