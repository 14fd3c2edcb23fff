/* nvtx_payload.c: NVTX's payload extension, for the structured payloads
 * NCCL (2.19 and later) attaches to its ranges: communicator, message size,
 * reduction operation, root or peer.
 *
 * The extension loads the same injection library as NVTX itself and calls
 * its InitializeInjectionNvtxExtension, which fills the extension's slots:
 * here schema and enum registration, so that an event's payload (a binary
 * struct and the id of its schema) can be read back field by field into
 * text when the event happens.  Registration is rare and takes a lock;
 * reading takes none (entries are published with a release store of the
 * count).  Only fixed-size scalar and enum fields are read, within the size
 * the event gives; pointers and arrays are left alone, since following a
 * program's pointer is not something a tracer may risk.
 */
#define _GNU_SOURCE
#include "libtrace/real.h"
#include "libtrace/nvtx_payload.h"
#include "collector/strtab.h"

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExtPayload.h>

#ifndef NVTX_EXT_PAYLOAD_MODULEID
#define NVTX_EXT_PAYLOAD_MODULEID 2 /* its name in older headers: NVTX_EXT_MODULEID_PAYLOAD */
#endif

#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define MAX_SCHEMAS 256
#define MAX_FIELDS 16
#define MAX_ENUMS 64
#define MAX_VALUES 16
#define MAX_UNSIZED 4096 /* bytes read of a payload that comes without its size */

struct field { uint64_t type, offset; uint32_t name; };
struct schema { uint64_t id; int nfields; struct field f[MAX_FIELDS]; };
struct penum { uint64_t id; size_t size; int n; struct { uint64_t value; uint32_t name; } v[MAX_VALUES]; };

static struct schema schemas[MAX_SCHEMAS];
static struct penum enums[MAX_ENUMS];
static _Atomic int nschemas, nenums;
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t next_dynamic_id = NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START;

/* Size of a scalar entry type (also its natural alignment), 0 if not one. */
static size_t scalar_size(uint64_t type)
{
    switch (type) {
    case NVTX_PAYLOAD_ENTRY_TYPE_CHAR: case NVTX_PAYLOAD_ENTRY_TYPE_UCHAR: case NVTX_PAYLOAD_ENTRY_TYPE_INT8:
    case NVTX_PAYLOAD_ENTRY_TYPE_UINT8: case NVTX_PAYLOAD_ENTRY_TYPE_BYTE:
        return 1;
    case NVTX_PAYLOAD_ENTRY_TYPE_SHORT: case NVTX_PAYLOAD_ENTRY_TYPE_USHORT: case NVTX_PAYLOAD_ENTRY_TYPE_INT16:
    case NVTX_PAYLOAD_ENTRY_TYPE_UINT16:
        return 2;
    case NVTX_PAYLOAD_ENTRY_TYPE_INT: case NVTX_PAYLOAD_ENTRY_TYPE_UINT: case NVTX_PAYLOAD_ENTRY_TYPE_INT32:
    case NVTX_PAYLOAD_ENTRY_TYPE_UINT32: case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT:
        return 4;
    case NVTX_PAYLOAD_ENTRY_TYPE_LONG: case NVTX_PAYLOAD_ENTRY_TYPE_ULONG: case NVTX_PAYLOAD_ENTRY_TYPE_LONGLONG:
    case NVTX_PAYLOAD_ENTRY_TYPE_ULONGLONG: case NVTX_PAYLOAD_ENTRY_TYPE_INT64: case NVTX_PAYLOAD_ENTRY_TYPE_UINT64:
    case NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE: case NVTX_PAYLOAD_ENTRY_TYPE_SIZE: case NVTX_PAYLOAD_ENTRY_TYPE_ADDRESS:
        return 8;
    default:
        return 0;
    }
}

static const struct penum *enum_of(uint64_t id)
{
    int n = atomic_load_explicit(&nenums, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if (enums[i].id == id)
            return &enums[i];
    return NULL;
}

static const struct schema *schema_of(uint64_t id)
{
    int n = atomic_load_explicit(&nschemas, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if (schemas[i].id == id)
            return &schemas[i];
    return NULL;
}

/* The id a registration gets: the program's own static id, or a new one. */
static uint64_t id_for(uint64_t mask_has_id, uint64_t wanted)
{
    if (mask_has_id && wanted >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START && wanted < NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START)
        return wanted;
    return next_dynamic_id++;
}

static uint64_t cb_schema_register(nvtxDomainHandle_t d, const nvtxPayloadSchemaAttr_t *a)
{
    (void)d;
    if (!a || !(a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES) || !a->entries)
        return 0;
    pthread_mutex_lock(&reg_mu);
    int i = atomic_load_explicit(&nschemas, memory_order_relaxed);
    uint64_t id = 0;
    if (i < MAX_SCHEMAS) {
        struct schema *s = &schemas[i];
        memset(s, 0, sizeof *s);
        id = s->id = id_for(a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID, a->schemaId);
        size_t n = a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES ? a->numEntries : 0;
        /* where a field without an offset goes (packed by natural
         * alignment after the previous one), while that is known */
        uint64_t at = 0;
        int at_known = 1;
        for (size_t k = 0; k < n && s->nfields < MAX_FIELDS; k++) {
            const nvtxPayloadSchemaEntry_t *e = &a->entries[k];
            const struct penum *en = enum_of(e->type);
            /* an enum may be registered after the schemas that use it: its
             * size is then looked up when a payload is read (an int's until) */
            int later_enum = !en && e->type >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START;
            size_t size = en ? en->size : later_enum ? sizeof(int) : scalar_size(e->type);
            if (!size || (e->flags & (NVTX_PAYLOAD_ENTRY_FLAG_POINTER | NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY))) {
                at_known = 0; /* not read, and its size is not known: nor where a field after it lies */
                continue;
            }
            uint64_t off;
            if (e->offset || k == 0)
                off = e->offset;
            else if (at_known)
                off = (at + size - 1) / size * size;
            else
                continue;
            s->f[s->nfields++] = (struct field){ e->type, off, gt_strtab_intern(e->name ? e->name : "?", -1) };
            at = off + size;
            at_known = 1;
        }
        atomic_store_explicit(&nschemas, i + 1, memory_order_release);
    }
    pthread_mutex_unlock(&reg_mu);
    return id;
}

static uint64_t cb_enum_register(nvtxDomainHandle_t d, const nvtxPayloadEnumAttr_t *a)
{
    (void)d;
    if (!a || !(a->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES) || !a->entries)
        return 0;
    pthread_mutex_lock(&reg_mu);
    int i = atomic_load_explicit(&nenums, memory_order_relaxed);
    uint64_t id = 0;
    if (i < MAX_ENUMS) {
        struct penum *e = &enums[i];
        memset(e, 0, sizeof *e);
        id = e->id = id_for(a->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID, a->schemaId);
        e->size = a->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE ? a->sizeOfEnum : sizeof(int);
        if (e->size != 1 && e->size != 2 && e->size != 4 && e->size != 8)
            e->size = 0;
        size_t n = a->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES ? a->numEntries : 0;
        for (size_t k = 0; k < n && e->n < MAX_VALUES; k++) {
            e->v[e->n].value = a->entries[k].value;
            e->v[e->n].name = gt_strtab_intern(a->entries[k].name ? a->entries[k].name : "?", -1);
            e->n++;
        }
        atomic_store_explicit(&nenums, i + 1, memory_order_release);
    }
    pthread_mutex_unlock(&reg_mu);
    return id;
}

static uint8_t cb_domain_enabled(nvtxDomainHandle_t d)
{
    (void)d;
    return 1;
}

static uint64_t read_unsigned(const unsigned char *p, size_t size)
{
    uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
    switch (size) {
    case 1: memcpy(&u8, p, 1); return u8;
    case 2: memcpy(&u16, p, 2); return u16;
    case 4: memcpy(&u32, p, 4); return u32;
    default: memcpy(&u64, p, 8); return u64;
    }
}

/* One field as text into out (at most len bytes); returns the length. */
static int field_text(const struct field *f, const unsigned char *p, char *out, size_t len)
{
    const struct penum *en = enum_of(f->type);
    size_t size = en ? en->size : scalar_size(f->type);
    uint64_t u = read_unsigned(p, size);
    if (en) {
        for (int k = 0; k < en->n; k++)
            if (en->v[k].value == u && gt_strtab_get(en->v[k].name))
                return snprintf(out, len, "%s", gt_strtab_get(en->v[k].name));
        return snprintf(out, len, "%" PRIu64, u);
    }
    switch (f->type) {
    case NVTX_PAYLOAD_ENTRY_TYPE_CHAR: case NVTX_PAYLOAD_ENTRY_TYPE_INT8:
        return snprintf(out, len, "%d", (int)(int8_t)u);
    case NVTX_PAYLOAD_ENTRY_TYPE_SHORT: case NVTX_PAYLOAD_ENTRY_TYPE_INT16:
        return snprintf(out, len, "%d", (int)(int16_t)u);
    case NVTX_PAYLOAD_ENTRY_TYPE_INT: case NVTX_PAYLOAD_ENTRY_TYPE_INT32:
        return snprintf(out, len, "%d", (int)(int32_t)u);
    case NVTX_PAYLOAD_ENTRY_TYPE_LONG: case NVTX_PAYLOAD_ENTRY_TYPE_LONGLONG: case NVTX_PAYLOAD_ENTRY_TYPE_INT64:
        return snprintf(out, len, "%" PRId64, (int64_t)u);
    case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT: {
        float x;
        memcpy(&x, p, sizeof x);
        return snprintf(out, len, "%g", x);
    }
    case NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE: {
        double x;
        memcpy(&x, p, sizeof x);
        return snprintf(out, len, "%g", x);
    }
    case NVTX_PAYLOAD_ENTRY_TYPE_ADDRESS:
        return snprintf(out, len, "0x%" PRIx64, u);
    default:
        return snprintf(out, len, "%" PRIu64, u);
    }
}

uint32_t gt_nvtx_payload_text(const void *data, size_t count)
{
    const nvtxPayloadData_t *pd = data;
    char text[GT_STRTAB_MAXLEN + 1];
    size_t o = 0;
    for (size_t i = 0; pd && i < count && i < 4; i++) {
        const struct schema *s = schema_of(pd[i].schemaId);
        if (!s || !pd[i].payload)
            continue;
        for (int k = 0; k < s->nfields && o + 8 < sizeof text; k++) {
            const struct field *f = &s->f[k];
            const struct penum *en = enum_of(f->type);
            size_t size = en ? en->size : scalar_size(f->type);
            /* only inside what the event handed over (written so that a
             * program's absurd offset cannot wrap the sum); of a payload
             * whose size is not given, only the first MAX_UNSIZED bytes */
            size_t avail = pd[i].size != SIZE_MAX ? pd[i].size : MAX_UNSIZED;
            if (!size || f->offset > avail || size > avail - f->offset)
                continue;
            const char *name = gt_strtab_get(f->name);
            int n = snprintf(text + o, sizeof text - o, "%s%s=", o ? ", " : "", name ? name : "?");
            if (n < 0 || (size_t)n >= sizeof text - o)
                break;
            o += (size_t)n;
            n = field_text(f, (const unsigned char *)pd[i].payload + f->offset, text + o, sizeof text - o);
            if (n < 0 || (size_t)n >= sizeof text - o) {
                o = sizeof text - 1;
                break;
            }
            o += (size_t)n;
        }
    }
    return o ? gt_strtab_intern(text, (long)o) : 0;
}

int InitializeInjectionNvtxExtension(nvtxExtModuleInfo_t *info);

__attribute__((visibility("default"))) int InitializeInjectionNvtxExtension(nvtxExtModuleInfo_t *info)
{
    /* a second copy of this library (not the preloaded one) declines, as
     * InitializeInjectionNvtx2 does */
    if (!gt_in_base_namespace() ||
        !gt_in_global_scope("InitializeInjectionNvtxExtension", (void *)InitializeInjectionNvtxExtension))
        return 0;
    if (!info || info->moduleId != NVTX_EXT_PAYLOAD_MODULEID || info->segmentsCount < 1 || !info->segments ||
        !info->segments[0].functionSlots)
        return 1; /* another extension: nothing of it is recorded, and nothing fails */
    nvtxExtModuleSegment_t *seg = &info->segments[0];
    if (seg->slotCount > NVTX3EXT_CBID_nvtxPayloadSchemaRegister)
        seg->functionSlots[NVTX3EXT_CBID_nvtxPayloadSchemaRegister] = (intptr_t)cb_schema_register;
    if (seg->slotCount > NVTX3EXT_CBID_nvtxPayloadEnumRegister)
        seg->functionSlots[NVTX3EXT_CBID_nvtxPayloadEnumRegister] = (intptr_t)cb_enum_register;
    if (seg->slotCount > NVTX3EXT_CBID_nvtxDomainIsEnabled)
        seg->functionSlots[NVTX3EXT_CBID_nvtxDomainIsEnabled] = (intptr_t)cb_domain_enabled;
    return 1;
}
