/* straggler.c: rank 2 does 15 ms of extra host work before every step, so it reaches each all-reduce last and the others wait for it.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/straggler
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [cost_ms=LO..HI] [seq=N]
 * [names=..] [missing=..]; allow: kinds that may also appear; nothing else may):
 * expect: comm.straggler ranks=2 range=forward cost_ms=20..5000
 * allow: comm.exposed (the other ranks' all-reduces wait inside the kernel) gpu.idle
 */
#include "app_train.h"

int main(void)
{
    struct plant p = PLANT_NONE;
    p.straggler_rank = 2;
    return app_train(&p);
}
