-- base: hand-late_rank_steps
-- hand-first_step_host: hand-late_rank_steps with the first step's GPU
-- work, its launch and its collective taken away: a first step of host
-- time alone, the steps timed from its end (6 steps: the first starts the
-- clock).  Its host time after its last call went into the second step's
-- gaps and cut the collectives to before the steps' start.
UPDATE run SET id = 'hand:first_step_host';
UPDATE process SET run_id = 'hand:first_step_host';
DELETE FROM gpu_op WHERE correlation IN (10, 2000);
DELETE FROM api_call WHERE call_id IN (10, 1000, 3000);
DELETE FROM cupti_api WHERE correlation IN (10, 2000, 3000);
DELETE FROM collective WHERE call_id = 1000;
DELETE FROM ext_corr WHERE external_id = 1000 OR correlation IN (2000, 3000);
