/* device_sync.c: a device-wide cudaDeviceSynchronize each step where only a metrics copy on the compute stream was needed; it also waits for an 8 MiB prefetch on the copy stream.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/device_sync
 * What a correct report finds here (the report tests read these lines):
 * expect: sync.device_wide on every rank, at the cudaDeviceSynchronize in app_train.c
 * allow: gpu.idle
 */
#include "app_train.h"

int main(void)
{
    struct plant p = PLANT_NONE;
    p.device_sync = 1;
    return app_train(&p);
}
