/* cu_overlapped.cu: the well-overlapped step of cu_train.cu, compiled by
 * nvcc: copy stream ordered by events, pinned memory, all-reduce on a
 * communication stream overlapping backward, the loss read a step late.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/cu_overlapped
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [cost_ms=LO..HI] [seq=N]
 * [names=..] [missing=..]; allow: kinds that may also appear; nothing else may):
 * allow: gpu.idle
 */
#include "cu_train.h"

int main()
{
    struct cu_plant p = { 0 };
    return cu_train(&p);
}
