/* unload_lib.c: a library that says when it is unloaded (its destructor),
 * for load_ways.c's "unload" mode (UNLOAD_A: the library looked up;
 * otherwise: a plugin that looks a name up with dlsym(RTLD_DEFAULT)). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

#ifdef UNLOAD_A
int unload_a_symbol = 1;
__attribute__((destructor)) static void gone(void)
{
    printf("library A unloaded\n");
    fflush(stdout);
}
#else
int unload_lookup(void)
{
    return dlsym(RTLD_DEFAULT, "unload_a_symbol") != NULL;
}
#endif
