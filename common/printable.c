/* printable.c: values from outside echoed in our messages (see
 * printable.h).  A warning that repeats an environment variable raw lets
 * whoever set it write escape sequences to the user's terminal (ESC [
 * ... rewrites what is shown, or the window's title) and split the one
 * line into many, and a 10 KB value buries the message; so every such
 * value goes through here. */
#include "common/printable.h"

const char *gt_printable(const char *s, char *buf, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    if (!len)
        return buf;
    if (!s)
        s = "(null)";
    size_t o = 0, i = 0;
    for (; s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        int plain = c >= 0x20 && c < 0x7f && c != '\\';
        if (o + (plain ? 1 : 4) + 4 > len)
            break;
        if (plain) {
            buf[o++] = (char)c;
        } else {
            buf[o++] = '\\';
            buf[o++] = 'x';
            buf[o++] = hex[c >> 4];
            buf[o++] = hex[c & 15];
        }
    }
    if (s[i] && o + 4 <= len) {
        buf[o++] = '.';
        buf[o++] = '.';
        buf[o++] = '.';
    }
    buf[o < len ? o : len - 1] = 0;
    return buf;
}
