/* huge_pages.h: the report's memory on transparent huge pages (see
 * huge_pages.c): called first thing in main, it may run the report again
 * in the same process, once. */
#ifndef GT_VIEWER_HUGE_PAGES_H
#define GT_VIEWER_HUGE_PAGES_H

void report_huge_pages(char **argv);

#endif
