/* py_layout_check.c: checks the tracer's table of CPython frame layouts
 * (collector/pylayout.c) against the headers of one CPython, field by
 * field.  Built by tests/e2e/python_layouts.sh once per CPython on the
 * machine, with that version's include directory (internal headers too)
 * and its libpython (3.13's layout is read from _PyRuntime's debug
 * offsets, as the tracer reads it).  Prints one line per field; exits 1 on
 * any difference, 77 (skip) for a build the table does not cover. */
#define Py_BUILD_CORE 1
#include <Python.h>
#if PY_VERSION_HEX < 0x030b0000
#include <frameobject.h>
#else
#include "internal/pycore_frame.h"
#endif
#include "internal/pycore_runtime.h"

#include "collector/pylayout.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static int bad;

static void same(const char *what, long got, long want)
{
    printf("%s: %s %ld%s%ld\n", got == want ? "ok" : "bad", what, got, got == want ? " == " : " != ", want);
    bad |= got != want;
}

/* The bits of PyASCIIObject.state that pyframes.c reads: kind 2-4,
 * compact 5, ascii 6. */
static void state_bits(void)
{
    PyASCIIObject a;
    unsigned st;
    memset(&a, 0, sizeof a);
    a.state.kind = 7;
    memcpy(&st, &a.state, sizeof st);
    same("state.kind mask", st, 7 << 2);
    memset(&a, 0, sizeof a);
    a.state.compact = 1;
    memcpy(&st, &a.state, sizeof st);
    same("state.compact mask", st, 1 << 5);
    memset(&a, 0, sizeof a);
    a.state.ascii = 1;
    memcpy(&st, &a.state, sizeof st);
    same("state.ascii mask", st, 1 << 6);
}

int main(void)
{
#ifdef Py_GIL_DISABLED
    puts("skip: a free-threaded build (the tracer takes no frames there)");
    return 77;
#endif
    struct gt_pylayout l;
    const char *why = "";
    if (gt_pylayout_get(PY_MINOR_VERSION, &_PyRuntime, &l, &why) != 0) {
        printf("%s: Python %s: %s\n", PY_VERSION_HEX >= 0x030e0000 ? "skip" : "bad", PY_VERSION, why);
        return PY_VERSION_HEX >= 0x030e0000 ? 77 : 1;
    }
    printf("Python %s\n", PY_VERSION);
#if PY_VERSION_HEX < 0x030b0000
    same("kind", l.kind, GT_PYF_OBJECT);
    same("PyThreadState.frame", l.ts_frame, offsetof(PyThreadState, frame));
    same("cframe_current (none)", l.cframe_current, -1);
    same("PyFrameObject.f_back", l.fr_back, offsetof(PyFrameObject, f_back));
    same("PyFrameObject.f_code", l.fr_code, offsetof(PyFrameObject, f_code));
    same("PyFrameObject.f_lasti", l.fr_instr, offsetof(PyFrameObject, f_lasti));
    same("owner (none)", l.fr_owner, -1);
    same("bytes per f_lasti", l.lasti_bytes, PY_VERSION_HEX >= 0x030a0000 ? sizeof(_Py_CODEUNIT) : 1);
#if PY_VERSION_HEX >= 0x030a0000
    same("PyCodeObject.co_linetable", l.co_linetable, offsetof(PyCodeObject, co_linetable));
#else
    same("PyCodeObject.co_lnotab", l.co_linetable, offsetof(PyCodeObject, co_lnotab));
#endif
#else
    same("kind", l.kind, GT_PYF_INTERP);
#if PY_VERSION_HEX < 0x030d0000
    same("PyThreadState.cframe", l.ts_frame, offsetof(PyThreadState, cframe));
    same("_PyCFrame.current_frame", l.cframe_current, offsetof(_PyCFrame, current_frame));
    same("_PyInterpreterFrame.f_code", l.fr_code, offsetof(_PyInterpreterFrame, f_code));
    same("_PyInterpreterFrame.prev_instr", l.fr_instr, offsetof(_PyInterpreterFrame, prev_instr));
#else
    same("PyThreadState.current_frame", l.ts_frame, offsetof(PyThreadState, current_frame));
    same("cframe_current (none)", l.cframe_current, -1);
    same("_PyInterpreterFrame.f_executable", l.fr_code, offsetof(_PyInterpreterFrame, f_executable));
    same("_PyInterpreterFrame.instr_ptr", l.fr_instr, offsetof(_PyInterpreterFrame, instr_ptr));
#endif
    same("_PyInterpreterFrame.previous", l.fr_back, offsetof(_PyInterpreterFrame, previous));
    same("_PyInterpreterFrame.owner", l.fr_owner, offsetof(_PyInterpreterFrame, owner));
    same("sizeof owner", sizeof(((_PyInterpreterFrame *)0)->owner), 1);
    same("PyCodeObject.co_code_adaptive", l.co_code, offsetof(PyCodeObject, co_code_adaptive));
    same("PyCodeObject.co_linetable", l.co_linetable, offsetof(PyCodeObject, co_linetable));
    same("sizeof _Py_CODEUNIT", sizeof(_Py_CODEUNIT), 2);
    same("PyCodeObject's ob_size (its code units)", offsetof(PyCodeObject, ob_base.ob_size), 16);
#if PY_VERSION_HEX >= 0x030c0000
    same("FRAME_OWNED_BY_CSTACK", l.owner_cstack, FRAME_OWNED_BY_CSTACK);
#else
    same("FRAME_OWNED_BY_CSTACK (none)", l.owner_cstack, -1);
#endif
#endif
    same("PyCodeObject.co_filename", l.co_filename, offsetof(PyCodeObject, co_filename));
    same("PyCodeObject.co_name", l.co_name, offsetof(PyCodeObject, co_name));
    same("PyCodeObject.co_firstlineno", l.co_firstlineno, offsetof(PyCodeObject, co_firstlineno));
    same("sizeof co_firstlineno", sizeof(((PyCodeObject *)0)->co_firstlineno), 4);
    same("sizeof PyASCIIObject", l.str_ascii, sizeof(PyASCIIObject));
    same("sizeof PyCompactUnicodeObject", l.str_compact, sizeof(PyCompactUnicodeObject));
    /* fixed offsets pyframes.c reads in any version */
    same("PyObject.ob_type", offsetof(PyObject, ob_type), 8);
    same("PyVarObject.ob_size", offsetof(PyVarObject, ob_size), 16);
    same("PyBytesObject.ob_sval", offsetof(PyBytesObject, ob_sval), 32);
    same("PyASCIIObject.length", offsetof(PyASCIIObject, length), 16);
    same("PyASCIIObject.state", offsetof(PyASCIIObject, state), 32);
    state_bits();
    return bad;
}
