/* comm_split_nb.c: the all-reduce loop of comm_kinds.c on a communicator made by
 * a non-blocking ncclCommSplit (ncclInProgress, then ready, polled on the parent);
 * rank 2 arrives 15 ms late to every all-reduce.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/comm_split_nb
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (see straggler.c):
 * expect: comm.straggler ranks=2 cost_ms=20..5000
 * allow: comm.exposed gpu.idle (nothing overlaps the all-reduces) sync.no_consumer sync.redundant (the stream sync after each one reads nothing back)
 */
#include "comm_kinds.h"

int main(void)
{
    return comm_kinds_main(COMM_SPLIT_NB);
}
