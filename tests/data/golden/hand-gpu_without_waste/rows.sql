-- base: hand-stalled_gpus
-- hand-gpu_without_waste: hand-stalled_gpus with GPU 1's four stage1 kernels made one that runs
-- from the first step to the end: one process, two GPUs, GPU 0 idle 5 ms a step (gpu.idle), GPU 1
-- never idle, so no finding charges it a piece of its time.  Its ledger's pieces were then none
-- (a NULL array) and their sort copied 0 bytes into it: undefined behaviour the sanitizers stop
-- the report for (seen in a live multi_gpu run under them).  Times in ns; one clock.
UPDATE run SET id = 'hand:gpu_without_waste';
UPDATE process SET run_id = 'hand:gpu_without_waste';
DELETE FROM gpu_op WHERE stream_id = 9;
INSERT INTO gpu_op VALUES(1, 1, 1, 2, 9, 2, 1040000, 39990000, 0, 0, 0, 0, 13, 0, 0);
