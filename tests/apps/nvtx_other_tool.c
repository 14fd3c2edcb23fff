/* nvtx_other_tool.c: a stand-in for another NVTX tool (a library the user
 * names in NVTX_INJECTION64_PATH).  When NVTX loads it, it writes "loaded"
 * to the file NVTX_OTHER_TOOL_OUT names, and takes no callbacks: the test
 * checks that the tracer kept the user's choice. */
#include <stdio.h>
#include <stdlib.h>

int InitializeInjectionNvtx2(const void *(*get_export_table)(unsigned));

int InitializeInjectionNvtx2(const void *(*get_export_table)(unsigned))
{
    (void)get_export_table;
    const char *out = getenv("NVTX_OTHER_TOOL_OUT");
    FILE *f = out ? fopen(out, "w") : NULL;
    if (f) {
        fputs("loaded\n", f);
        fclose(f);
    }
    return 1;
}
