/* test_text_para.c: the text report's paragraphs (viewer/write/text_wrap.c):
 * the first line's room is what the lead leaves, the lines after it
 * indented, no line past TEXT_COLUMNS, a number kept with its unit, a
 * word longer than a line kept whole, and a text longer than the
 * function's own buffer written whole. */
#define _GNU_SOURCE
#include "viewer/write/text_wrap.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* what text_para writes, in a string the caller frees */
static char *para(const char *lead, int indent, const char *text)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert(f);
    text_para(f, lead, indent, "%s", text);
    fclose(f);
    return buf;
}

/* the longest line's length, and the number of lines */
static size_t widest(const char *s, int *lines)
{
    size_t w = 0;
    *lines = 0;
    for (const char *p = s; *p;) {
        size_t n = strcspn(p, "\n");
        if (n > w)
            w = n;
        ++*lines;
        p += n + (p[n] == '\n');
    }
    return w;
}

/* n times c, in buf (n + 1 bytes) */
static char *run_of(char *buf, char c, size_t n)
{
    memset(buf, c, n);
    buf[n] = '\0';
    return buf;
}

/* words of 9 characters and a space: 10 columns each */
static char *words(int n)
{
    char *s = malloc((size_t)n * 10 + 1);
    cr_assert(s);
    for (int i = 0; i < n; i++)
        memcpy(s + 10 * i, "abcdefgh  ", 10), s[10 * i + 8] = (char)('a' + i % 26);
    s[n * 10 - 1] = '\0';
    return s;
}

Test(text_para, a_short_text_on_the_lead_line)
{
    char *got = para("note: ", 6, "all fine");
    cr_assert_str_eq(got, "note: all fine\n");
    free(got);
}

Test(text_para, the_first_line_takes_the_room_the_lead_leaves)
{
    /* a lead of 2 columns and an indent of 4: the first line may hold 98 */
    char *text = words(12), *got = para("  ", 4, text);
    const char *nl = strchr(got, '\n');
    cr_assert(nl);
    cr_assert_eq(nl - got, 2 + 89, "first line %.*s", (int)(nl - got), got); /* 9 words: 89 columns */
    cr_assert(!strncmp(nl + 1, "    ", 4) && nl[5] != ' ', "the next line indented 4: %s", nl + 1);
    int lines;
    cr_assert_leq(widest(got, &lines), TEXT_COLUMNS);
    cr_assert_eq(lines, 2);
    free(text);
    free(got);
}

Test(text_para, a_lead_after_a_newline_measured_from_it)
{
    char *text = words(12), *got = para("\nheading text that is long\nnote: ", 6, text);
    cr_assert(!strncmp(got, "\nheading text that is long\nnote: abcdefgha", 41));
    int lines;
    cr_assert_leq(widest(got, &lines), TEXT_COLUMNS);
    free(text);
    free(got);
}

Test(text_para, a_number_stays_with_its_unit)
{
    /* "12.50" would end at column 99, its "ms" past 100 */
    char text[200], x[94];
    snprintf(text, sizeof text, "%s 12.50 ms left", run_of(x, 'x', 93));
    char *got = para("", 4, text);
    cr_assert(strstr(got, "\n    12.50 ms left\n"), "%s", got);
    free(got);
}

Test(text_para, a_word_longer_than_a_line_whole)
{
    char path[160], text[200];
    snprintf(text, sizeof text, "in %s here", run_of(path, 'p', sizeof path - 1));
    char *got = para("note: ", 6, text);
    cr_assert(strstr(got, path), "the path cut: %s", got);
    cr_assert(strstr(got, "\n      here\n"), "%s", got);
    free(got);
}

Test(text_para, a_lead_that_leaves_little_room_ends_its_line)
{
    char lead[96];
    char *got = para(run_of(lead, '-', sizeof lead - 1), 4, "one two");
    cr_assert(!strncmp(got + strlen(lead), "\n    one two\n", 13), "%s", got);
    free(got);
}

Test(text_para, a_text_longer_than_its_buffer_whole)
{
    char *text = words(1000), *got = para("  ", 4, text); /* 9,999 characters */
    size_t letters = 0;
    for (const char *p = got; *p; p++)
        letters += *p != ' ' && *p != '\n';
    cr_assert_eq(letters, 9000);
    int lines;
    cr_assert_leq(widest(got, &lines), TEXT_COLUMNS);
    free(text);
    free(got);
}
