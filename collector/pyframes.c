/* pyframes.c: Python frames through the interpreter's C API (see pyframes.h).
 *
 * Per captured call: PyGILState_Check, PyEval_GetFrame, then for each frame
 * PyFrame_GetCode, PyFrame_GetLineNumber and PyFrame_GetBack (3.9+; with
 * 3.11's lazily made frame objects these are the supported way).  A code
 * object is turned into its file and function names once: the first time
 * it is seen, its co_filename and co_name are read and interned (strtab.h),
 * and a reference to it is kept so that its address is never reused by
 * another code object.  Everything here runs under the GIL, which already
 * serialises captures; the tables are lock-free anyway, for interpreters
 * built without one.
 */
#define _GNU_SOURCE
#include "collector/pyframes.h"
#include "collector/hash.h"
#include "collector/intern.h"
#include "collector/strtab.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

int gt_py_depth;

static struct {
    int (*is_initialized)(void);
    int (*gil_check)(void);
    void *(*err_occurred)(void);
    void (*err_clear)(void);
    void *(*get_frame)(void);
    void *(*frame_code)(void *);
    void *(*frame_back)(void *);
    int (*frame_line)(void *);
    int (*frame_lasti)(void *); /* 3.11+; NULL before */
    void *(*getattr)(void *, const char *);
    const char *(*utf8)(void *);
    void (*incref)(void *);
    void (*decref)(void *);
} py;

#define LOOKUP(field, name) (*(void **)&py.field = dlsym(RTLD_DEFAULT, name))

const char *gt_pyframes_init(int depth)
{
    gt_py_depth = 0;
    const char *(*version)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "Py_GetVersion");
    if (!version)
        return "no Python";
    int major = 0, minor = 0;
    if (sscanf(version(), "%d.%d", &major, &minor) != 2 || major != 3 || minor < 9)
        return "Python older than 3.9: no Python frames";
    if (!LOOKUP(is_initialized, "Py_IsInitialized") || !LOOKUP(gil_check, "PyGILState_Check") ||
        !LOOKUP(err_occurred, "PyErr_Occurred") || !LOOKUP(err_clear, "PyErr_Clear") ||
        !LOOKUP(get_frame, "PyEval_GetFrame") || !LOOKUP(frame_code, "PyFrame_GetCode") ||
        !LOOKUP(frame_back, "PyFrame_GetBack") || !LOOKUP(frame_line, "PyFrame_GetLineNumber") ||
        !LOOKUP(getattr, "PyObject_GetAttrString") || !LOOKUP(utf8, "PyUnicode_AsUTF8") ||
        !LOOKUP(incref, "Py_IncRef") || !LOOKUP(decref, "Py_DecRef"))
        return "Python without the frame API: no Python frames";
    LOOKUP(frame_lasti, "PyFrame_GetLasti");
    if (depth <= 0)
        return "off (GPUTRACE_PYSTACKS=0)";
    gt_py_depth = depth > GT_MAX_PY_DEPTH ? GT_MAX_PY_DEPTH : depth;
    return "active";
}

/* ---- code objects -> (file, function) ------------------------------------- */

#define CODES 16384

struct code_entry {
    _Atomic uintptr_t code;
    _Atomic int ready;
    uint32_t file, func;
};
static struct code_entry codes[CODES];

static uint32_t intern_attr(void *obj, const char *attr)
{
    void *v = py.getattr(obj, attr);
    if (!v) {
        py.err_clear();
        return 0;
    }
    const char *s = py.utf8(v);
    uint32_t id = s ? gt_strtab_intern(s, -1) : 0;
    if (!s)
        py.err_clear();
    py.decref(v);
    return id;
}

/* The entry of a code object (1-based), 0 if the table is full or an
 * exception is pending (reading attributes then could disturb it). */
static uint32_t code_id(void *code)
{
    uintptr_t key = (uintptr_t)code;
    uint64_t h = ((uint64_t)key >> 4) * 0x9E3779B97F4A7C15ull >> 32;
    for (uint32_t probe = 0; probe < 32; probe++) {
        uint32_t i = (uint32_t)((h + probe) & (CODES - 1));
        struct code_entry *e = &codes[i];
        uintptr_t cur = atomic_load_explicit(&e->code, memory_order_acquire);
        if (cur == key) {
            while (!atomic_load_explicit(&e->ready, memory_order_acquire))
                ;
            return i + 1;
        }
        if (cur)
            continue;
        if (py.err_occurred())
            return 0;
        uintptr_t expect = 0;
        if (!atomic_compare_exchange_strong(&e->code, &expect, key)) {
            if (expect == key) {
                while (!atomic_load_explicit(&e->ready, memory_order_acquire))
                    ;
                return i + 1;
            }
            continue;
        }
        py.incref(code); /* kept for good: its address stays its own */
        e->file = intern_attr(code, "co_filename");
        e->func = intern_attr(code, "co_name");
        atomic_store_explicit(&e->ready, 1, memory_order_release);
        return i + 1;
    }
    return 0;
}

/* ---- line numbers ---------------------------------------------------------
 * PyFrame_GetLineNumber walks the code's line table from its start on every
 * call.  With 3.11's PyFrame_GetLasti, (code, instruction offset) -> line
 * is cached instead: a loop calls from the same instructions again and
 * again.  A slot is one 64-bit word (key and line packed) so that a reader
 * never sees half an update. */

#define LINES 16384
static _Atomic uint64_t lines[LINES];

static int line_of(void *frame, uint32_t code)
{
    if (!py.frame_lasti || !code)
        return py.frame_line(frame);
    int lasti = py.frame_lasti(frame);
    if (lasti < 0 || lasti >= (1 << 24))
        return py.frame_line(frame);
    uint64_t key = ((uint64_t)code << 24) | (uint32_t)lasti; /* code < 2^15: 39 bits */
    _Atomic uint64_t *slot = &lines[(key * 0x9E3779B97F4A7C15ull) >> 50];
    uint64_t v = atomic_load_explicit(slot, memory_order_relaxed);
    if ((v & 0xFFFFFFFFFFull) == key && v)
        return (int)(v >> 40);
    int line = py.frame_line(frame);
    if (line >= 0 && line < (1 << 23))
        atomic_store_explicit(slot, ((uint64_t)line << 40) | key, memory_order_relaxed);
    return line;
}

/* ---- interned stacks ---------------------------------------------------- */

#define STACKS 8192

struct frame { uint32_t code; int32_t line; };

struct stack_entry {
    struct gt_intern_seq s;  /* the frames follow */
    struct frame f[GT_MAX_PY_DEPTH];
};
static struct stack_entry stacks[STACKS];
/* stacks made ready, and as of the last flush (writer only; -1: look anew) */
static _Atomic uint32_t published;
static int64_t flushed = -1;

static uint32_t intern_stack(const struct frame *f, int n)
{
    _Static_assert(sizeof *f == sizeof(uint64_t), "a frame hashes as one word");
    uint64_t h = gt_hash_words((const uint64_t *)f, (size_t)n) | 1;
    return gt_intern_seq(stacks, STACKS, sizeof *stacks, offsetof(struct stack_entry, f), h, f, n, sizeof *f, &published);
}

uint32_t gt_pystack_capture(void)
{
    if (!py.is_initialized() || !py.gil_check())
        return 0;
    int saved_errno = errno;
    struct frame f[GT_MAX_PY_DEPTH];
    int n = 0;
    void *cur = py.get_frame(); /* borrowed */
    int owned = 0;
    while (cur && n < gt_py_depth) {
        void *code = py.frame_code(cur); /* new reference */
        f[n].code = code ? code_id(code) : 0;
        f[n].line = line_of(cur, f[n].code);
        if (code)
            py.decref(code);
        n++;
        void *back = py.frame_back(cur); /* new reference, or NULL */
        if (owned)
            py.decref(cur);
        cur = back;
        owned = 1;
    }
    if (owned && cur)
        py.decref(cur);
    uint32_t id = n ? intern_stack(f, n) : 0;
    errno = saved_errno;
    return id;
}

void gt_pystack_flush_new(void (*fn)(uint32_t id, const char *text, void *ctx), void *ctx)
{
    uint32_t p = atomic_load_explicit(&published, memory_order_acquire);
    if ((int64_t)p == flushed)
        return;
    flushed = p;
    for (uint32_t i = 0; i < STACKS; i++) {
        struct stack_entry *e = &stacks[i];
        if (e->s.reported || !atomic_load_explicit(&e->s.ready, memory_order_acquire))
            continue;
        char text[GT_MAX_PY_DEPTH * 600];
        size_t o = 0;
        text[0] = 0;
        for (int k = 0; k < e->s.depth && o < sizeof text - 600; k++) {
            const struct code_entry *c = e->f[k].code ? &codes[e->f[k].code - 1] : NULL;
            const char *file = c ? gt_strtab_get(c->file) : NULL, *func = c ? gt_strtab_get(c->func) : NULL;
            o += (size_t)snprintf(text + o, sizeof text - o, "%s%s (%s:%d)", k ? "\n" : "", func ? func : "?",
                                  file ? file : "?", e->f[k].line);
        }
        fn(i + 1, text, ctx);
        e->s.reported = 1;
    }
}

void gt_pystack_reset_reported(void)
{
    flushed = -1;
    for (uint32_t i = 0; i < STACKS; i++)
        stacks[i].s.reported = 0;
}
