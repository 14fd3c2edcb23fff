/* cu_allreduce_compute_stream.cu: cu_train.cu's step with the gradient
 * all-reduces on the compute stream, so nothing overlaps them; compiled by
 * nvcc, its kernels launched with <<<>>>.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/cu_allreduce_compute_stream
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [range=..] [iterations=A..B]
 *   [cost_ms=LO..HI] [seq=N]
 * [names=..] [missing=..]; allow: kinds that may also appear; nothing else may):
 * expect: comm.same_stream ranks=0,1,2,3 callsite=cu_train range=backward cost_ms=0.1..1000
 * (one finding: a collective on the compute stream is not also comm.exposed)
 * allow: gpu.idle
 */
#include "cu_train.h"

int main()
{
    struct cu_plant p = { 1 };
    return cu_train(&p);
}
