/* config.c: reads the tracer's settings (see config.h), and says which
 * file a process writes (the output layouts, shared with `gputrace record`). */
#define _GNU_SOURCE
#include "collector/config.h"
#include "collector/say.h"
#include "common/printable.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int gt_config_env_int(const char *name, int def, int lo, int hi)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return def;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || x < lo || x > hi) {
        char shown[GT_PRINTABLE_LEN];
        gt_say("%s=%s is not a number in %d..%d; using %d", name,
                gt_printable(v, shown, sizeof shown), lo, hi, def);
        return def;
    }
    return (int)x;
}

/* A byte a host name keeps in a file name; any other is '_'. */
static int host_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.';
}

void gt_config_host(char *out, size_t len)
{
    char raw[256];
    if (len < 2) {
        if (len)
            out[0] = 0;
        return;
    }
    if (gethostname(raw, sizeof raw) != 0 || !raw[0])
        snprintf(raw, sizeof raw, "unknown");
    raw[sizeof raw - 1] = 0; /* a name cut to fit need not end in one */
    size_t o = 0;
    for (const char *c = raw; *c && o + 1 < len && o < GT_HOST_MAX; c++, o++)
        out[o] = host_byte((unsigned char)*c) && !(o == 0 && *c == '.') ? *c : '_';
    out[o] = 0;
}

int gt_config_name_matches(const char *p, const char *s)
{
    for (;; p++, s++) {
        if (p[0] == '%' && (p[1] == 'h' || p[1] == 'p' || p[1] == 'r')) {
            int host = p[1] == 'h';
            /* one byte at least, then every way of ending the field */
            for (const char *e = s; *e; ) {
                unsigned char c = (unsigned char)*e;
                if (host ? !host_byte(c) || (e == s && c == '.') : !(c >= '0' && c <= '9'))
                    return 0;
                e++;
                if (gt_config_name_matches(p + 2, e))
                    return 1;
            }
            return 0;
        }
        if (p[0] == '%' && p[1] == '%')
            p++;
        if (*p != *s)
            return 0;
        if (!*p)
            return 1;
    }
}

void gt_config_expand_output(const char *pattern, int rank, char *out, size_t len)
{
    size_t o = 0;
    char host[GT_HOST_MAX + 1];
    gt_config_host(host, sizeof host);
    for (const char *p = pattern; *p && o + 1 < len; p++) {
        char buf[300];
        const char *ins = NULL;
        if (p[0] == '%' && p[1]) {
            switch (p[1]) {
            case 'h': ins = host; break;
            case 'p': snprintf(buf, sizeof buf, "%d", (int)getpid()); ins = buf; break;
            case 'r': snprintf(buf, sizeof buf, "%d", rank < 0 ? 0 : rank); ins = buf; break;
            case '%': ins = "%"; break;
            }
        }
        if (ins) {
            p++;
            for (; *ins && o + 1 < len; ins++)
                out[o++] = *ins;
        } else {
            out[o++] = *p;
        }
    }
    out[o] = 0;
}

int gt_config_pattern_dir(const char *path, char *out, size_t len)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    size_t n = slash == path ? 1 : slash ? (size_t)(slash - path) : 0;
    if (!slash || n >= sizeof dir || n >= len)
        return -1;
    memcpy(dir, path, n);
    dir[n] = 0;
    /* a pid or a rank: each process's own directory, none to name here
     * (read as gt_config_is_pattern and the expansion read it) */
    for (const char *p = dir; *p; p++)
        if (p[0] == '%' && p[1]) {
            if (p[1] == 'p' || p[1] == 'r')
                return -1;
            p++;
        }
    gt_config_expand_output(dir, -1, out, len);
    if (strlen(out) + 1 >= len) { /* cut short, perhaps: no directory to name */
        out[0] = 0;
        return -1;
    }
    return 0;
}

int gt_config_is_pattern(const char *path)
{
    for (const char *p = path; *p; p++)
        if (p[0] == '%' && p[1]) {
            if (p[1] == 'h' || p[1] == 'p' || p[1] == 'r')
                return 1;
            p++; /* "%%" and unknown escapes name no process */
        }
    return 0;
}

enum gt_layout gt_config_layout(const char *path, int one_file)
{
    if (gt_config_is_pattern(path))
        return GT_LAYOUT_PATTERN;
    return one_file ? GT_LAYOUT_FILE : GT_LAYOUT_DIR;
}

int gt_config_one_file(void)
{
    return gt_config_env_int("GPUTRACE_ONE_FILE", 0, 0, 1);
}

void gt_config_load(struct gt_config *cfg, int rank)
{
    memset(cfg, 0, sizeof *cfg);
    const char *out = getenv("GPUTRACE_OUTPUT");
    if (!out || !*out)
        out = "gputrace.db";
    cfg->layout = gt_config_layout(out, gt_config_one_file());
    switch (cfg->layout) {
    case GT_LAYOUT_PATTERN:
        gt_config_expand_output(out, rank, cfg->output, sizeof cfg->output);
        break;
    case GT_LAYOUT_FILE:
        snprintf(cfg->output, sizeof cfg->output, "%s", out);
        break;
    case GT_LAYOUT_DIR: {
        /* A file of its own in the run directory, so that no process ever
         * waits for another's lock: several writers of one SQLite file
         * wait for each other's commits and checkpoints, and a rank's
         * records then wait in memory for seconds, lost if it is killed.
         * This runs at the first CUDA call, so a run directory appears only
         * when some process traces; mkdir is atomic, and EEXIST is the
         * other ranks having made it.  A directory that cannot be made
         * shows as the open's failure, with the file's path. */
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", out);
        for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--)
            dir[n - 1] = 0;
        (void)mkdir(dir, 0777); /* errno: gt_activate restores the program's */
        char name[300];
        gt_config_expand_output(GT_RUN_DIR_FILE, rank, name, sizeof name);
        snprintf(cfg->output, sizeof cfg->output, "%s/%s", dir, name);
        break;
    }
    }
    cfg->cupti = gt_config_env_int("GPUTRACE_CUPTI", 1, 0, 1);
    cfg->callstack_depth = gt_config_env_int("GPUTRACE_CALLSTACKS", 8, 0, GT_MAX_STACK_DEPTH);
    cfg->pystack_depth = gt_config_env_int("GPUTRACE_PYSTACKS", 16, 0, 32);
    cfg->flush_ms = gt_config_env_int("GPUTRACE_FLUSH_MS", 200, 10, 60000);
    cfg->buffer_bytes = (size_t)gt_config_env_int("GPUTRACE_BUFFER_MB", 8, 1, 1024) << 20;
    cfg->quiet = gt_config_env_int("GPUTRACE_QUIET", 0, 0, 1);
    cfg->bulk_after = gt_config_env_int("GPUTRACE_BULK_AFTER", 0, 0, 1 << 30);
    cfg->packed_blocks = gt_config_env_int("GPUTRACE_BLOCK_FORMAT", 2, 1, 2) == 1;
    const char *run = getenv("GPUTRACE_RUN_ID");
    if (!run || !*run)
        run = getenv("TORCHELASTIC_RUN_ID");
    if (!run || !*run)
        run = getenv("SLURM_JOB_ID");
    if (run && *run)
        snprintf(cfg->run_id, sizeof cfg->run_id, "%s", run);
    cfg->cupti_lib = getenv("GPUTRACE_CUPTI_LIB");
    const char *clk = getenv("GPUTRACE_CLOCK");
    if (clk && *clk) {
        if (strcmp(clk, "monotonic") == 0)
            cfg->force_mono_clock = 1;
        else if (strcmp(clk, "tsc") != 0) {
            char shown[GT_PRINTABLE_LEN];
            gt_say("GPUTRACE_CLOCK=%s is not 'tsc' or 'monotonic'; using tsc where invariant",
                    gt_printable(clk, shown, sizeof shown));
        }
    }
}
