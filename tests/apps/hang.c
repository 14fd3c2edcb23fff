/* hang.c: at step 3 the last rank stops before its first all-reduce; the others wait in it until the launcher's timeout kills the job.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/hang
 * What a correct report finds here (the report tests read these lines):
 * expect: comm.hang at the first all-reduce of step 3 (sequence 12), naming rank 3 as missing
 * allow: gpu.idle, sync.* on the ranks blocked at the end
 */
#include "app_train.h"

int main(void)
{
    struct plant p = PLANT_NONE;
    p.hang_step = 3;
    return app_train(&p);
}
