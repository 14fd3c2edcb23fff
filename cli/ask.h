/* ask.h: `gputrace dump` and `gputrace capture` (ask.c). */
#ifndef GPUTRACE_ASK_H
#define GPUTRACE_ASK_H

/* cmd: "dump" or "capture"; argc/argv after it.  Returns the exit status. */
int gt_ask_main(const char *cmd, int argc, char **argv);
/* 1, said in one line as cmd's, when run holds gputrace databases and none
 * of a monitored process (meta 'mode'): recorded without --monitor, so no
 * process answers a request or writes metrics; else 0. */
int gt_ask_unmonitored(const char *cmd, const char *run);

#endif
