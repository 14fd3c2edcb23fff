/* train_demo.c: the demo: a 4-rank training run with several common problems planted at once: loss.item() every step, a device-wide sync every step, pageable batch uploads, and a straggler (rank 1).
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/train_demo
 * What a correct report finds here (the report tests read these lines):
 * expect: sync.scalar_read, sync.device_wide, copy.pageable, sync.implicit on every rank
 * expect: comm.straggler naming rank 1
 * allow: comm.exposed, gpu.idle
 */
#include "app_train.h"

int main(void)
{
    struct plant p = PLANT_NONE;
    p.scalar_read = 1;
    p.device_sync = 1;
    p.pageable_upload = 1;
    p.straggler_rank = 1;
    return app_train(&p);
}
