/* allreduce_compute_stream.c: the gradient all-reduces run on the compute stream, so nothing overlaps them.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/allreduce_compute_stream
 * What a correct report finds here (the report tests read these lines):
 * expect: comm.same_stream on every rank, at the ncclAllReduce in app_train.c
 * expect: comm.exposed on every rank, at the same call site
 * allow: gpu.idle
 */
#include "app_train.h"

int main(void)
{
    struct plant p = PLANT_NONE;
    p.allreduce_on_compute = 1;
    return app_train(&p);
}
