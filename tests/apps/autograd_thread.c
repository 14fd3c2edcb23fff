/* autograd_thread.c: the scalar read of scalar_read.c (loss.item() every step: an async copy of 4 bytes and a cudaStreamSynchronize), with backward's launches and all-reduces made by a thread of their own that the main thread hands over to and waits for, as PyTorch's autograd engine does.  Fixed (APP_FIX=1), the host's 3 ms of logging after the read and 3 ms of work in forward hide behind the GPU's; the what-if must see that through the hand-overs (viewer/analyse/replay_wake.c: on an H200 a real loop like it went from 9.3 to 5.8 ms a step, and a replay that kept the backward thread's waits as host time predicted no gain).
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/autograd_thread
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [range=..] [iterations=A..B]
 *   [cost_ms=LO..HI] [seq=N]
 * [names=..] [missing=..]; allow: kinds that may also appear; nothing else may):
 * expect: sync.scalar_read ranks=0,1,2,3 callsite=app_train range=log_loss iterations=1..12 cost_ms=0.05..1000
 * allow: gpu.idle
 * allow: comm.straggler comm.exposed (on 2 cores the simulator can starve one rank of CPU: it is then a real
 *   straggler, and the others' collectives wait for it inside their kernels)
 */
#include "app_train.h"

int main(void)
{
    struct plant p = PLANT_NONE;
    p.scalar_read = 1;
    p.backward_thread = 1;
    p.step_host_us = 3000; /* forward's own host work: a saving the what-if must see through the hand-overs */
    return app_train(&p);
}
