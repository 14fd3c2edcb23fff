/* pylayout.h: where CPython keeps a thread's frames, per version, so that
 * pyframes.c can read the calling thread's Python stack without the GIL
 * (PyTorch's bindings release it before they call CUDA or NCCL), as
 * out-of-process profilers read it.
 *
 * 3.9-3.12: offsets taken from each version's headers (public and
 * Py_BUILD_CORE internal ones); tests/e2e/python_layouts.sh compiles
 * tests/apps/py_layout_check.c against the headers of every CPython the
 * machine has and checks this table field by field.  3.13: from the
 * _Py_DebugOffsets that CPython publishes for debuggers at the start of
 * the _PyRuntime symbol (cookie and version checked).  Other versions and
 * free-threaded builds have no layout here (pyframes.c then takes frames
 * only under the GIL, through the C API, or none).
 */
#ifndef GPUTRACE_PYLAYOUT_H
#define GPUTRACE_PYLAYOUT_H

#include <stdint.h>

enum gt_pyframe_kind {
    GT_PYF_OBJECT = 1, /* 3.9, 3.10: a chain of PyFrameObject, f_lasti an int */
    GT_PYF_INTERP = 2, /* 3.11+: a chain of _PyInterpreterFrame, an instruction pointer */
};

struct gt_pylayout {
    int minor;          /* 3.minor */
    int kind;           /* enum gt_pyframe_kind */
    int ts_frame;       /* PyThreadState: frame (3.9, 3.10), cframe (3.11, 3.12), current_frame (3.13) */
    int cframe_current; /* _PyCFrame.current_frame (3.11, 3.12); -1 when ts_frame is the frame */
    int fr_back;        /* f_back / previous */
    int fr_code;        /* f_code / f_executable */
    int fr_instr;       /* f_lasti (an int) / prev_instr (3.11, 3.12) / instr_ptr (3.13) */
    int fr_owner;       /* owner (a byte, 3.11+), -1 before */
    int lasti_bytes;    /* GT_PYF_OBJECT: bytes per unit of f_lasti (3.9: 1, 3.10: 2) */
    int owner_cstack;   /* FRAME_OWNED_BY_CSTACK (a shim frame, no code of the user's), -1 if none */
    int co_filename, co_name, co_firstlineno, co_linetable;
    int co_code;        /* GT_PYF_INTERP: co_code_adaptive, where the instruction pointer points */
    int str_ascii;      /* sizeof(PyASCIIObject): a compact ASCII string's bytes follow it */
    int str_compact;    /* sizeof(PyCompactUnicodeObject): a compact non-ASCII string's data follow it */
};

/* The layout of CPython 3.minor; runtime is the process's _PyRuntime (read
 * for 3.13's debug offsets; may be NULL before).  Returns 0 and fills *l,
 * or -1 (*why says why) when this version has none here. */
int gt_pylayout_get(int minor, const void *runtime, struct gt_pylayout *l, const char **why);

#endif
