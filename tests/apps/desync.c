/* desync.c: at step 5 rank 1 all-reduces half as many elements as the others in the first bucket: the ranks disagree on one collective.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/desync
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [cost_ms=LO..HI] [seq=N]
 * [names=..] [missing=..]; allow: kinds that may also appear; nothing else may):
 * expect: comm.mismatch ranks=-1 seq=20 names=1
 * allow: gpu.idle comm.exposed
 * allow: comm.straggler comm.exposed (on 2 cores the simulator can starve one rank of CPU: it is then a real
 *   straggler, and the others' collectives wait for it inside their kernels)
 */
#include "app_train.h"

int main(void)
{
    struct plant p = PLANT_NONE;
    p.desync_step = 5;
    return app_train(&p);
}
