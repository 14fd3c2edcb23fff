/* train_demo.c: the demo: a 4-rank training run with several common problems planted at once: loss.item() every step, a device-wide sync every step, pageable batch uploads, and a straggler (rank 1).
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/train_demo
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [range=..] [iterations=A..B]
 *   [cost_ms=LO..HI] [seq=N]
 * [names=..] [missing=..]; allow: kinds that may also appear; nothing else may):
 * expect: sync.scalar_read ranks=0,1,2,3 callsite=app_train range=log_loss
 * expect: sync.device_wide ranks=0,1,2,3 callsite=app_train range=log_metrics
 * expect: copy.pageable ranks=0,1,2,3 callsite=app_train range=forward
 * expect: comm.straggler ranks=1 range=forward cost_ms=20..5000
 * allow: comm.exposed gpu.idle sync.no_consumer
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
