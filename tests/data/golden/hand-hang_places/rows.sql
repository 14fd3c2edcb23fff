-- hand-hang_places: four ranks (processes 1-4, pids 4000-4003, one thread each), one
-- communicator (comm_id 888 of 4), killed by the launcher (SIGTERM at 20.00 ms; no heartbeat
-- table: a file of schema 5).  Every rank calls all-reduce 0 at 1.00 ms (kernels 1.03-1.20 ms).
-- Only rank 0 calls all-reduce 1, at 11.00 ms, and blocks in cudaStreamSynchronize after it.  The
-- others are elsewhere, each in one of the three places a hang names:
--   rank 1 is blocked in a cudaMemcpy since 9.00 ms (the inflight table), called from Python
--          (load_batch (train.py:88), under main (train.py:120));
--   rank 2 has no call in flight and two NVTX ranges open, train_step since 7.50 ms and,
--          inside it, data_loading since 8.00 ms: the innermost is named;
--   rank 3 has neither: its last call, a cudaStreamQuery, ends at 7.01 ms; host code since.
-- The run starts at 0.50 ms, so the places' times are 8.50, 7.50 and 6.51 ms into the run.
-- comm.hang's wait is rank 0's, from its call to its end: 9.00 ms.  Times in ns; one clock.
INSERT INTO run VALUES('hand:hang_places', 1700000000000500000, 'hand');

-- rank 0
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, exit_signal, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:hang_places', 'host', 4000, 0, 0, 4, 0, 'hand GPU 0', 'hang_places', 'active', 'tsc',
  1700000000000000000, 500000, 20000000, NULL, 15, 'signal', 0, 0, 'active', 'active', 'off');
INSERT INTO string VALUES(1, 1, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL');
INSERT INTO module VALUES(1, 1, 'hang_places', 'hang_places', '00');
INSERT INTO callsite VALUES(1, 1, 'init_site+0x10 (hang_places+0x1010)'), (1, 2, 'allreduce_site+0x10 (hang_places+0x2010)'),
  (1, 3, 'sync_site+0x10 (hang_places+0x3010)'), (1, 4, 'copy_site+0x10 (hang_places+0x4010)');
INSERT INTO api_call VALUES(1, 400, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 600000, 600000, 24576, 0, 0, 0, 0, 0, 0, 1, 0);
INSERT INTO api_call VALUES(1, 400, (SELECT id FROM api WHERE name = 'ncclCommInitRank'), 700000, 800000, 0, 0, 0, 0, 0, 0, 1, 2, 0);
INSERT INTO comm VALUES(1, 20480, 888, 0, 4, 0, 700000);
-- all-reduce 0: called at 1.00 ms, its kernel 1.03-1.20 ms
INSERT INTO api_call VALUES(1, 400, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 1000000, 1050000, 24576, 0, 262144, 0, 0, 0, 2, 10, 0);
INSERT INTO collective VALUES(1, 10, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 888, 0, 65536, 7, 262144, 0, -1, 0, 4, 24576, 1000000, 1050000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 400, 1020000, 1030000, 1, 0);
INSERT INTO ext_corr VALUES(1, 10, 1);
INSERT INTO gpu_op VALUES(1, 1, 0, 0, 13, 1, 1030000, 1200000, 0, 0, 0, 0, 1, 0, 0);
INSERT INTO api_call VALUES(1, 400, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 1060000, 1205000, 24576, 0, 0, 0, 0, 0, 3, 11, 0);
INSERT INTO cupti_api VALUES(1, 1, 131, 400, 1060100, 1204900, 2, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 11, 2);
-- all-reduce 1: called at 11.00 ms, its kernel never ends; the sync after it in flight
INSERT INTO api_call VALUES(1, 400, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 11000000, 11050000, 24576, 0, 262144, 0, 0, 0, 2, 12, 0);
INSERT INTO collective VALUES(1, 12, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 888, 1, 65536, 7, 262144, 0, -1, 0, 4, 24576, 11000000, 11050000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 400, 11020000, 11030000, 3, 0);
INSERT INTO ext_corr VALUES(1, 12, 3);
INSERT INTO inflight VALUES(1, 400, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 11060000, 13, 3, 0);

-- rank 1
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, exit_signal, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(2, 'hand:hang_places', 'host', 4001, 1, 1, 4, 1, 'hand GPU 1', 'hang_places', 'active', 'tsc',
  1700000000000000000, 500000, 20000000, NULL, 15, 'signal', 0, 0, 'active', 'active', 'off');
INSERT INTO string VALUES(2, 1, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL');
INSERT INTO module VALUES(2, 1, 'hang_places', 'hang_places', '00');
INSERT INTO callsite VALUES(2, 1, 'init_site+0x10 (hang_places+0x1010)'), (2, 2, 'allreduce_site+0x10 (hang_places+0x2010)'),
  (2, 3, 'sync_site+0x10 (hang_places+0x3010)'), (2, 4, 'copy_site+0x10 (hang_places+0x4010)');
INSERT INTO api_call VALUES(2, 401, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 600000, 600000, 24576, 0, 0, 0, 0, 0, 0, 1, 0);
INSERT INTO api_call VALUES(2, 401, (SELECT id FROM api WHERE name = 'ncclCommInitRank'), 700000, 800000, 0, 0, 0, 0, 0, 0, 1, 2, 0);
INSERT INTO comm VALUES(2, 20480, 888, 1, 4, 0, 700000);
-- all-reduce 0: called at 1.00 ms, its kernel 1.03-1.20 ms
INSERT INTO api_call VALUES(2, 401, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 1000000, 1050000, 24576, 0, 262144, 0, 0, 0, 2, 10, 0);
INSERT INTO collective VALUES(2, 10, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 888, 0, 65536, 7, 262144, 0, -1, 1, 4, 24576, 1000000, 1050000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(2, 1, 211, 401, 1020000, 1030000, 1, 0);
INSERT INTO ext_corr VALUES(2, 10, 1);
INSERT INTO gpu_op VALUES(2, 1, 0, 1, 13, 1, 1030000, 1200000, 0, 0, 0, 0, 1, 0, 0);
INSERT INTO api_call VALUES(2, 401, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 1060000, 1205000, 24576, 0, 0, 0, 0, 0, 3, 11, 0);
INSERT INTO cupti_api VALUES(2, 1, 131, 401, 1060100, 1204900, 2, 0);
INSERT INTO ext_corr VALUES(2, 4611686018427387904 + 11, 2);
-- blocked in a cudaMemcpy since 9.00 ms, called from Python
INSERT INTO pystack VALUES(2, 1, 'load_batch (train.py:88)' || char(10) || 'main (train.py:120)');
INSERT INTO inflight VALUES(2, 401, (SELECT id FROM api WHERE name = 'cudaMemcpy'), 9000000, 12, 4, 1);

-- rank 2
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, exit_signal, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(3, 'hand:hang_places', 'host', 4002, 2, 2, 4, 2, 'hand GPU 2', 'hang_places', 'active', 'tsc',
  1700000000000000000, 500000, 20000000, NULL, 15, 'signal', 0, 0, 'active', 'active', 'off');
INSERT INTO string VALUES(3, 1, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL');
INSERT INTO module VALUES(3, 1, 'hang_places', 'hang_places', '00');
INSERT INTO callsite VALUES(3, 1, 'init_site+0x10 (hang_places+0x1010)'), (3, 2, 'allreduce_site+0x10 (hang_places+0x2010)'),
  (3, 3, 'sync_site+0x10 (hang_places+0x3010)'), (3, 4, 'copy_site+0x10 (hang_places+0x4010)');
INSERT INTO api_call VALUES(3, 402, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 600000, 600000, 24576, 0, 0, 0, 0, 0, 0, 1, 0);
INSERT INTO api_call VALUES(3, 402, (SELECT id FROM api WHERE name = 'ncclCommInitRank'), 700000, 800000, 0, 0, 0, 0, 0, 0, 1, 2, 0);
INSERT INTO comm VALUES(3, 20480, 888, 2, 4, 0, 700000);
-- all-reduce 0: called at 1.00 ms, its kernel 1.03-1.20 ms
INSERT INTO api_call VALUES(3, 402, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 1000000, 1050000, 24576, 0, 262144, 0, 0, 0, 2, 10, 0);
INSERT INTO collective VALUES(3, 10, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 888, 0, 65536, 7, 262144, 0, -1, 2, 4, 24576, 1000000, 1050000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(3, 1, 211, 402, 1020000, 1030000, 1, 0);
INSERT INTO ext_corr VALUES(3, 10, 1);
INSERT INTO gpu_op VALUES(3, 1, 0, 2, 13, 1, 1030000, 1200000, 0, 0, 0, 0, 1, 0, 0);
INSERT INTO api_call VALUES(3, 402, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 1060000, 1205000, 24576, 0, 0, 0, 0, 0, 3, 11, 0);
INSERT INTO cupti_api VALUES(3, 1, 131, 402, 1060100, 1204900, 2, 0);
INSERT INTO ext_corr VALUES(3, 4611686018427387904 + 11, 2);
-- two NVTX ranges open: train_step since 7.50 ms, data_loading inside it since 8.00 ms
INSERT INTO label VALUES(3, 1, 'train_step'), (3, 2, 'data_loading');
INSERT INTO nvtx_range VALUES(3, 402, 2, 0, 1, 0, 7500000, NULL, 0, 1, NULL);
INSERT INTO nvtx_range VALUES(3, 402, 2, 0, 2, 0, 8000000, NULL, 1, 2, NULL);

-- rank 3
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, exit_signal, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(4, 'hand:hang_places', 'host', 4003, 3, 3, 4, 3, 'hand GPU 3', 'hang_places', 'active', 'tsc',
  1700000000000000000, 500000, 20000000, NULL, 15, 'signal', 0, 0, 'active', 'active', 'off');
INSERT INTO string VALUES(4, 1, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL');
INSERT INTO module VALUES(4, 1, 'hang_places', 'hang_places', '00');
INSERT INTO callsite VALUES(4, 1, 'init_site+0x10 (hang_places+0x1010)'), (4, 2, 'allreduce_site+0x10 (hang_places+0x2010)'),
  (4, 3, 'sync_site+0x10 (hang_places+0x3010)'), (4, 4, 'copy_site+0x10 (hang_places+0x4010)');
INSERT INTO api_call VALUES(4, 403, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 600000, 600000, 24576, 0, 0, 0, 0, 0, 0, 1, 0);
INSERT INTO api_call VALUES(4, 403, (SELECT id FROM api WHERE name = 'ncclCommInitRank'), 700000, 800000, 0, 0, 0, 0, 0, 0, 1, 2, 0);
INSERT INTO comm VALUES(4, 20480, 888, 3, 4, 0, 700000);
-- all-reduce 0: called at 1.00 ms, its kernel 1.03-1.20 ms
INSERT INTO api_call VALUES(4, 403, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 1000000, 1050000, 24576, 0, 262144, 0, 0, 0, 2, 10, 0);
INSERT INTO collective VALUES(4, 10, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 888, 0, 65536, 7, 262144, 0, -1, 3, 4, 24576, 1000000, 1050000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(4, 1, 211, 403, 1020000, 1030000, 1, 0);
INSERT INTO ext_corr VALUES(4, 10, 1);
INSERT INTO gpu_op VALUES(4, 1, 0, 3, 13, 1, 1030000, 1200000, 0, 0, 0, 0, 1, 0, 0);
INSERT INTO api_call VALUES(4, 403, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 1060000, 1205000, 24576, 0, 0, 0, 0, 0, 3, 11, 0);
INSERT INTO cupti_api VALUES(4, 1, 131, 403, 1060100, 1204900, 2, 0);
INSERT INTO ext_corr VALUES(4, 4611686018427387904 + 11, 2);
-- its last call, a stream query, 7.00-7.01 ms; then host code
INSERT INTO api_call VALUES(4, 403, (SELECT id FROM api WHERE name = 'cudaStreamQuery'), 7000000, 7010000, 24576, 0, 0, 0, 0, 0, 3, 12, 0);
