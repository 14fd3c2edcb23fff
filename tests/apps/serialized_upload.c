/* serialized_upload.c: the batch is uploaded (from pinned memory) on the compute stream, in
 * stream order with the kernels, so no kernel ever overlaps the copy.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/serialized_upload
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [range=..] [iterations=A..B]
 *   [cost_ms=LO..HI] [seq=N]
 * [names=..] [missing=..]; allow: kinds that may also appear; nothing else may):
 * expect: copy.serialized ranks=0,1,2,3 callsite=app_train range=forward cost_ms=1..1000
 * allow: gpu.idle
 * allow: comm.exposed comm.straggler (on a busy machine a rank's host memmove behind its upload can outlast the copy's
 *   model, and the others' all-reduces then wait for it: a real exposure, which the fix removes too)
 */
#include "app_train.h"

int main(void)
{
    struct plant p = PLANT_NONE;
    p.upload_on_compute = 1;
    return app_train(&p);
}
