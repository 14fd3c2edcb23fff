/* symbolize.c: file:line for call-site frames, in the report (see
 * symbolize.h).  libdw is never linked: it is opened with dlopen, and the
 * handful of entry points used are declared here with opaque types, so a
 * machine without elfutils simply gets module+offset frames.
 *
 * The module table of a database is untrusted input like the rest: a path
 * there is opened only if it is a regular file whose GNU build id, read
 * here with bounds checks before libdw sees the file, is the one recorded
 * (so a rebuilt binary never lends the old one its lines, and a FIFO or a
 * device never blocks the report). */
#define _GNU_SOURCE
#include "viewer/read/symbolize.h"
#include "viewer/model/idmap.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct Dwfl Dwfl;
typedef struct Dwfl_Module Dwfl_Module;
typedef struct Dwfl_Line Dwfl_Line;
typedef uint64_t Dwarf_Addr;

/* Dwfl_Callbacks, as libdwfl.h lays it out. */
struct dwfl_callbacks {
    void *find_elf;
    void *find_debuginfo;
    void *section_address;
    char **debuginfo_path;
};

static struct {
    int tried, ok;
    Dwfl *(*begin)(const struct dwfl_callbacks *);
    Dwfl_Module *(*report_elf)(Dwfl *, const char *, const char *, int, Dwarf_Addr, _Bool);
    int (*report_end)(Dwfl *, void *, void *);
    Dwfl_Module *(*addrmodule)(Dwfl *, Dwarf_Addr);
    Dwfl_Line *(*getsrc)(Dwfl_Module *, Dwarf_Addr);
    const char *(*lineinfo)(Dwfl_Line *, Dwarf_Addr *, int *, int *, uint64_t *, uint64_t *);
    const char *(*addrname)(Dwfl_Module *, Dwarf_Addr);
    void (*end)(Dwfl *);
    struct dwfl_callbacks cb;
} dw;

/* One object, opened once per report: its path and build id as recorded,
 * and the libdw session over it (NULL: no lines from it). */
struct object {
    char *path, *build_id;
    Dwfl *session;
};
static struct object *objects;
static int nobjects, objects_cap;

static void load(void)
{
    dw.tried = 1;
    void *h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
#define SYM(field, name) *(void **)&dw.field = dlsym(h, name)
    SYM(begin, "dwfl_begin");
    SYM(report_elf, "dwfl_report_elf");
    SYM(report_end, "dwfl_report_end");
    SYM(addrmodule, "dwfl_addrmodule");
    SYM(getsrc, "dwfl_module_getsrc");
    SYM(lineinfo, "dwfl_lineinfo");
    SYM(addrname, "dwfl_module_addrname");
    SYM(end, "dwfl_end");
#undef SYM
    dw.cb.find_elf = dlsym(h, "dwfl_build_id_find_elf");
    dw.cb.find_debuginfo = dlsym(h, "dwfl_standard_find_debuginfo");
    dw.cb.section_address = dlsym(h, "dwfl_offline_section_address");
    dw.ok = dw.begin && dw.report_elf && dw.report_end && dw.addrmodule && dw.getsrc && dw.lineinfo && dw.addrname &&
            dw.end && dw.cb.find_elf && dw.cb.find_debuginfo && dw.cb.section_address;
}

static int read_at(int fd, void *buf, size_t n, uint64_t off, uint64_t size)
{
    if (off > size || n > size - off)
        return -1;
    return pread(fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

/* The GNU build id of the ELF64 file fd (size bytes), as lower-case hex,
 * from its PT_NOTE segments; 0 when found. */
static int file_build_id(int fd, uint64_t size, char *hex, size_t hexlen)
{
    Elf64_Ehdr eh;
    if (read_at(fd, &eh, sizeof eh, 0, size) || memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 256)
        return -1;
    for (int i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        if (read_at(fd, &ph, sizeof ph, eh.e_phoff + (uint64_t)i * sizeof ph, size))
            return -1;
        if (ph.p_type != PT_NOTE || ph.p_filesz > 4096)
            continue;
        unsigned char notes[4096];
        if (read_at(fd, notes, ph.p_filesz, ph.p_offset, size))
            return -1;
        size_t o = 0;
        while (o + sizeof(Elf64_Nhdr) <= ph.p_filesz) {
            Elf64_Nhdr n;
            memcpy(&n, notes + o, sizeof n);
            size_t name = o + sizeof n, desc = name + ((n.n_namesz + 3u) & ~3u);
            size_t next = desc + ((n.n_descsz + 3u) & ~3u);
            if (n.n_namesz > 64 || n.n_descsz > 64 || next > ph.p_filesz)
                break;
            if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 && !memcmp(notes + name, "GNU", 4)) {
                size_t w = 0;
                for (unsigned k = 0; k < n.n_descsz && w + 3 <= hexlen; k++)
                    w += (size_t)snprintf(hex + w, hexlen - w, "%02x", notes[desc + k]);
                return 0;
            }
            o = next;
        }
    }
    return -1;
}

/* The object at path opened, if it is the one recorded (its build id):
 * the descriptor, or -1. */
static int open_recorded(const char *path, const char *build_id)
{
    if (!build_id || !*build_id)
        return -1; /* nothing tells this file from a rebuilt one */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    struct stat st;
    char hex[2 * 64 + 1] = "";
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || file_build_id(fd, (uint64_t)st.st_size, hex, sizeof hex) ||
        strcmp(hex, build_id)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* A libdw session over the object at path, if it is the one recorded. */
static Dwfl *open_object(const char *path, const char *build_id)
{
    int fd = open_recorded(path, build_id);
    if (fd < 0)
        return NULL;
    Dwfl *s = dw.begin(&dw.cb);
    if (!s) {
        close(fd);
        return NULL;
    }
    /* base 0: the object's addresses are its link-time ones, as the frames'
     * offsets are (from the load bias); libdw owns fd once it is reported */
    if (!dw.report_elf(s, "object", path, fd, 0, 0)) {
        close(fd);
        dw.end(s);
        return NULL;
    }
    dw.report_end(s, NULL, NULL);
    return s;
}

static Dwfl *object(const char *path, const char *build_id)
{
    for (int i = 0; i < nobjects; i++)
        if (!strcmp(objects[i].path, path) && !strcmp(objects[i].build_id, build_id))
            return objects[i].session;
    if (nobjects == objects_cap) {
        int cap = objects_cap ? objects_cap * 2 : 16;
        struct object *o = realloc(objects, (size_t)cap * sizeof *o);
        if (!o)
            return NULL;
        objects = o;
        objects_cap = cap;
    }
    char *p = strdup(path), *b = strdup(build_id);
    if (!p || !b) {
        free(p);
        free(b);
        return NULL;
    }
    objects[nobjects] = (struct object){ p, b, open_object(path, build_id) };
    return objects[nobjects++].session;
}

/* The path and build id the database records for the module frames call
 * name, in process process_id; 0 when there is exactly one such object. */
static int module_row(sqlite3 *db, int64_t process_id, const char *name, char *path, size_t plen, char *bid, size_t blen)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "SELECT path, build_id FROM module WHERE process_id = ? AND name = ? LIMIT 2", -1, &s,
                           NULL) != SQLITE_OK)
        return -1; /* a database from before the module table */
    sqlite3_bind_int64(s, 1, process_id);
    sqlite3_bind_text(s, 2, name, -1, SQLITE_TRANSIENT);
    int found = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        const unsigned char *p = sqlite3_column_text(s, 0), *b = sqlite3_column_text(s, 1);
        if (!p || !b)
            continue;
        snprintf(path, plen, "%s", (const char *)p);
        snprintf(bid, blen, "%s", (const char *)b);
        found++;
    }
    sqlite3_finalize(s);
    return found == 1 ? 0 : -1; /* two objects of one name: which is meant is unknown */
}

/* Parses "function+0xoff (module+0xOFF)" or "module+0xOFF". */
static int parse_frame(const char *f, char *module, size_t mlen, uint64_t *off)
{
    const char *open = strrchr(f, '(');
    const char *m = open ? open + 1 : f;
    const char *plus = strrchr(m, '+');
    if (!plus || plus == m || (size_t)(plus - m) >= mlen || strncmp(plus, "+0x", 3))
        return -1;
    char *end;
    unsigned long long v = strtoull(plus + 3, &end, 16);
    if (end == plus + 3 || (open ? strcmp(end, ")") : *end != 0))
        return -1;
    memcpy(module, m, (size_t)(plus - m));
    module[plus - m] = 0;
    *off = v;
    return 0;
}

/* The source file each frame written names, in full: the frame shows its
 * base name only, and a finding's source line (symbolize_source_path) is
 * read from the file itself.  Key: the frame's text (idmap_text_key);
 * value: an index into paths.  Bounded: frames past PATHS_KEPT have no
 * source line shown. */
#define PATHS_KEPT 65536
static struct idmap path_of;
static char **paths;
static size_t npaths, paths_cap;

static void remember_path(const char *frame, const char *file)
{
    uint64_t key = idmap_text_key(frame);
    int64_t i;
    if (npaths >= PATHS_KEPT || idmap_get(&path_of, key, &i))
        return;
    if (npaths == paths_cap) {
        size_t cap = paths_cap ? paths_cap * 2 : 64;
        char **v = realloc(paths, cap * sizeof *v);
        if (!v)
            return;
        paths = v;
        paths_cap = cap;
    }
    if (!(paths[npaths] = strdup(file)))
        return;
    idmap_put(&path_of, key, (int64_t)npaths++, 1);
}

/* Writes "function (file:line) [module]" for one frame, or returns -1. */
static int frame_lines(sqlite3 *db, int64_t process_id, const char *frame, char *out, size_t len)
{
    char module[256], path[4096], bid[2 * 64 + 1];
    uint64_t off;
    if (parse_frame(frame, module, sizeof module, &off) ||
        module_row(db, process_id, module, path, sizeof path, bid, sizeof bid))
        return -1;
    Dwfl *s = object(path, bid);
    if (!s)
        return -1;
    Dwfl_Module *mod = dw.addrmodule(s, off);
    Dwfl_Line *line = mod ? dw.getsrc(mod, off) : NULL;
    int lineno = 0;
    const char *file = line ? dw.lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
    if (!file || lineno <= 0) {
        /* no line, but a name the tracer could not see (a local symbol:
         * the static CUDA runtime's cudaStreamSynchronize inside the
         * program, which a stack taken in CUPTI's callback begins with,
         * and which read as the call site of every sync of that program) */
        const char *fn = mod && !strchr(frame, '(') ? dw.addrname(mod, off) : NULL;
        if (!fn || !*fn)
            return -1;
        snprintf(out, len, "%s (%s)", fn, frame);
        return 0;
    }
    const char *fn = dw.addrname(mod, off);
    const char *base = strrchr(file, '/');
    snprintf(out, len, "%s (%s:%d) [%s]", fn ? fn : "??", base ? base + 1 : file, lineno, module);
    remember_path(out, file);
    return 0;
}

/* Whether a frame of a stack shown raw names an object that is here, as
 * recorded: libdw would have given its line (a GPU node without elfutils,
 * seen on an H200 host).  Set once; guarded by the lock below. */
static int lines_missed;

static void note_missed(sqlite3 *db, int64_t process_id, const char *stack)
{
    char module[256], path[4096], bid[2 * 64 + 1], frame[1024];
    uint64_t off;
    for (const char *line = stack; line && *line && !lines_missed;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        snprintf(frame, sizeof frame, "%.*s", (int)(n < sizeof frame ? n : sizeof frame - 1), line);
        if (!parse_frame(frame, module, sizeof module, &off) &&
            !module_row(db, process_id, module, path, sizeof path, bid, sizeof bid)) {
            int fd = open_recorded(path, bid);
            if (fd >= 0) {
                close(fd);
                lines_missed = 1;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
}

static void symbolize_locked(sqlite3 *db, int64_t process_id, char *stack, size_t len)
{
    if (!dw.tried)
        load();
    if (!dw.ok) {
        note_missed(db, process_id, stack);
        return;
    }
    char *out = malloc(len);
    if (!out)
        return;
    size_t o = 0;
    for (char *line = stack; line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        char sym[600];
        const char *f = frame_lines(db, process_id, line, sym, sizeof sym) == 0 ? sym : line;
        int n = snprintf(out + o, len - o, "%s%s", o ? "\n" : "", f);
        if (n < 0 || (size_t)n >= len - o) {
            out[o] = 0; /* what fits, whole frames only */
            break;
        }
        o += (size_t)n;
        line = nl ? nl + 1 : NULL;
    }
    memcpy(stack, out, o + 1);
    free(out);
}

/* The report's workers (viewer/proc_jobs.h) share the object table and
 * libdw's sessions, which are not for two threads at once. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void symbolize_stack(sqlite3 *db, int64_t process_id, char *stack, size_t len)
{
    if (!*stack)
        return;
    pthread_mutex_lock(&lock);
    symbolize_locked(db, process_id, stack, len);
    pthread_mutex_unlock(&lock);
}

int symbolize_source_path(const char *frame, char *path, size_t len)
{
    int64_t i;
    int found = 0;
    pthread_mutex_lock(&lock);
    if (npaths && idmap_get(&path_of, idmap_text_key(frame), &i) && (size_t)i < npaths) {
        snprintf(path, len, "%s", paths[i]);
        found = 1;
    }
    pthread_mutex_unlock(&lock);
    return found;
}

int symbolize_lines_missed(void)
{
    pthread_mutex_lock(&lock);
    int missed = lines_missed;
    pthread_mutex_unlock(&lock);
    return missed;
}
