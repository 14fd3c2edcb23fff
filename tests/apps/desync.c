/* desync.c: at step 5 rank 1 all-reduces half as many elements as the others in the first bucket: the ranks disagree on one collective.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/desync
 * What a correct report finds here (the report tests read these lines):
 * expect: comm.mismatch at the first all-reduce of step 5 (sequence 20), naming rank 1
 * allow: gpu.idle
 */
#include "app_train.h"

int main(void)
{
    struct plant p = PLANT_NONE;
    p.desync_step = 5;
    return app_train(&p);
}
