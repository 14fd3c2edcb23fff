/* overlapped.c: the well-overlapped data-parallel step: copy stream ordered by events, pinned memory, all-reduce on a communication stream overlapping backward, the loss read a step late without blocking.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/overlapped
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [cost_ms=LO..HI] [seq=N]
 * [names=..] [missing=..]; allow: kinds that may also appear; nothing else may):
 * allow: gpu.idle comm.exposed:unclaimed
 */
#include "app_train.h"

int main(void)
{
    struct plant p = PLANT_NONE;

    return app_train(&p);
}
