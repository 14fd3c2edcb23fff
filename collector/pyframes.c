/* pyframes.c: the Python frames of a wrapped call (see pyframes.h).
 *
 * The thread that calls CUDA or NCCL is the one whose Python stack we want,
 * and while it is inside the call its frames cannot change, GIL or not:
 * PyTorch's bindings release the GIL before they call into ATen, so the
 * frames are read from the thread's own state, as out-of-process profilers
 * read them, with the layouts of pylayout.h:
 *
 *  - the thread's PyThreadState: while it holds the GIL, the current one
 *    (3.12+: a thread-local; 3.9-3.11: the GIL holder's, compared by
 *    address with the thread's own, never read); without it, the one that
 *    PyGILState_GetThisThreadState finds in thread-local storage (no lock,
 *    no GIL needed: checked in each version's source).  Without the GIL in
 *    a process with subinterpreters the thread's own state may not be the
 *    one it was running, so no frames are taken then, and python_status
 *    says so; while the interpreter is finalizing, none either (it frees
 *    the states of threads still outside the GIL).
 *  - its frames, innermost first, each a code object and an instruction
 *    offset; the line is PyCode_Addr2Line's (it reads the code's line
 *    table, allocates nothing, takes no lock) and cached by (code, offset).
 *
 * Nothing here takes a lock, allocates through Python, changes a reference
 * count or touches another thread's state.  Code objects are interned by
 * content (file, function, first line, line table): no reference is kept,
 * so an address may be reused by another code object, and a cache by
 * address is checked against the content each time.  Pointers are checked
 * (non-null, aligned, in user space; code objects and strings by their
 * type) and the walk is bounded, so that a torn or stale chain ends the
 * stack early instead of crashing the program.
 *
 * Versions without a layout here (3.14+) keep the C API path: frames only
 * while the thread holds the GIL (PyEval_GetFrame and friends); free-
 * threaded builds get none.
 */
#define _GNU_SOURCE
#include "collector/pyframes.h"
#include "collector/hash.h"
#include "collector/intern.h"
#include "collector/pylayout.h"
#include "collector/strtab.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

int gt_py_depth;

/* the C API path (the GIL held), for versions without a layout */
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

/* the layout path (GIL or not) */
static struct {
    struct gt_pylayout l;
    void *(*tss_get)(void);       /* PyGILState_GetThisThreadState */
    void *(*cur_get)(void);       /* the attached thread state, unchecked */
    int cur_is_global;            /* 3.9-3.11: cur_get is the GIL holder's, of any thread */
    int (*addr2line)(void *, int); /* PyCode_Addr2Line */
    void *(*interp_head)(void);
    void *(*interp_next)(void *);
    int (*finalizing)(void);
    uintptr_t code_type, str_type, bytes_type;
} nl;
static int use_layout;
/* a capture found a thread without the GIL in a process with subinterpreters */
static _Atomic int subinterp_seen;
static int subinterp_said; /* writer thread only */

#define LOOKUP(field, name) (*(void **)&py.field = dlsym(RTLD_DEFAULT, name))
#define NL_LOOKUP(field, name) (*(void **)&nl.field = dlsym(RTLD_DEFAULT, name))

static const char *init_layout(int minor, const char *version)
{
    const char *why = NULL;
    if (strstr(version, "free-threading"))
        return "free-threaded CPython";
    if (gt_pylayout_get(minor, dlsym(RTLD_DEFAULT, "_PyRuntime"), &nl.l, &why) != 0)
        return why;
    nl.cur_is_global = minor < 12;
    nl.code_type = (uintptr_t)dlsym(RTLD_DEFAULT, "PyCode_Type");
    nl.str_type = (uintptr_t)dlsym(RTLD_DEFAULT, "PyUnicode_Type");
    nl.bytes_type = (uintptr_t)dlsym(RTLD_DEFAULT, "PyBytes_Type");
    if (!NL_LOOKUP(tss_get, "PyGILState_GetThisThreadState") ||
        !NL_LOOKUP(cur_get, minor >= 13 ? "PyThreadState_GetUnchecked" : "_PyThreadState_UncheckedGet") ||
        !NL_LOOKUP(addr2line, "PyCode_Addr2Line") || !NL_LOOKUP(interp_head, "PyInterpreterState_Head") ||
        !NL_LOOKUP(interp_next, "PyInterpreterState_Next") ||
        !NL_LOOKUP(finalizing, minor >= 13 ? "Py_IsFinalizing" : "_Py_IsFinalizing") || !nl.code_type ||
        !nl.str_type || !nl.bytes_type)
        return "a function or type of the frame layout not found";
    return NULL;
}

const char *gt_pyframes_init(int depth)
{
    gt_py_depth = 0;
    use_layout = 0;
    const char *(*version)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "Py_GetVersion");
    if (!version)
        return "no Python";
    int major = 0, minor = 0;
    const char *v = version();
    if (sscanf(v, "%d.%d", &major, &minor) != 2 || major != 3 || minor < 9)
        return "Python older than 3.9: no Python frames";
    if (strstr(v, "free-threading"))
        return "free-threaded CPython: no Python frames";
    if (!LOOKUP(is_initialized, "Py_IsInitialized") || !LOOKUP(gil_check, "PyGILState_Check") ||
        !LOOKUP(err_occurred, "PyErr_Occurred") || !LOOKUP(err_clear, "PyErr_Clear") ||
        !LOOKUP(get_frame, "PyEval_GetFrame") || !LOOKUP(frame_code, "PyFrame_GetCode") ||
        !LOOKUP(frame_back, "PyFrame_GetBack") || !LOOKUP(frame_line, "PyFrame_GetLineNumber") ||
        !LOOKUP(getattr, "PyObject_GetAttrString") || !LOOKUP(utf8, "PyUnicode_AsUTF8") ||
        !LOOKUP(incref, "Py_IncRef") || !LOOKUP(decref, "Py_DecRef"))
        return "Python without the frame API: no Python frames";
    LOOKUP(frame_lasti, "PyFrame_GetLasti");
    const char *why = init_layout(minor, v);
    use_layout = !why;
    if (depth <= 0)
        return "off (GPUTRACE_PYSTACKS=0)";
    gt_py_depth = depth > GT_MAX_PY_DEPTH ? GT_MAX_PY_DEPTH : depth;
    if (why) {
        static char status[160];
        snprintf(status, sizeof status, "active, only while the thread holds the GIL (%s)", why);
        return status;
    }
    return "active";
}

const char *gt_pyframes_status_news(void)
{
    if (subinterp_said || !atomic_load_explicit(&subinterp_seen, memory_order_relaxed))
        return NULL;
    subinterp_said = 1;
    return "active; subinterpreters: no frames of a thread outside the GIL";
}

/* ---- code objects -> (file, function) --------------------------------------
 * One table for both paths.  The layout path keys an entry by the hash of
 * the code's content, the C API path by the code's address (it keeps a
 * reference to the code, so that the address stays its own). */

#define CODES 16384
#define NAME_MAX_BYTES 1024 /* a file or function name past this is cut (strtab keeps 4095) */

struct code_entry {
    _Atomic uint64_t hash;
    _Atomic int ready;
    uint32_t file, func;
    /* the layout path's content, compared on a hash match */
    int32_t firstline;
    uint32_t flen, nlen;
    uint64_t table_hash;
    const char *fs, *ns; /* the interned texts (strtab's arena: never freed) */
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

/* C API path: the entry of a code object (1-based), 0 if the table is full
 * or an exception is pending (reading attributes then could disturb it). */
static uint32_t code_id_capi(void *code)
{
    uint64_t key = (uint64_t)(uintptr_t)code | 1;
    uint64_t h = ((uint64_t)(uintptr_t)code >> 4) * 0x9E3779B97F4A7C15ull >> 32;
    for (uint32_t probe = 0; probe < 32; probe++) {
        struct code_entry *e = &codes[(h + probe) & (CODES - 1)];
        uint64_t cur = atomic_load_explicit(&e->hash, memory_order_acquire);
        if (cur != key && cur)
            continue;
        if (!cur && py.err_occurred())
            return 0;
        switch (gt_intern_probe(&e->hash, &e->ready, key)) {
        case GT_INTERN_CLAIMED:
            py.incref(code); /* kept for good: its address stays its own */
            e->file = intern_attr(code, "co_filename");
            e->func = intern_attr(code, "co_name");
            atomic_store_explicit(&e->ready, 1, memory_order_release);
            return (uint32_t)(e - codes) + 1;
        case GT_INTERN_MATCH:
            return (uint32_t)(e - codes) + 1;
        case GT_INTERN_OTHER:
            break;
        }
    }
    return 0;
}

/* ---- reading the interpreter's memory (layout path) ---------------------- */

#define AT(p, off, T) (*(const T *)((const char *)(p) + (off)))

/* A pointer that could be an object's or a frame's: in user space, aligned. */
static int ok_ptr(uintptr_t p)
{
    return p >= 4096 && p < ((uintptr_t)1 << 47) && !(p & 7);
}

/* An object of type `type` (ob_type at offset 8: not a free-threaded build). */
static int is_a(uintptr_t obj, uintptr_t type)
{
    return ok_ptr(obj) && AT(obj, 8, uintptr_t) == type;
}

/* The text of a str object as UTF-8: *out points into the object (compact
 * ASCII, the usual case) or into buf.  Returns its length (at most
 * NAME_MAX_BYTES), -1 if obj is not a compact str. */
static long read_str(uintptr_t obj, char *buf, const char **out)
{
    if (!is_a(obj, nl.str_type))
        return -1;
    long len = AT(obj, 16, long);
    uint32_t state = AT(obj, 32, uint32_t);
    unsigned kind = (state >> 2) & 7, compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
    if (!compact || len < 0)
        return -1;
    if (ascii) {
        *out = (const char *)obj + nl.l.str_ascii;
        return len > NAME_MAX_BYTES ? NAME_MAX_BYTES : len;
    }
    if (kind != 1 && kind != 2 && kind != 4)
        return -1;
    const unsigned char *d = (const unsigned char *)obj + nl.l.str_compact;
    long o = 0;
    for (long i = 0; i < len; i++) {
        uint32_t c = kind == 1 ? d[i] : kind == 2 ? ((const uint16_t *)d)[i] : ((const uint32_t *)d)[i];
        char u[4];
        int n;
        if (c < 0x80)
            u[0] = (char)c, n = 1;
        else if (c < 0x800)
            u[0] = (char)(0xC0 | c >> 6), u[1] = (char)(0x80 | (c & 0x3F)), n = 2;
        else if (c < 0x10000)
            u[0] = (char)(0xE0 | c >> 12), u[1] = (char)(0x80 | (c >> 6 & 0x3F)), u[2] = (char)(0x80 | (c & 0x3F)), n = 3;
        else if (c < 0x110000)
            u[0] = (char)(0xF0 | c >> 18), u[1] = (char)(0x80 | (c >> 12 & 0x3F)),
            u[2] = (char)(0x80 | (c >> 6 & 0x3F)), u[3] = (char)(0x80 | (c & 0x3F)), n = 4;
        else
            return -1;
        if (o + n > NAME_MAX_BYTES)
            break;
        memcpy(buf + o, u, (size_t)n);
        o += n;
    }
    *out = buf;
    return o;
}

/* What identifies a code object's content, read from it. */
struct code_view {
    uintptr_t code, file, name, table;
    int32_t firstline;
    long flen, nlen, tlen;
    const char *fs, *ns;
    char fbuf[NAME_MAX_BYTES], nbuf[NAME_MAX_BYTES];
};

static int view_code(uintptr_t code, struct code_view *v)
{
    v->code = code;
    v->file = AT(code, nl.l.co_filename, uintptr_t);
    v->name = AT(code, nl.l.co_name, uintptr_t);
    v->table = AT(code, nl.l.co_linetable, uintptr_t);
    v->firstline = AT(code, nl.l.co_firstlineno, int32_t);
    if (!is_a(v->table, nl.bytes_type))
        return -1;
    v->tlen = AT(v->table, 16, long);
    if (v->tlen < 0 || v->tlen > (1L << 24))
        return -1;
    v->flen = read_str(v->file, v->fbuf, &v->fs);
    v->nlen = read_str(v->name, v->nbuf, &v->ns);
    return v->flen < 0 || v->nlen < 0 ? -1 : 0;
}

static int same_content(const struct code_entry *e, const struct code_view *v)
{
    return e->firstline == v->firstline && e->flen == (uint32_t)v->flen && e->nlen == (uint32_t)v->nlen &&
           e->fs && e->ns && !memcmp(e->fs, v->fs, (size_t)v->flen) && !memcmp(e->ns, v->ns, (size_t)v->nlen);
}

/* The entry of a code's content (1-based), 0 if the table is full. */
static uint32_t intern_code(const struct code_view *v)
{
    /* the line table, hashed whole: two codes that differ only in it (a
     * file edited and run again) must not share the cache of lines */
    uint64_t th = gt_fnv1a((const char *)v->table + 32, (size_t)v->tlen, GT_FNV_OFFSET);
    uint64_t h = gt_fnv1a(v->fs, (size_t)v->flen, th);
    h = gt_fnv1a("\0", 1, h);
    h = gt_fnv1a(v->ns, (size_t)v->nlen, h);
    h = gt_fnv1a(&v->firstline, sizeof v->firstline, h) | 1;
    for (uint32_t probe = 0; probe < 64; probe++) {
        struct code_entry *e = &codes[(h + probe) & (CODES - 1)];
        switch (gt_intern_probe(&e->hash, &e->ready, h)) {
        case GT_INTERN_CLAIMED:
            e->file = gt_strtab_intern(v->fs, v->flen);
            e->func = gt_strtab_intern(v->ns, v->nlen);
            e->fs = gt_strtab_get(e->file);
            e->ns = gt_strtab_get(e->func);
            e->firstline = v->firstline;
            e->flen = (uint32_t)v->flen;
            e->nlen = (uint32_t)v->nlen;
            e->table_hash = th;
            atomic_store_explicit(&e->ready, 1, memory_order_release);
            return (uint32_t)(e - codes) + 1;
        case GT_INTERN_MATCH:
            if (e->table_hash == th && same_content(e, v))
                return (uint32_t)(e - codes) + 1;
            break;
        case GT_INTERN_OTHER:
            break;
        }
    }
    return 0;
}

/* ---- code objects by address, checked ------------------------------------
 * A code's content is read and hashed once; after that its address and
 * those of its file name, function name and line table find its entry
 * here, and the names are compared with the entry's (memcmp: an address
 * reused by another code is told apart).  A slot is guarded by a sequence
 * number (odd while written): a reader that sees it change takes the slow
 * way, a writer that finds it odd leaves the slot be. */

#define PCACHE 1024

struct pc_slot {
    _Atomic uint64_t seq;
    _Atomic uint64_t k[5];
    _Atomic uint32_t id;
};
static struct pc_slot pcache[PCACHE];

static void pc_key(const struct code_view *v, uint64_t k[5])
{
    k[0] = v->code;
    k[1] = v->file;
    k[2] = v->name;
    k[3] = v->table;
    k[4] = ((uint64_t)(uint32_t)v->firstline << 32) | (uint32_t)v->tlen;
}

static struct pc_slot *pc_slot_of(uintptr_t code)
{
    return &pcache[((uint64_t)code >> 4) * 0x9E3779B97F4A7C15ull >> 54];
}

static uint32_t pc_get(const uint64_t k[5])
{
    struct pc_slot *s = pc_slot_of(k[0]);
    uint64_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
    if (seq & 1)
        return 0;
    for (int i = 0; i < 5; i++)
        if (atomic_load_explicit(&s->k[i], memory_order_relaxed) != k[i])
            return 0;
    uint32_t id = atomic_load_explicit(&s->id, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    return atomic_load_explicit(&s->seq, memory_order_relaxed) == seq ? id : 0;
}

static void pc_put(const uint64_t k[5], uint32_t id)
{
    struct pc_slot *s = pc_slot_of(k[0]);
    uint64_t seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
    if ((seq & 1) || !atomic_compare_exchange_strong(&s->seq, &seq, seq + 1))
        return;
    atomic_thread_fence(memory_order_release);
    for (int i = 0; i < 5; i++)
        atomic_store_explicit(&s->k[i], k[i], memory_order_relaxed);
    atomic_store_explicit(&s->id, id, memory_order_relaxed);
    atomic_store_explicit(&s->seq, seq + 2, memory_order_release);
}

static uint32_t code_id_layout(uintptr_t code)
{
    struct code_view v;
    if (view_code(code, &v) != 0)
        return 0;
    uint64_t k[5];
    pc_key(&v, k);
    uint32_t id = pc_get(k);
    if (id && same_content(&codes[id - 1], &v))
        return id;
    id = intern_code(&v);
    if (id)
        pc_put(k, id);
    return id;
}

/* ---- line numbers ---------------------------------------------------------
 * Computing a line walks the code's line table from its start; so
 * (code entry, instruction offset) -> line is cached: a loop calls from
 * the same instructions again and again.  A slot is one 64-bit word (key
 * and line packed) so that a reader never sees half an update.  The C API
 * path's entries are by address, the layout path's by content (line table
 * included): either way one entry, one line table. */

#define LINES 16384
static _Atomic uint64_t lines[LINES];

static _Atomic uint64_t *line_slot(uint32_t code, int off, uint64_t *key)
{
    *key = ((uint64_t)code << 24) | (uint32_t)off; /* code < 2^15: 39 bits */
    return &lines[(*key * 0x9E3779B97F4A7C15ull) >> 50];
}

static int line_cached(uint32_t code, int off, int (*compute)(void *, int), void *arg)
{
    if (!code || off < 0 || off >= (1 << 24))
        return compute(arg, off);
    uint64_t key;
    _Atomic uint64_t *slot = line_slot(code, off, &key);
    uint64_t v = atomic_load_explicit(slot, memory_order_relaxed);
    if ((v & 0xFFFFFFFFFFull) == key && v)
        return (int)(v >> 40);
    int line = compute(arg, off);
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
/* stacks made ready, in order, and how many of them the writer visited */
static _Atomic uint32_t made[STACKS];
static struct gt_intern_log made_log = { 0, made };
static uint32_t seen;

static uint32_t intern_stack(const struct frame *f, int n)
{
    _Static_assert(sizeof *f == sizeof(uint64_t), "a frame hashes as one word");
    uint64_t h = gt_hash_words((const uint64_t *)f, (size_t)n) | 1;
    return gt_intern_seq(stacks, STACKS, sizeof *stacks, offsetof(struct stack_entry, f), h, f, n, sizeof *f, &made_log);
}

/* ---- the C API path -------------------------------------------------------- */

static int frame_line_capi(void *frame, int off)
{
    (void)off;
    return py.frame_line(frame);
}

static int capture_capi(struct frame *f)
{
    if (!py.gil_check())
        return 0;
    int n = 0;
    void *cur = py.get_frame(); /* borrowed */
    int owned = 0;
    while (cur && n < gt_py_depth) {
        void *code = py.frame_code(cur); /* new reference */
        f[n].code = code ? code_id_capi(code) : 0;
        f[n].line = py.frame_lasti ? line_cached(f[n].code, py.frame_lasti(cur), frame_line_capi, cur)
                                   : py.frame_line(cur);
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
    return n;
}

/* ---- the layout path ------------------------------------------------------- */

/* Whether the interpreter list has more than the main one: read without
 * its lock, two pointers, as the C API's own PyInterpreterState_Head and
 * _Next do. */
static int subinterpreters(void)
{
    void *head = nl.interp_head();
    return head && nl.interp_next(head);
}

/* The calling thread's own state, whose frames are the ones it is running
 * now; NULL if there are none to take (see the top of this file). */
static uintptr_t own_tstate(void)
{
    void *mine = nl.tss_get();
    void *cur = nl.cur_get();
    if (nl.cur_is_global) {
        if (cur && cur == mine)
            return (uintptr_t)mine; /* this thread holds the GIL */
    } else if (cur) {
        return (uintptr_t)cur; /* attached to this thread: holds the GIL, whichever interpreter's */
    }
    if (!mine || nl.finalizing())
        return 0;
    if (subinterpreters()) {
        atomic_store_explicit(&subinterp_seen, 1, memory_order_relaxed);
        return 0;
    }
    return (uintptr_t)mine;
}

struct addr_arg { uintptr_t code; };

static int addr2line(void *arg, int off)
{
    return nl.addr2line((void *)((struct addr_arg *)arg)->code, off);
}

/* The offset in bytes of the instruction a frame is at, -1 if unknown. */
static long instr_offset(uintptr_t frame, uintptr_t code)
{
    if (nl.l.kind == GT_PYF_OBJECT) {
        int lasti = AT(frame, nl.l.fr_instr, int);
        return lasti < 0 ? -1 : (long)lasti * nl.l.lasti_bytes;
    }
    uintptr_t ip = AT(frame, nl.l.fr_instr, uintptr_t), start = code + (uintptr_t)nl.l.co_code;
    long units = AT(code, 16, long); /* a code object's ob_size: its code units, 2 bytes each */
    if (ip < start || units <= 0 || ip - start >= (uintptr_t)units * 2)
        return -1;
    return (long)(ip - start);
}

static int capture_layout(struct frame *f)
{
    uintptr_t ts = own_tstate();
    if (!ok_ptr(ts))
        return 0;
    uintptr_t fr = AT(ts, nl.l.ts_frame, uintptr_t);
    if (nl.l.cframe_current >= 0)
        fr = ok_ptr(fr) ? AT(fr, nl.l.cframe_current, uintptr_t) : 0;
    int n = 0;
    /* shim frames are skipped, not counted: the walk is bounded apart */
    for (int steps = 0; fr && n < gt_py_depth && steps < 4 * GT_MAX_PY_DEPTH; steps++) {
        if (!ok_ptr(fr))
            break;
        uintptr_t back = AT(fr, nl.l.fr_back, uintptr_t);
        uintptr_t code = AT(fr, nl.l.fr_code, uintptr_t);
        if ((nl.l.fr_owner < 0 || AT(fr, nl.l.fr_owner, uint8_t) != nl.l.owner_cstack) && is_a(code, nl.code_type)) {
            f[n].code = code_id_layout(code);
            long off = instr_offset(fr, code);
            struct addr_arg a = { code };
            f[n].line = off < 0 ? AT(code, nl.l.co_firstlineno, int32_t)
                                : line_cached(f[n].code, (int)off, addr2line, &a);
            n++;
        }
        fr = back;
    }
    return n;
}

uint32_t gt_pystack_capture(void)
{
    if (!py.is_initialized())
        return 0;
    int saved_errno = errno;
    struct frame f[GT_MAX_PY_DEPTH];
    int n = use_layout ? capture_layout(f) : capture_capi(f);
    uint32_t id = n ? intern_stack(f, n) : 0;
    errno = saved_errno;
    return id;
}

struct flush { void (*fn)(uint32_t, const char *, void *); void *ctx; };

static void flush_one(uint32_t i, void *arg)
{
    struct flush *fl = arg;
    struct stack_entry *e = &stacks[i];
    if (e->s.reported)
        return;
    char text[GT_MAX_PY_DEPTH * 600];
    size_t o = 0;
    text[0] = 0;
    for (int k = 0; k < e->s.depth && o < sizeof text - 600; k++) {
        const struct code_entry *c = e->f[k].code ? &codes[e->f[k].code - 1] : NULL;
        const char *file = c ? gt_strtab_get(c->file) : NULL, *func = c ? gt_strtab_get(c->func) : NULL;
        o += (size_t)snprintf(text + o, sizeof text - o, "%s%.280s (%.280s:%d)", k ? "\n" : "",
                              func ? func : "?", file ? file : "?", e->f[k].line);
    }
    fl->fn(i + 1, text, fl->ctx);
    e->s.reported = 1;
}

void gt_pystack_flush_new(void (*fn)(uint32_t id, const char *text, void *ctx), void *ctx)
{
    struct flush fl = { fn, ctx };
    gt_intern_each_new(&made_log, &seen, flush_one, &fl);
}

void gt_pystack_reset_reported(void)
{
    gt_intern_reset(&made_log, stacks, STACKS, sizeof *stacks, &seen);
}
