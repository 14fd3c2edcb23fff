-- hand-late_rank: two ranks (processes 1 and 2, pids 2000 and 2001, one thread each), one
-- communicator (comm_id 777, handle 20480 on both), three all-reduces of 256 KiB at 10 ms
-- intervals.  Rank 1 calls each one 3 ms after rank 0 (its host busy before it); each rank's
-- kernel starts 10 us after its call and ends 0.2 ms after the late rank's began, so rank 0's
-- kernel spans the 3 ms it waited.  Each rank syncs its communication stream (handle 24576, CUPTI
-- stream 13) after each all-reduce.  Pins down comm.straggler (rank 1 last at every (comm, seq),
-- by more than the 2 ms margin; the cost is rank 0's wait, 3 x 3 ms) and the summary's
-- communication and exposed time.  Times in ns; both hosts' clocks agree.
INSERT INTO run VALUES('hand:late_rank', 1700000000000500000, 'hand');

-- rank 0
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:late_rank', 'host', 2000, 0, 0, 2, 0, 'hand GPU 0', 'late_rank', 'active', 'tsc',
  1700000000000000000, 500000, 35000000, 0, 'exit', 0, 0, 'no Python', 'no NVTX calls seen', 'off');
INSERT INTO string VALUES(1, 1, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL');
INSERT INTO module VALUES(1, 1, 'late_rank', 'late_rank', '00');
INSERT INTO callsite VALUES(1, 1, 'init_site+0x10 (late_rank+0x1010)'), (1, 2, 'allreduce_site+0x10 (late_rank+0x2010)'),
  (1, 3, 'sync_site+0x10 (late_rank+0x3010)');
INSERT INTO api_call VALUES(1, 200, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 600000, 600000, 24576, 0, 0, 0, 0, 0, 0, 1, 0);
INSERT INTO api_call VALUES(1, 200, (SELECT id FROM api WHERE name = 'ncclCommInitRank'), 700000, 800000, 0, 0, 0, 0, 0, 0, 1, 2, 0);
INSERT INTO comm VALUES(1, 20480, 777, 0, 2, 0, 700000);
-- all-reduce 0: called at 1.00 ms, its kernel 1.01-4.20 ms
INSERT INTO api_call VALUES(1, 200, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 1000000, 1050000, 24576, 0, 262144, 0, 0, 0, 2, 10, 0);
INSERT INTO collective VALUES(1, 10, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 777, 0, 65536, 7, 262144, 0, -1, 0, 2, 24576, 1000000, 1050000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 200, 1020000, 1030000, 1, 0);
INSERT INTO ext_corr VALUES(1, 10, 1);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 13, 1, 1030000, 4200000, 0, 0, 0, 0, 1, 0, 0);
INSERT INTO api_call VALUES(1, 200, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 1060000, 4205000, 24576, 0, 0, 0, 0, 0, 3, 11, 0);
INSERT INTO cupti_api VALUES(1, 1, 131, 200, 1060100, 4204900, 2, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 11, 2);
-- all-reduce 1: called at 11.00 ms, its kernel 11.01-14.20 ms
INSERT INTO api_call VALUES(1, 200, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 11000000, 11050000, 24576, 0, 262144, 0, 0, 0, 2, 12, 0);
INSERT INTO collective VALUES(1, 12, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 777, 1, 65536, 7, 262144, 0, -1, 0, 2, 24576, 11000000, 11050000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 200, 11020000, 11030000, 3, 0);
INSERT INTO ext_corr VALUES(1, 12, 3);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 13, 1, 11030000, 14200000, 0, 0, 0, 0, 3, 0, 0);
INSERT INTO api_call VALUES(1, 200, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 11060000, 14205000, 24576, 0, 0, 0, 0, 0, 3, 13, 0);
INSERT INTO cupti_api VALUES(1, 1, 131, 200, 11060100, 14204900, 4, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 13, 4);
-- all-reduce 2: called at 21.00 ms, its kernel 21.01-24.20 ms
INSERT INTO api_call VALUES(1, 200, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 21000000, 21050000, 24576, 0, 262144, 0, 0, 0, 2, 14, 0);
INSERT INTO collective VALUES(1, 14, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 777, 2, 65536, 7, 262144, 0, -1, 0, 2, 24576, 21000000, 21050000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 200, 21020000, 21030000, 5, 0);
INSERT INTO ext_corr VALUES(1, 14, 5);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 13, 1, 21030000, 24200000, 0, 0, 0, 0, 5, 0, 0);
INSERT INTO api_call VALUES(1, 200, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 21060000, 24205000, 24576, 0, 0, 0, 0, 0, 3, 15, 0);
INSERT INTO cupti_api VALUES(1, 1, 131, 200, 21060100, 24204900, 6, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 15, 6);

-- rank 1
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(2, 'hand:late_rank', 'host', 2001, 1, 1, 2, 1, 'hand GPU 1', 'late_rank', 'active', 'tsc',
  1700000000000000000, 500000, 35000000, 0, 'exit', 0, 0, 'no Python', 'no NVTX calls seen', 'off');
INSERT INTO string VALUES(2, 1, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL');
INSERT INTO module VALUES(2, 1, 'late_rank', 'late_rank', '00');
INSERT INTO callsite VALUES(2, 1, 'init_site+0x10 (late_rank+0x1010)'), (2, 2, 'allreduce_site+0x10 (late_rank+0x2010)'),
  (2, 3, 'sync_site+0x10 (late_rank+0x3010)');
INSERT INTO api_call VALUES(2, 201, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 600000, 600000, 24576, 0, 0, 0, 0, 0, 0, 1, 0);
INSERT INTO api_call VALUES(2, 201, (SELECT id FROM api WHERE name = 'ncclCommInitRank'), 700000, 800000, 0, 0, 0, 0, 0, 0, 1, 2, 0);
INSERT INTO comm VALUES(2, 20480, 777, 1, 2, 0, 700000);
-- all-reduce 0: called at 4.00 ms, its kernel 4.01-4.20 ms
INSERT INTO api_call VALUES(2, 201, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 4000000, 4050000, 24576, 0, 262144, 0, 0, 0, 2, 10, 0);
INSERT INTO collective VALUES(2, 10, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 777, 0, 65536, 7, 262144, 0, -1, 1, 2, 24576, 4000000, 4050000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(2, 1, 211, 201, 4020000, 4030000, 1, 0);
INSERT INTO ext_corr VALUES(2, 10, 1);
INSERT INTO gpu_op VALUES(2, 1, 0, 1, 13, 1, 4030000, 4200000, 0, 0, 0, 0, 1, 0, 0);
INSERT INTO api_call VALUES(2, 201, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 4060000, 4205000, 24576, 0, 0, 0, 0, 0, 3, 11, 0);
INSERT INTO cupti_api VALUES(2, 1, 131, 201, 4060100, 4204900, 2, 0);
INSERT INTO ext_corr VALUES(2, 4611686018427387904 + 11, 2);
-- all-reduce 1: called at 14.00 ms, its kernel 14.01-14.20 ms
INSERT INTO api_call VALUES(2, 201, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 14000000, 14050000, 24576, 0, 262144, 0, 0, 0, 2, 12, 0);
INSERT INTO collective VALUES(2, 12, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 777, 1, 65536, 7, 262144, 0, -1, 1, 2, 24576, 14000000, 14050000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(2, 1, 211, 201, 14020000, 14030000, 3, 0);
INSERT INTO ext_corr VALUES(2, 12, 3);
INSERT INTO gpu_op VALUES(2, 1, 0, 1, 13, 1, 14030000, 14200000, 0, 0, 0, 0, 3, 0, 0);
INSERT INTO api_call VALUES(2, 201, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 14060000, 14205000, 24576, 0, 0, 0, 0, 0, 3, 13, 0);
INSERT INTO cupti_api VALUES(2, 1, 131, 201, 14060100, 14204900, 4, 0);
INSERT INTO ext_corr VALUES(2, 4611686018427387904 + 13, 4);
-- all-reduce 2: called at 24.00 ms, its kernel 24.01-24.20 ms
INSERT INTO api_call VALUES(2, 201, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 24000000, 24050000, 24576, 0, 262144, 0, 0, 0, 2, 14, 0);
INSERT INTO collective VALUES(2, 14, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 777, 2, 65536, 7, 262144, 0, -1, 1, 2, 24576, 24000000, 24050000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(2, 1, 211, 201, 24020000, 24030000, 5, 0);
INSERT INTO ext_corr VALUES(2, 14, 5);
INSERT INTO gpu_op VALUES(2, 1, 0, 1, 13, 1, 24030000, 24200000, 0, 0, 0, 0, 5, 0, 0);
INSERT INTO api_call VALUES(2, 201, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 24060000, 24205000, 24576, 0, 0, 0, 0, 0, 3, 15, 0);
INSERT INTO cupti_api VALUES(2, 1, 131, 201, 24060100, 24204900, 6, 0);
INSERT INTO ext_corr VALUES(2, 4611686018427387904 + 15, 6);
