/* pageable_upload.c: the batch is uploaded from pageable (malloc'd) memory, so the asynchronous copy is slow and blocks the host.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/pageable_upload
 * What a correct report finds here (the report tests read these lines):
 * expect: copy.pageable on every rank, at the batch upload cudaMemcpyAsync in app_train.c
 * expect: sync.implicit on every rank, at the same call site
 * allow: gpu.idle
 */
#include "app_train.h"

int main(void)
{
    struct plant p = PLANT_NONE;
    p.pageable_upload = 1;
    return app_train(&p);
}
