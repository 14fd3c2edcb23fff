/* term_text.h: text from a database made safe for a terminal
 * (term_text.c).  Every string the text report and the report's stderr
 * lines print from a file goes through here; JSON outputs escape instead
 * (json.h) and keep every character. */
#ifndef GPUTRACE_TERM_TEXT_H
#define GPUTRACE_TERM_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* What term_cell does to fit a width. */
enum {
    TERM_CUT = 1,      /* cut to width columns, between characters */
    TERM_ELLIPSIS = 2, /* ... where it was cut */
    TERM_PAD = 4,      /* spaces after it, up to width columns */
};

/* s as a terminal may show it, into buf (always terminated): printable
 * ASCII and valid UTF-8 as they are; control characters (C0, DEL, C1) and
 * the bidirectional overrides as visible escapes ("\x1b", "\u009b",
 * "\u202e"), never raw; each byte of invalid UTF-8 as "\xff".  A buf too
 * small ends the text between two characters (or escapes), never inside
 * one.  Returns buf. */
const char *term_text(const char *s, char *buf, size_t len);
/* The same, fitted to width columns as flags say (a character or an
 * escape letter is one column): for the text report's tables. */
const char *term_cell(const char *s, int width, int flags, char *buf, size_t len);

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid
 * (overlong, a surrogate, past U+10FFFF, cut short by the NUL); *cp gets
 * its code point.  The HTML report's escaping uses it too. */
int term_utf8_char(const unsigned char *s, uint32_t *cp);

#endif
