/* sim_model_env.h: the timing model's knobs from the environment (sim_model_env.c). */
#ifndef GPUSIM_MODEL_ENV_H
#define GPUSIM_MODEL_ENV_H

/* Bandwidth of the collectives' model, GB/s (GPUSIM_NCCL_GBPS, default 50). */
double sim_nccl_gbps(void);
/* The host time each device or pinned allocation takes, us
 * (GPUSIM_MALLOC_US, default 0). */
long sim_malloc_us(void);
/* How many times slower every copy moves its bytes than the default
 * rates (GPUSIM_COPY_SLOWDOWN, default 1; its latency unchanged). */
unsigned sim_copy_slowdown(void);

#endif
