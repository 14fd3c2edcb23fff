/* scalar_read.c: a data-parallel step that reads the loss on the host every step (loss.item()): an async copy of 4 bytes and a cudaStreamSynchronize right after it, so the GPU queue drains each step.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/scalar_read
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [range=..] [iterations=A..B]
 *   [cost_ms=LO..HI] [seq=N]
 * [names=..] [missing=..]; allow: kinds that may also appear; nothing else may):
 * expect: sync.scalar_read ranks=0,1,2,3 callsite=app_train range=log_loss iterations=1..12 cost_ms=0.05..1000
 * allow: gpu.idle
 * allow: comm.straggler comm.exposed (on 2 cores the simulator can starve one rank of CPU: it is then a real
 *   straggler, and the others' collectives wait for it inside their kernels)
 */
#include "app_train.h"

int main(void)
{
    struct plant p = PLANT_NONE;
    p.scalar_read = 1;
    return app_train(&p);
}
