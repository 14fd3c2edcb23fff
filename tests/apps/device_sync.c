/* device_sync.c: a device-wide cudaDeviceSynchronize each step where only a metrics copy on the compute stream was needed; it also waits for the next batch's 3 ms decode kernel on a stream of its own.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/device_sync
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [range=..] [iterations=A..B]
 *   [cost_ms=LO..HI] [seq=N]
 * [names=..] [missing=..]; allow: kinds that may also appear; nothing else may):
 * expect: sync.device_wide ranks=0,1,2,3 callsite=app_train range=log_metrics iterations=1..12 cost_ms=10..1000
 * allow: gpu.idle sync.no_consumer (when the metrics copy ends before the host reaches the sync, the sync waited only for the prefetch)
 * allow: comm.straggler comm.exposed (on 2 cores the simulator can starve one rank of CPU: it is then a real
 *   straggler, and the others' collectives wait for it inside their kernels)
 */
#include "app_train.h"

int main(void)
{
    struct plant p = PLANT_NONE;
    p.device_sync = 1;
    return app_train(&p);
}
