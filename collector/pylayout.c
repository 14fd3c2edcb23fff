/* pylayout.c: CPython's frame layouts per version (see pylayout.h).
 *
 * The numbers for 3.9-3.12 are offsetof() of the fields named in
 * pylayout.h, x86-64 and aarch64 alike (LP64, no field whose size differs);
 * py_layout_check.c recomputes each from the headers.  The owner values
 * are enum _frameowner's (pycore_frame.h): 3.11 has no C-stack shim
 * frames, 3.12 and 3.13 mark them FRAME_OWNED_BY_CSTACK = 3.
 */
#include "collector/pylayout.h"

#include <stddef.h>
#include <string.h>

static const struct gt_pylayout known[] = {
    /* minor kind           ts   cfr  back code instr own lb cstk fn   nm   1st  lt   code ascii cmpct */
    { 9, GT_PYF_OBJECT, 24, -1, 24, 32, 104, -1, 1, -1, 104, 112, 40, 120, -1, 48, 72 },
    { 10, GT_PYF_OBJECT, 24, -1, 24, 32, 96, -1, 2, -1, 104, 112, 40, 120, -1, 48, 72 },
    { 11, GT_PYF_INTERP, 56, 8, 48, 32, 56, 69, 0, -1, 112, 120, 72, 136, 184, 48, 72 },
    { 12, GT_PYF_INTERP, 56, 0, 8, 0, 56, 70, 0, 3, 112, 120, 68, 136, 192, 40, 56 },
};

/* The part of 3.13's _Py_DebugOffsets (Include/internal/pycore_runtime.h)
 * read here, field for field; every entry is a uint64_t. */
struct debug_offsets_313 {
    char cookie[8];
    uint64_t version, free_threaded;
    uint64_t runtime_state[3];
    uint64_t interpreter_state[13];
    struct { uint64_t size, prev, next, interp, current_frame, thread_id, native_thread_id, datastack_chunk, status; } thread_state;
    struct { uint64_t size, previous, executable, instr_ptr, localsplus, owner; } interpreter_frame;
    struct {
        uint64_t size, filename, name, qualname, linetable, firstlineno, argcount, localsplusnames, localspluskinds,
            co_code_adaptive;
    } code_object;
    uint64_t pyobject[2], type_object[4], tuple_object[3], list_object[3], dict_object[3], float_object[2],
        long_object[3], bytes_object[3];
    struct { uint64_t size, state, length, asciiobject_size; } unicode_object;
};

/* An offset that lies inside a struct of `size` bytes and leaves room for
 * a field of `width` bytes. */
static int inside(uint64_t off, uint64_t size, uint64_t width)
{
    return size <= 65536 && off + width <= size;
}

static int from_debug_offsets(const void *runtime, struct gt_pylayout *l, const char **why)
{
    struct debug_offsets_313 d;
    if (!runtime) {
        *why = "no _PyRuntime symbol";
        return -1;
    }
    memcpy(&d, runtime, sizeof d);
    if (memcmp(d.cookie, "xdebugpy", 8) != 0 || (d.version >> 16) != 0x030d) {
        *why = "_PyRuntime's debug offsets not those of 3.13";
        return -1;
    }
    if (d.free_threaded) {
        *why = "free-threaded CPython";
        return -1;
    }
    uint64_t ts = d.thread_state.size, fr = d.interpreter_frame.size, co = d.code_object.size;
    if (!inside(d.thread_state.current_frame, ts, 8) || !inside(d.interpreter_frame.previous, fr, 8) ||
        !inside(d.interpreter_frame.executable, fr, 8) || !inside(d.interpreter_frame.instr_ptr, fr, 8) ||
        !inside(d.interpreter_frame.owner, fr, 1) || !inside(d.code_object.filename, co, 8) ||
        !inside(d.code_object.name, co, 8) || !inside(d.code_object.firstlineno, co, 4) ||
        !inside(d.code_object.linetable, co, 8) || !inside(d.code_object.co_code_adaptive, co, 0) ||
        d.unicode_object.asciiobject_size < 32 || d.unicode_object.asciiobject_size > 256) {
        *why = "_PyRuntime's debug offsets out of range";
        return -1;
    }
    *l = (struct gt_pylayout){
        .minor = 13,
        .kind = GT_PYF_INTERP,
        .ts_frame = (int)d.thread_state.current_frame,
        .cframe_current = -1,
        .fr_back = (int)d.interpreter_frame.previous,
        .fr_code = (int)d.interpreter_frame.executable,
        .fr_instr = (int)d.interpreter_frame.instr_ptr,
        .fr_owner = (int)d.interpreter_frame.owner,
        .lasti_bytes = 0,
        .owner_cstack = 3,
        .co_filename = (int)d.code_object.filename,
        .co_name = (int)d.code_object.name,
        .co_firstlineno = (int)d.code_object.firstlineno,
        .co_linetable = (int)d.code_object.linetable,
        .co_code = (int)d.code_object.co_code_adaptive,
        .str_ascii = (int)d.unicode_object.asciiobject_size,
        /* PyCompactUnicodeObject: PyASCIIObject, then utf8_length and utf8 */
        .str_compact = (int)d.unicode_object.asciiobject_size + 16,
    };
    return 0;
}

int gt_pylayout_get(int minor, const void *runtime, struct gt_pylayout *l, const char **why)
{
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].minor == minor) {
            *l = known[i];
            return 0;
        }
    if (minor == 13)
        return from_debug_offsets(runtime, l, why);
    *why = "no frame layout known for this version";
    return -1;
}
