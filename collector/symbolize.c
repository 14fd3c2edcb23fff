/* symbolize.c: file:line for call sites through libdw's dwfl interface
 * (see symbolize.h).  libdw is never linked: it is opened with dlopen, and
 * the handful of entry points used are declared here with opaque types,
 * so a machine without elfutils simply gets module+offset call sites. */
#define _GNU_SOURCE
#include "collector/symbolize.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
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
    int (*proc_report)(Dwfl *, pid_t);
    int (*report_end)(Dwfl *, void *, void *);
    Dwfl_Module *(*addrmodule)(Dwfl *, Dwarf_Addr);
    Dwfl_Line *(*getsrc)(Dwfl_Module *, Dwarf_Addr);
    const char *(*lineinfo)(Dwfl_Line *, Dwarf_Addr *, int *, int *, uint64_t *, uint64_t *);
    const char *(*addrname)(Dwfl_Module *, Dwarf_Addr);
    void (*end)(Dwfl *);
    struct dwfl_callbacks cb;
} dw;

static Dwfl *session;

static void load(void)
{
    dw.tried = 1;
    void *h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
#define SYM(field, name) *(void **)&dw.field = dlsym(h, name)
    SYM(begin, "dwfl_begin");
    SYM(proc_report, "dwfl_linux_proc_report");
    SYM(report_end, "dwfl_report_end");
    SYM(addrmodule, "dwfl_addrmodule");
    SYM(getsrc, "dwfl_module_getsrc");
    SYM(lineinfo, "dwfl_lineinfo");
    SYM(addrname, "dwfl_module_addrname");
    SYM(end, "dwfl_end");
#undef SYM
    dw.cb.find_elf = dlsym(h, "dwfl_linux_proc_find_elf");
    dw.cb.find_debuginfo = dlsym(h, "dwfl_standard_find_debuginfo");
    dw.ok = dw.begin && dw.proc_report && dw.report_end && dw.addrmodule && dw.getsrc && dw.lineinfo &&
            dw.addrname && dw.end && dw.cb.find_elf && dw.cb.find_debuginfo;
}

void gt_symbolize_begin(void)
{
    if (!dw.tried)
        load();
    if (!dw.ok || session)
        return;
    session = dw.begin(&dw.cb);
    if (session && (dw.proc_report(session, getpid()) != 0 || dw.report_end(session, NULL, NULL) != 0)) {
        dw.end(session);
        session = NULL;
    }
}

int gt_symbolize(void *pc, char *out, size_t len)
{
    if (!session)
        return -1;
    Dwarf_Addr at = (Dwarf_Addr)(uintptr_t)pc - 1; /* the call, not the return address */
    Dwfl_Module *mod = dw.addrmodule(session, at);
    if (!mod)
        return -1;
    Dwfl_Line *line = dw.getsrc(mod, at);
    if (!line)
        return -1;
    int lineno = 0;
    const char *file = dw.lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
    if (!file || lineno <= 0)
        return -1;
    const char *fn = dw.addrname(mod, at);
    const char *base = strrchr(file, '/');
    Dl_info info;
    const char *module = dladdr((void *)(uintptr_t)at, &info) && info.dli_fname ? info.dli_fname : "?";
    const char *mbase = strrchr(module, '/');
    snprintf(out, len, "%s (%s:%d) [%s]", fn ? fn : "??", base ? base + 1 : file, lineno, mbase ? mbase + 1 : module);
    return 0;
}

void gt_symbolize_end(void)
{
    if (session) {
        dw.end(session);
        session = NULL;
    }
}
