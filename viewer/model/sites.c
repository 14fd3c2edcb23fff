/* sites.c: where calls were made, as a user wants to see it.
 *
 * A site is the pair (C stack, Python stack) of a call.  What the report
 * shows for it is one frame: for a call made from Python, the innermost
 * frame of the user's own code (not the standard library, not an installed
 * package such as torch: their frames say only "some .item() somewhere");
 * otherwise the first C frame outside the CUDA, NCCL and framework
 * libraries and the tracer.  Findings are grouped by that frame.
 */
#define _GNU_SOURCE
#include "viewer/model/model.h"
#include "format/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int model_site(struct proc *p, int callsite, int pystack)
{
    uint64_t key = ((uint64_t)(uint32_t)callsite << 32) | (uint32_t)pystack;
    int64_t v;
    if (idmap_get(&p->site_index, key, &v))
        return (int)v;
    if (p->nsites == 0)
        p->nsites = 1; /* site 0: none */
    if (p->nsites >= p->sites_cap) {
        p->sites_cap = p->sites_cap ? p->sites_cap * 2 : 64;
        p->sites = realloc(p->sites, (size_t)p->sites_cap * sizeof *p->sites);
        if (!p->sites) {
            fprintf(stderr, "gputrace-report: out of memory\n");
            exit(1);
        }
        p->sites[0] = (struct site){ 0, 0, 0, NULL };
    }
    p->sites[p->nsites] = (struct site){ callsite, pystack, 0, NULL };
    idmap_put(&p->site_index, key, p->nsites, 0);
    return p->nsites++;
}

static struct site site_of(const struct proc *p, int site)
{
    return site > 0 && site < p->nsites ? p->sites[site] : (struct site){ 0, 0, 0, NULL };
}

/* Whether a written frame ("function (file:line) [module]" or
 * "function+0xoff (module+0xoff)") is CUDA's: a function named as the
 * runtime's, the driver's or CUPTI's are, or one in their libraries. */
static int cuda_frame(const char *f)
{
    static const char *const names[] = { "cuda", "__cuda", "cudart", "__cudart", "cupti", "_ZN6cudart" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strncmp(f, names[i], strlen(names[i])))
            return 1;
    if (f[0] == 'c' && f[1] == 'u' && f[2] >= 'A' && f[2] <= 'Z') /* cuStreamSynchronize */
        return 1;
    static const char *const libs[] = { "libcupti.so", "libcuda.so", "libcudart.so" };
    for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
        const char *at = strstr(f, libs[i]);
        if (at && (at == f || at[-1] == '/' || at[-1] == '[' || at[-1] == '('))
            return 1;
    }
    return 0;
}

/* A stack taken in a CUPTI callback, from the frame below the API the
 * program called: CUPTI's, the driver's and the runtime's frames above it
 * cut (a stack without the mark is left as it is). */
static void cut_runtime_frames(char *stack)
{
    size_t mark = strlen(GT_CALLSITE_RUNTIME_MARK);
    if (strncmp(stack, GT_CALLSITE_RUNTIME_MARK, mark) || (stack[mark] != '\n' && stack[mark] != 0))
        return;
    char *from = stack[mark] ? stack + mark + 1 : stack + mark, *line = from;
    while (*line && !cuda_frame(line)) { /* CUPTI's dispatch, the driver's */
        char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : line + strlen(line);
    }
    while (*line && cuda_frame(line)) { /* the runtime's, down to the API */
        char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : line + strlen(line);
    }
    if (!*line)
        line = from; /* no CUDA frame named (a stripped binary): keep them all */
    memmove(stack, line, strlen(line) + 1);
}

const char *model_callstack(const struct model *m, const struct proc *p, int site, char *buf, size_t len)
{
    buf[0] = 0;
    int id = site_of(p, site).callsite;
    if (id > 0 && m->stacks)
        m->stacks->c_stack(m, p, id, buf, len);
    cut_runtime_frames(buf);
    return buf;
}

const char *model_source_text(const struct model *m, const char *frame, char *buf, size_t len)
{
    buf[0] = 0;
    if (m->stacks && m->stacks->source_text && *frame)
        m->stacks->source_text(frame, buf, len);
    return buf;
}

const char *model_pystack(const struct model *m, const struct proc *p, int site, char *buf, size_t len)
{
    buf[0] = 0;
    int id = site_of(p, site).pystack;
    if (id > 0 && m->stacks)
        m->stacks->py_stack(m, p, id, buf, len);
    return buf;
}

/* A Python frame "function (file:line)" of the interpreter's own library
 * or of an installed package. */
static int python_library_frame(const char *frame)
{
    const char *file = strrchr(frame, '(');
    if (!file)
        return 1;
    file++;
    return !strncmp(file, "<frozen ", 8) || strstr(file, "/site-packages/") || strstr(file, "/dist-packages/") ||
           strstr(file, "/lib/python3.") || strstr(file, "/lib64/python3.");
}

static int c_library_frame(const char *frame)
{
    static const char *const skip[] = { "libgputrace", "libcudart", "libcuda.", "libnccl", "libgpusim",
                                        "libtorch_cuda", "libc10_cuda", "libtorch_python", "libpython", NULL };
    for (int i = 0; skip[i]; i++)
        if (strstr(frame, skip[i]))
            return 1;
    return 0;
}

/* The first frame (line) of stack that is not a library's, else the
 * first frame; "" for an empty stack.  Edits stack in place. */
static const char *first_own_frame(char *stack, int (*is_library)(const char *))
{
    char *line = stack, *first = NULL;
    while (line && *line) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        if (!first)
            first = line;
        if (!is_library(line))
            return line;
        line = nl ? nl + 1 : NULL;
    }
    return first ? first : "";
}

/* Copies s into buf; a frame longer than buf (a C++ template's) loses its
 * tail between two UTF-8 characters, never inside one. */
static void copy_frame(char *buf, size_t len, const char *s)
{
    size_t n = strlen(s);
    if (n >= len) {
        n = len - 1;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80) /* s[n], the first byte left out, starts a character */
            n--;
    }
    memcpy(buf, s, n);
    buf[n] = 0;
}

const char *model_callsite(const struct model *m, const struct proc *p, int site, char *buf, size_t len)
{
    char stack[8192];
    if (*model_pystack(m, p, site, stack, sizeof stack)) {
        copy_frame(buf, len, first_own_frame(stack, python_library_frame));
        return buf;
    }
    model_callstack(m, p, site, stack, sizeof stack);
    const char *f = first_own_frame(stack, c_library_frame);
    copy_frame(buf, len, *f ? f : "(no call stack)");
    return buf;
}

int model_site_shown(const struct model *m, struct proc *p, int site)
{
    if (site <= 0 || site >= p->nsites)
        return 0;
    struct site *s = &p->sites[site];
    if (s->shown)
        return s->shown;
    char text[MODEL_CALLSITE_LEN]; /* what a finding shows */
    model_callsite(m, p, site, text, sizeof text);
    s->text = strdup(text);
    s->shown = site;
    for (int i = 1; i < p->nsites; i++)
        if (i != site && p->sites[i].shown == i && p->sites[i].text && !strcmp(p->sites[i].text, text)) {
            s->shown = i;
            break;
        }
    return s->shown;
}
