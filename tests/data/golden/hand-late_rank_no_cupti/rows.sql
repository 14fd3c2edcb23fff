-- hand-late_rank_no_cupti: hand-late_rank's two ranks and three all-reduces of 256 KiB at 10 ms
-- intervals, rank 1 calling each 3 ms after rank 0, but only rank 0 has GPU records: rank 1 ran
-- without CUPTI (cupti_status off), as a rank whose monitor window was cut before CUPTI handed
-- over its last records has none of its last collectives' kernels.  Rank 0's GPU runs behind its
-- host: each all-reduce queues behind a 2 ms compute kernel (step_kernel, launched 0.5 ms before
-- the all-reduce on the same stream, handle 24576, CUPTI stream 13), so its NCCL kernel starts
-- 2 ms after its call and waits inside it 1 ms for rank 1 (ends 0.2 ms after rank 1's call).
-- Pins down that a collective's arrivals are all of one kind (viewer/analyse/coll_spill.h,
-- coll_group_on_gpu): rank 0's kernel start (call + 2 ms) against rank 1's call (+ 3 ms) made
-- rank 1 last by 1 ms, under the 2 ms margin, and no straggler was found; by their calls rank 1
-- is last by 3 ms at every (comm, seq): comm.straggler on rank 1, its cost the 1 ms rank 0's
-- kernel waited in each (3 x 1 ms).  Times in ns; both hosts' clocks agree.
INSERT INTO run VALUES('hand:late_rank_no_cupti', 1700000000000500000, 'hand');


-- rank 0
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:late_rank_no_cupti', 'host', 2000, 0, 0, 2, 0, 'hand GPU 0', 'late_rank', 'active', 'tsc',
  1700000000000000000, 500000, 35000000, 0, 'exit', 0, 0, 'no Python', 'no NVTX calls seen', 'off');
INSERT INTO string VALUES(1, 1, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL'), (1, 2, 'step_kernel');
INSERT INTO module VALUES(1, 1, 'late_rank', 'late_rank', '00');
INSERT INTO callsite VALUES(1, 1, 'init_site+0x10 (late_rank+0x1010)'), (1, 2, 'allreduce_site+0x10 (late_rank+0x2010)'),
  (1, 3, 'sync_site+0x10 (late_rank+0x3010)'), (1, 4, 'step_site+0x10 (late_rank+0x4010)');
INSERT INTO api_call VALUES(1, 200, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 600000, 600000, 24576, 0, 0, 0, 0, 0, 0, 1, 0);
INSERT INTO api_call VALUES(1, 200, (SELECT id FROM api WHERE name = 'ncclCommInitRank'), 700000, 800000, 0, 0, 0, 0, 0, 0, 1, 2, 0);
INSERT INTO comm VALUES(1, 20480, 777, 0, 2, 0, 700000);
-- all-reduce 0: step_kernel 0.55-3.00 ms, the all-reduce called at 1.00 ms, its kernel 3.00-4.20 ms
INSERT INTO api_call VALUES(1, 200, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 500000, 520000, 24576, 0, 0, 0, 0, 0, 4, 10, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 200, 501000, 519000, 1, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 10, 1);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 13, 2, 550000, 3000000, 0, 0, 0, 0, 1, 0, 0);
INSERT INTO api_call VALUES(1, 200, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 1000000, 1050000, 24576, 0, 262144, 0, 0, 0, 2, 11, 0);
INSERT INTO collective VALUES(1, 11, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 777, 0, 65536, 7, 262144, 0, -1, 0, 2, 24576, 1000000, 1050000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 200, 1020000, 1030000, 2, 0);
INSERT INTO ext_corr VALUES(1, 11, 2);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 13, 1, 3000000, 4200000, 0, 0, 0, 0, 2, 0, 0);
INSERT INTO api_call VALUES(1, 200, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 1060000, 4205000, 24576, 0, 0, 0, 0, 0, 3, 12, 0);
INSERT INTO cupti_api VALUES(1, 1, 131, 200, 1060100, 4204900, 3, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 12, 3);
-- all-reduce 1: step_kernel 10.55-13.00 ms, the all-reduce called at 11.00 ms, its kernel 13.00-14.20 ms
INSERT INTO api_call VALUES(1, 200, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 10500000, 10520000, 24576, 0, 0, 0, 0, 0, 4, 13, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 200, 10501000, 10519000, 4, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 13, 4);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 13, 2, 10550000, 13000000, 0, 0, 0, 0, 4, 0, 0);
INSERT INTO api_call VALUES(1, 200, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 11000000, 11050000, 24576, 0, 262144, 0, 0, 0, 2, 14, 0);
INSERT INTO collective VALUES(1, 14, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 777, 1, 65536, 7, 262144, 0, -1, 0, 2, 24576, 11000000, 11050000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 200, 11020000, 11030000, 5, 0);
INSERT INTO ext_corr VALUES(1, 14, 5);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 13, 1, 13000000, 14200000, 0, 0, 0, 0, 5, 0, 0);
INSERT INTO api_call VALUES(1, 200, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 11060000, 14205000, 24576, 0, 0, 0, 0, 0, 3, 15, 0);
INSERT INTO cupti_api VALUES(1, 1, 131, 200, 11060100, 14204900, 6, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 15, 6);
-- all-reduce 2: step_kernel 20.55-23.00 ms, the all-reduce called at 21.00 ms, its kernel 23.00-24.20 ms
INSERT INTO api_call VALUES(1, 200, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 20500000, 20520000, 24576, 0, 0, 0, 0, 0, 4, 16, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 200, 20501000, 20519000, 7, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 16, 7);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 13, 2, 20550000, 23000000, 0, 0, 0, 0, 7, 0, 0);
INSERT INTO api_call VALUES(1, 200, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 21000000, 21050000, 24576, 0, 262144, 0, 0, 0, 2, 17, 0);
INSERT INTO collective VALUES(1, 17, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 777, 2, 65536, 7, 262144, 0, -1, 0, 2, 24576, 21000000, 21050000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 200, 21020000, 21030000, 8, 0);
INSERT INTO ext_corr VALUES(1, 17, 8);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 13, 1, 23000000, 24200000, 0, 0, 0, 0, 8, 0, 0);
INSERT INTO api_call VALUES(1, 200, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 21060000, 24205000, 24576, 0, 0, 0, 0, 0, 3, 18, 0);
INSERT INTO cupti_api VALUES(1, 1, 131, 200, 21060100, 24204900, 9, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 18, 9);

-- rank 1
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(2, 'hand:late_rank_no_cupti', 'host', 2001, 1, 1, 2, 1, 'hand GPU 1', 'late_rank', 'off (GPUTRACE_CUPTI=0)', 'tsc',
  1700000000000000000, 500000, 35000000, 0, 'exit', 0, 0, 'no Python', 'no NVTX calls seen', 'off');
INSERT INTO string VALUES(2, 1, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL'), (2, 2, 'step_kernel');
INSERT INTO module VALUES(2, 1, 'late_rank', 'late_rank', '00');
INSERT INTO callsite VALUES(2, 1, 'init_site+0x10 (late_rank+0x1010)'), (2, 2, 'allreduce_site+0x10 (late_rank+0x2010)'),
  (2, 3, 'sync_site+0x10 (late_rank+0x3010)'), (2, 4, 'step_site+0x10 (late_rank+0x4010)');
INSERT INTO api_call VALUES(2, 201, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 600000, 600000, 24576, 0, 0, 0, 0, 0, 0, 1, 0);
INSERT INTO api_call VALUES(2, 201, (SELECT id FROM api WHERE name = 'ncclCommInitRank'), 700000, 800000, 0, 0, 0, 0, 0, 0, 1, 2, 0);
INSERT INTO comm VALUES(2, 20480, 777, 1, 2, 0, 700000);
-- all-reduce 0: step_kernel launched at 0.50 ms, the all-reduce called at 4.00 ms (no GPU records)
INSERT INTO api_call VALUES(2, 201, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 500000, 520000, 24576, 0, 0, 0, 0, 0, 4, 10, 0);
INSERT INTO api_call VALUES(2, 201, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 4000000, 4050000, 24576, 0, 262144, 0, 0, 0, 2, 11, 0);
INSERT INTO collective VALUES(2, 11, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 777, 0, 65536, 7, 262144, 0, -1, 1, 2, 24576, 4000000, 4050000, 2, 0, 0, 0);
INSERT INTO api_call VALUES(2, 201, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 4060000, 4205000, 24576, 0, 0, 0, 0, 0, 3, 12, 0);
-- all-reduce 1: step_kernel launched at 10.50 ms, the all-reduce called at 14.00 ms (no GPU records)
INSERT INTO api_call VALUES(2, 201, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 10500000, 10520000, 24576, 0, 0, 0, 0, 0, 4, 13, 0);
INSERT INTO api_call VALUES(2, 201, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 14000000, 14050000, 24576, 0, 262144, 0, 0, 0, 2, 14, 0);
INSERT INTO collective VALUES(2, 14, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 777, 1, 65536, 7, 262144, 0, -1, 1, 2, 24576, 14000000, 14050000, 2, 0, 0, 0);
INSERT INTO api_call VALUES(2, 201, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 14060000, 14205000, 24576, 0, 0, 0, 0, 0, 3, 15, 0);
-- all-reduce 2: step_kernel launched at 20.50 ms, the all-reduce called at 24.00 ms (no GPU records)
INSERT INTO api_call VALUES(2, 201, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 20500000, 20520000, 24576, 0, 0, 0, 0, 0, 4, 16, 0);
INSERT INTO api_call VALUES(2, 201, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 24000000, 24050000, 24576, 0, 262144, 0, 0, 0, 2, 17, 0);
INSERT INTO collective VALUES(2, 17, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 777, 2, 65536, 7, 262144, 0, -1, 1, 2, 24576, 24000000, 24050000, 2, 0, 0, 0);
INSERT INTO api_call VALUES(2, 201, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 24060000, 24205000, 24576, 0, 0, 0, 0, 0, 3, 18, 0);
