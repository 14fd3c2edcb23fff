/* straggler.c: rank 2 does 15 ms of extra host work before every step, so it reaches each all-reduce last and the others wait for it.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/straggler
 * What a correct report finds here (the report tests read these lines):
 * expect: comm.straggler naming rank 2
 * allow: comm.exposed on ranks 0, 1, 3 (their all-reduces wait inside the kernel)
 * allow: gpu.idle
 */
#include "app_train.h"

int main(void)
{
    struct plant p = PLANT_NONE;
    p.straggler_rank = 2;
    return app_train(&p);
}
