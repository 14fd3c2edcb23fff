/* overlapped.c: the well-overlapped data-parallel step: copy stream ordered by events, pinned memory, all-reduce on a communication stream overlapping backward, the loss read a step late without blocking.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/overlapped
 * What a correct report finds here (the report tests read these lines):
 * expect: none of the sync.*, copy.* or comm.* kinds
 * allow: gpu.idle
 */
#include "app_train.h"

int main(void)
{
    struct plant p = PLANT_NONE;

    return app_train(&p);
}
