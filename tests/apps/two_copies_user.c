/* two_copies_user.c: a plugin linked against one copy of two_copies_lib.c
 * (USER a or b), for load_ways.c: each must reach its own copy. */
#include <errno.h>

int cudaDeviceSynchronize(void);

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define NAME(u) CAT(user_, u)
#define NAME2(u) CAT(NAME(u), _again)
int NAME(USER)(int *err)
{
    errno = 0;
    int rc = cudaDeviceSynchronize();
    *err = errno;
    return rc;
}

/* a second call site of the same object: it binds as the first did */
int NAME2(USER)(int *err)
{
    errno = 0;
    int rc = cudaDeviceSynchronize();
    *err = errno;
    return rc;
}
