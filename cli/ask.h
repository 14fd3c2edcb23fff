/* ask.h: `gputrace dump` and `gputrace capture` (ask.c). */
#ifndef GPUTRACE_ASK_H
#define GPUTRACE_ASK_H

/* cmd: "dump" or "capture"; argc/argv after it.  Returns the exit status. */
int gt_ask_main(const char *cmd, int argc, char **argv);

#endif
