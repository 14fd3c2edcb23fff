/* sim_model_env.h: the timing model's knobs from the environment (sim_model_env.c). */
#ifndef GPUSIM_MODEL_ENV_H
#define GPUSIM_MODEL_ENV_H

/* Bandwidth of the collectives' model, GB/s (GPUSIM_NCCL_GBPS, default 50). */
double sim_nccl_gbps(void);

#endif
