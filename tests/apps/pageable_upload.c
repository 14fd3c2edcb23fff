/* pageable_upload.c: the batch is uploaded from pageable (malloc'd) memory, so the asynchronous copy is slow and blocks the host.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/pageable_upload
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [range=..] [iterations=A..B]
 *   [cost_ms=LO..HI] [seq=N]
 * [names=..] [missing=..]; allow: kinds that may also appear; nothing else may):
 * expect: copy.pageable ranks=0,1,2,3 callsite=app_train range=forward cost_ms=0.01..1000
 * allow: gpu.idle
 * allow: comm.straggler comm.exposed (on 2 cores the simulator can starve one rank of CPU: it is then a real
 *   straggler, and the others' collectives wait for it inside their kernels)
 */
#include "app_train.h"

int main(void)
{
    struct plant p = PLANT_NONE;
    p.pageable_upload = 1;
    return app_train(&p);
}
