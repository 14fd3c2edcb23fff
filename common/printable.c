/* printable.c: values from outside echoed in our messages (see
 * printable.h).  A warning that repeats an environment variable raw lets
 * whoever set it write escape sequences to the user's terminal (ESC [
 * ... rewrites what is shown, or the window's title) and split the one
 * line into many, and a 10 KB value buries the message; so every such
 * value goes through here. */
#include "common/printable.h"
#include "common/utf8.h"

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
        /* a whole UTF-8 character a terminal shows as it is (a path in
         * café/ was echoed caf\xc3\xa9/); a control, a stray byte, escaped */
        uint32_t cp;
        int n = c >= 0x80 ? utf8_char((const unsigned char *)s + i, &cp) : 0;
        if (n && utf8_is_control(cp))
            n = 0;
        if (n) {
            if (o + (size_t)n + 4 > len)
                break;
            for (int k = 0; k < n; k++)
                buf[o++] = s[i + k];
            i += (size_t)n - 1;
            continue;
        }
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
