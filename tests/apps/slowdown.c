/* slowdown.c: every step does 20 ms of host work; from step APP_SLOW_FROM
 * (30) on, rank 1 does APP_SLOW_US (8000) us more, so every rank's steps
 * become 40% longer (the others wait for it in the all-reduces): the
 * slowdown a monitor catches hours into a job (tests/e2e/monitor.sh).
 * APP_SLOW_UNTIL: the first step no longer slow (unset: none), a blip.
 * APP_SLOW_RANK: the rank slowed (1), or "all": every rank alike, so that
 * none makes the others wait longer (tests/data/golden/mon-slowdown_alike).
 *
 * Run as 2 or 4 ranks: gpusim-run -n 4 tests/apps/slowdown (APP_STEPS=60)
 */
#include "app_train.h"

#include <string.h>

int main(void)
{
    struct plant p = PLANT_NONE;
    const char *from = getenv("APP_SLOW_FROM"), *until = getenv("APP_SLOW_UNTIL"), *us = getenv("APP_SLOW_US");
    p.step_host_us = 20000;
    const char *who = getenv("APP_SLOW_RANK");
    p.slow_rank = !who || !*who ? 1 : !strcmp(who, "all") ? SLOW_EVERY_RANK : atoi(who);
    p.slow_from_step = from && *from ? atoi(from) : 30;
    p.slow_until_step = until && *until ? atoi(until) : 0;
    p.slow_us = us && *us ? atoi(us) : 8000;
    return app_train(&p);
}
