/* two_copies_user.c: a plugin linked against one copy of two_copies_lib.c
 * (USER a or b), for load_ways.c: each must reach its own copy. */
#include <errno.h>

int cudaDeviceSynchronize(void);

#define CAT(a, b) a##b
#define NAME(u) CAT(user_, u)
int NAME(USER)(int *err)
{
    errno = 0;
    int rc = cudaDeviceSynchronize();
    *err = errno;
    return rc;
}
