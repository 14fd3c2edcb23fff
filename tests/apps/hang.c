/* hang.c: at step 3 the last rank stops before its first all-reduce; the others wait in it until the launcher's timeout kills the job.
 *
 * Run as 4 ranks: gpusim-run -n 4 --timeout 5 tests/apps/hang
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [cost_ms=LO..HI] [seq=N]
 * [names=..] [missing=..]; allow: kinds that may also appear; nothing else may):
 * run: --timeout 5
 * expect: comm.hang ranks=-1 seq=12 missing=3
 * allow: gpu.idle comm.exposed comm.straggler sync.redundant sync.no_consumer (ranks blocked at the end)
 */
#include "app_train.h"

int main(void)
{
    struct plant p = PLANT_NONE;
    p.hang_step = 3;
    return app_train(&p);
}
