/* cu_train.h: the data-parallel training step of app_train.h written as
 * CUDA C++ (cu_train.cu): __global__ kernels launched with <<<>>>, so that
 * nvcc 13's launch ABI and a real compiled program are what is traced.  The
 * same pattern and the same problems to plant as app_train.h; the .cu
 * workloads (cu_overlapped.cu, cu_allreduce_compute_stream.cu) each plant
 * theirs.  Built against the simulator with -cudart none (kernel bodies in
 * cu_kernels_sim.c) and, unchanged, against the real runtime. */
#ifndef GPUTRACE_CU_TRAIN_H
#define GPUTRACE_CU_TRAIN_H

struct cu_plant {
    int allreduce_on_compute; /* gradient all-reduces on the compute stream */
};

/* Runs the training loop with the given problems planted; returns the exit
 * status for main. */
int cu_train(const struct cu_plant *p);

#endif
