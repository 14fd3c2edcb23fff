/* scalar_read.c: a data-parallel step that reads the loss on the host every step (loss.item()): an async copy of 4 bytes and a cudaStreamSynchronize right after it, so the GPU queue drains each step.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/scalar_read
 * What a correct report finds here (the report tests read these lines):
 * expect: sync.scalar_read on every rank, at the cudaStreamSynchronize in app_train.c
 * allow: gpu.idle
 */
#include "app_train.h"

int main(void)
{
    struct plant p = PLANT_NONE;
    p.scalar_read = 1;
    return app_train(&p);
}
