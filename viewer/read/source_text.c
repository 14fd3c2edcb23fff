/* source_text.c: the text of a call site's source line, so that a finding
 * shows the code it is about ("loss.item()", "torch.cuda.synchronize()")
 * and not only its file:line.  See source_text.h.
 *
 * The path comes from an untrusted database (a Python frame's file) or
 * from the debug information of a binary the database names, so a file is
 * read only if its name ends as source code does, it is a regular file
 * (never a FIFO or a device, which could block the report), and the line
 * lies within its first SOURCE_MAX_BYTES; the text is what the writers
 * escape like every other string of the file. */
#define _GNU_SOURCE
#include "viewer/read/source_text.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SOURCE_MAX_BYTES (16 << 20)

/* Whether path names a source file, by its ending. */
static int source_name(const char *path)
{
    static const char *const ends[] = { ".py", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".cu", ".cuh", NULL };
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return 0;
    for (int i = 0; ends[i]; i++)
        if (!strcmp(dot, ends[i]))
            return 1;
    return 0;
}

/* buf's text without the blanks around it. */
static void trim(char *buf)
{
    size_t n = strlen(buf), a = 0;
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
        buf[--n] = 0;
    while (buf[a] == ' ' || buf[a] == '\t')
        a++;
    memmove(buf, buf + a, n - a + 1);
}

const char *source_line_text(const char *path, long line, char *buf, size_t len)
{
    buf[0] = 0;
    if (!path || !*path || line <= 0 || len < 2 || !source_name(path))
        return buf;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return buf;
    struct stat st;
    FILE *f = NULL;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
        close(fd);
        return buf;
    }
    char chunk[4096];
    long at = 1;
    size_t o = 0, read_bytes = 0;
    int in_line = line == 1;
    while (fgets(chunk, sizeof chunk, f)) {
        size_t n = strlen(chunk);
        read_bytes += n;
        if (read_bytes > SOURCE_MAX_BYTES)
            break;
        if (in_line) { /* a long line comes in several chunks: what fits */
            size_t room = len - 1 - o, k = n < room ? n : room;
            memcpy(buf + o, chunk, k);
            o += k;
            buf[o] = 0;
        }
        if (n && chunk[n - 1] == '\n') {
            if (in_line)
                break;
            in_line = ++at == line;
        }
    }
    fclose(f);
    trim(buf);
    return buf;
}
