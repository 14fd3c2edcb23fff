/* missing_user.c: a plugin that calls a CUDA function its runtime (the
 * stand-in two_copies_lib.c) does not define, for load_ways.c's "missing"
 * mode: opened lazily, the call ends the program with the dynamic
 * linker's "symbol lookup error" and status 127, traced as untraced. */
#include <stdio.h>

int cudaDeviceSynchronize(void);
int cudaStreamQuery(void *stream);

int user_missing(void)
{
    printf("missing cudaDeviceSynchronize %d\n", cudaDeviceSynchronize());
    fflush(stdout);
    int rc = cudaStreamQuery(NULL);
    printf("missing cudaStreamQuery %d\n", rc); /* not a tail call */
    return rc;
}
