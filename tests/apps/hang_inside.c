/* hang_inside.c: at step 3 the last rank's GPU hangs in a kernel just before its first all-reduce of the step; every rank has entered that all-reduce (the hosts run ahead), none finishes it, until the launcher's timeout kills the job.
 *
 * Run as 4 ranks: gpusim-run -n 4 --timeout 5 tests/apps/hang_inside
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [cost_ms=LO..HI] [seq=N]
 * [names=..] [missing=..] [stopped=..]; allow: kinds that may also appear; nothing else may):
 * run: --timeout 5
 * expect: comm.hang ranks=-1 seq=12 stopped=0,1,2,3
 * allow: gpu.idle comm.exposed comm.straggler sync.redundant sync.no_consumer (ranks blocked at the end)
 */
#include "app_train.h"

int main(void)
{
    struct plant p = PLANT_NONE;
    p.hang_inside_step = 3;
    return app_train(&p);
}
