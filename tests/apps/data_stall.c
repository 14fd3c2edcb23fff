/* data_stall.c: every rank waits 15 ms on the host for its next batch
 * before each step (a data loader that cannot keep up: the range
 * "load_batch"), longer than the GPU work it has queued, so each GPU sits
 * idle while its host loads; no rank is later than the others.  The twin
 * (APP_FIX=1) loads ahead, as DataLoader workers would: the what-if's
 * gpu.idle prediction is checked against it (tests/e2e/report_twins.py).
 *
 * Run as 2 or 4 ranks: gpusim-run -n 4 tests/apps/data_stall
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [cost_ms=LO..HI] [seq=N]
 * [names=..] [missing=..]; allow: kinds that may also appear; nothing else may):
 * expect: gpu.idle range=load_batch cost_ms=20..5000
 * allow: comm.exposed comm.straggler (a rank's load may run late on a busy machine) gpu.launch_bound
 */
#include "app_train.h"

int main(void)
{
    struct plant p = PLANT_NONE;
    p.data_stall_us = 15000;
    return app_train(&p);
}
