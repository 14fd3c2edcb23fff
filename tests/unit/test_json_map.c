/* test_json_map.c: the JSON reader on a plain file, which it maps a chunk
 * at a time (import/json_stream.c): the same bytes as through zlib, across
 * chunks, and a file that shrinks while it is read fails the parse with an
 * error instead of killing the process with SIGBUS. */
#include "import/json_stream.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* A file of "[1,2,...,n]" (about 8 bytes an element): its path. */
static void write_array(char *path, size_t len, long n, int gz)
{
    snprintf(path, len, "/tmp/test_json_map.XXXXXX");
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    if (gz) {
        gzFile g = gzopen(path, "wb1");
        cr_assert(g);
        gzputs(g, "[");
        for (long i = 1; i <= n; i++)
            gzprintf(g, "%ld%s", i, i < n ? "," : "]");
        gzclose(g);
        return;
    }
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputc('[', f);
    for (long i = 1; i <= n; i++)
        fprintf(f, "%ld%s", i, i < n ? "," : "]");
    fclose(f);
}

/* The array's elements summed, read value by value; -1 if the parse failed
 * (its message in err). */
static long long sum_array(const char *path, char *err, size_t errlen)
{
    struct jstream j;
    cr_assert_eq(js_open(&j, path), 0, "%s", j.err);
    jmp_buf on_error;
    j.on_error = &on_error;
    volatile long long sum = 0;
    if (setjmp(on_error) == 0) {
        js_expect(&j, '[');
        for (;;) {
            js_reset(&j);
            const struct jnode *v = js_node(&j, js_value(&j, 0));
            sum += strtoll(v->s, NULL, 10);
            int c = js_next(&j);
            if (c == ']')
                break;
            if (c != ',')
                js_fail(&j, "not an array");
        }
    } else {
        snprintf(err, errlen, "%s", j.err);
        sum = -1;
    }
    js_close(&j);
    return sum;
}

/* 5 M elements, about 39 MiB: three chunks of 16 MiB, numbers cut at
 * the chunks' edges */
Test(json_map, a_plain_file_read_across_chunks_as_zlib_reads_it)
{
    long n = 5000000;
    long long want = (long long)n * (n + 1) / 2;
    char plain[64], gz[64], err[256] = "";
    write_array(plain, sizeof plain, n, 0);
    write_array(gz, sizeof gz, n, 1);
    cr_expect_eq(sum_array(plain, err, sizeof err), want, "mapped: %s", err);
    cr_expect_eq(sum_array(gz, err, sizeof err), want, "through zlib: %s", err);
    unlink(plain);
    unlink(gz);
}

/* The file cut to a page after its first chunk is mapped: the pages past
 * the new end fault (SIGBUS) when the parser reaches them */
Test(json_map, a_file_that_shrinks_while_read_fails_the_parse)
{
    char path[64], err[256] = "";
    write_array(path, sizeof path, 1000000, 0); /* about 6.9 MiB: one chunk */
    struct jstream j;
    cr_assert_eq(js_open(&j, path), 0, "%s", j.err);
    jmp_buf on_error;
    j.on_error = &on_error;
    volatile long values = 0;
    volatile int failed = 0;
    if (setjmp(on_error) == 0) {
        js_expect(&j, '[');
        cr_assert_eq(truncate(path, 4096), 0);
        for (;;) {
            js_reset(&j);
            js_value(&j, 0);
            values++;
            if (js_next(&j) != ',')
                break;
        }
    } else {
        failed = 1;
        snprintf(err, sizeof err, "%s", j.err);
    }
    js_close(&j);
    unlink(path);
    cr_expect(failed, "the parse went on to its end (%ld values)", (long)values);
    cr_expect(strstr(err, "shrank") != NULL, "the error: %s", err);
    cr_expect(values > 0 && values < 2000, "values read before the fault (a page of them): %ld", (long)values);
}

/* After the stream is closed a SIGBUS is no longer the reader's: it goes
 * to the handler there was before (the process's own, or a sanitizer's) */
static volatile sig_atomic_t theirs;
static void their_handler(int sig)
{
    (void)sig;
    theirs++;
}

Test(json_map, a_sigbus_not_in_the_stream_goes_to_the_handler_before)
{
    signal(SIGBUS, their_handler);
    char path[64], err[256];
    write_array(path, sizeof path, 1000, 0);
    cr_assert_eq(sum_array(path, err, sizeof err), 1000LL * 1001 / 2);
    unlink(path);
    raise(SIGBUS);
    cr_expect_eq(theirs, 1, "the handler before was called %d times", (int)theirs);
}
