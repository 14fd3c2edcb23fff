/* test_fdguard_std.c: the standard descriptors held on /dev/null while the
 * tracer makes its own (collector/fdguard.c) are closed again only while
 * they are still the tracer's: a program that closed one in between and
 * opened a file of its own on the number keeps that file (the release
 * closed it), and one that was not free is never touched. */
#include "collector/fdguard.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int is_open(int fd)
{
    return fcntl(fd, F_GETFD) >= 0;
}

Test(fdguard_std, held_then_released)
{
    cr_assert_eq(close(0), 0);
    int held = gt_fd_hold_std();
    cr_assert_eq(held & 1, 1, "fd 0, free, held");
    cr_assert(is_open(0));
    gt_fd_release_std(held);
    cr_assert(!is_open(0), "closed again: the program finds it as it left it");
}

Test(fdguard_std, a_file_the_program_opened_on_the_number_kept)
{
    char path[] = "/tmp/test_fdguard_std_XXXXXX";
    int keep = mkstemp(path);
    cr_assert(keep >= 3);
    unlink(path);
    cr_assert_eq(close(0), 0);
    int held = gt_fd_hold_std();
    cr_assert_eq(held & 1, 1);
    /* the program, meanwhile: closes fd 0 (ours) and opens its file there */
    cr_assert_eq(close(0), 0);
    cr_assert_eq(dup(keep), 0);
    gt_fd_release_std(held);
    cr_assert(is_open(0), "the program's file on fd 0 closed by the tracer");
    cr_assert_eq(write(0, "x", 1), 1);
}

Test(fdguard_std, a_descriptor_not_free_not_held)
{
    for (int fd = 0; fd < 3; fd++) /* (however the suite was started) */
        if (!is_open(fd))
            cr_assert_eq(open("/dev/null", O_RDWR), fd);
    int held = gt_fd_hold_std();
    cr_assert_eq(held, 0, "fds 0-2 open: none held");
    gt_fd_release_std(held);
    cr_assert(is_open(0) && is_open(1) && is_open(2));
}
