/* modules.c: the objects call-site frames point into (see modules.h).
 * A small table filled by the writer thread as it writes frames; objects
 * are few (the program and its libraries), so a linear search will do. */
#define _GNU_SOURCE
#include "collector/modules.h"

#include <elf.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_MODULES 512

struct module {
    uintptr_t l_addr;
    char name[256];         /* as frames name it: the base name of dladdr's */
    char path[PATH_MAX];
    char build_id[2 * 64 + 1];
    int reported;
};

static struct module mods[MAX_MODULES];
static int nmods;

struct find {
    uintptr_t l_addr;
    int main;
    char *hex;
    size_t hexlen;
};

/* The NT_GNU_BUILD_ID note among an object's loaded notes, as hex. */
static int build_id_of(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct find *f = arg;
    if (info->dlpi_addr != f->l_addr)
        return 0;
    if (f->main != (info->dlpi_name == NULL || info->dlpi_name[0] == 0))
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
            const unsigned char *name = p + sizeof *n, *desc = name + ((n->n_namesz + 3) & ~3u);
            const unsigned char *next = desc + ((n->n_descsz + 3) & ~3u);
            if (next > end || next <= p)
                break;
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
                size_t o = 0;
                for (unsigned k = 0; k < n->n_descsz && o + 3 <= f->hexlen; k++)
                    o += (size_t)snprintf(f->hex + o, f->hexlen - o, "%02x", desc[k]);
                return 1;
            }
            p = next;
        }
    }
    return 1; /* the object, without a build id */
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

const char *gt_module_note(const char *fname, uintptr_t l_addr, int main)
{
    for (int i = 0; i < nmods; i++)
        if (mods[i].l_addr == l_addr && !strcmp(mods[i].name, base_name(fname)))
            return mods[i].name;
    if (nmods == MAX_MODULES)
        return base_name(fname);
    struct module *m = &mods[nmods];
    /* dladdr names the executable as it was started ("./app"), a library
     * as the loader found it: the report needs a path it can open */
    ssize_t n = -1;
    if (main)
        n = readlink("/proc/self/exe", m->path, sizeof m->path - 1);
    if (n > 0)
        m->path[n] = 0;
    else if (!realpath(fname, m->path))
        snprintf(m->path, sizeof m->path, "%s", fname);
    snprintf(m->name, sizeof m->name, "%s", base_name(fname));
    m->l_addr = l_addr;
    m->build_id[0] = 0;
    m->reported = 0;
    struct find f = { l_addr, main, m->build_id, sizeof m->build_id };
    dl_iterate_phdr(build_id_of, &f);
    nmods++;
    return m->name;
}

void gt_modules_flush_new(void (*fn)(uint32_t id, const char *name, const char *path, const char *build_id, void *ctx),
                          void *ctx)
{
    for (int i = 0; i < nmods; i++)
        if (!mods[i].reported) {
            fn((uint32_t)i + 1, mods[i].name, mods[i].path, mods[i].build_id, ctx);
            mods[i].reported = 1;
        }
}

void gt_modules_reset_reported(void)
{
    for (int i = 0; i < nmods; i++)
        mods[i].reported = 0;
}
