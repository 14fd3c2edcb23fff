/* comm_unknown.c: the all-reduce loop of comm_kinds.c on a communicator
 * made through pncclCommInitRank, NCCL's profiling-interface name for
 * ncclCommInitRank, which the tracer does not wrap: the all-reduces are
 * recorded without a communicator (0), rank (-1) or sequence, so nothing
 * can match them across ranks.  Rank 2 arrives 15 ms late to each; the
 * report cannot know it, and must say why (the unknown-communicator note,
 * checked by tests/e2e/nccl_comms.sh) rather than be silent.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/comm_unknown
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (see straggler.c):
 * allow: comm.exposed gpu.idle sync.no_consumer sync.redundant (as in the other comm_* workloads)
 */
#include "comm_kinds.h"

int main(void)
{
    return comm_kinds_main(COMM_UNKNOWN);
}
