/* allreduce_compute_stream.c: the gradient all-reduces run on the compute stream, so nothing overlaps them.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/allreduce_compute_stream
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [range=..] [iterations=A..B]
 *   [cost_ms=LO..HI] [seq=N]
 * [names=..] [missing=..]; allow: kinds that may also appear; nothing else may):
 * expect: comm.same_stream ranks=0,1,2,3 callsite=app_train range=backward cost_ms=0.1..1000
 * (one finding: a collective on the compute stream is not also comm.exposed at its call site;
 *  comm.same_stream claims what another stream could hide, and the rest, which no overlap could
 *  hide, is the whole process's exposed communication: comm.exposed:unclaimed)
 * allow: gpu.idle comm.exposed:unclaimed
 */
#include "app_train.h"

int main(void)
{
    struct plant p = PLANT_NONE;
    p.allreduce_on_compute = 1;
    return app_train(&p);
}
