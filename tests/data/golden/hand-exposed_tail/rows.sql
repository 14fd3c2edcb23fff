-- hand-exposed_tail: one rank (pid 1200, one thread, tid 100, world of one), one GPU, a compute
-- stream (handle 4096, CUPTI stream 8) and a communication stream (handle 24576, CUPTI stream 13):
-- two all-reduces whose kernels start under the end of a compute kernel and run on alone.
-- comm.exposed must claim where each ran exposed, its tail, not as much from its start (which
-- claimed 0.2 ms of hidden time each and left as much exposed time to no finding).  Times in ns.
--    1.00 ms  kernel K1 on the compute stream (1.01-3.00); 1.10 ms ncclAllReduce (1.10-1.15),
--             its kernel 2.80-5.00: 0.20 ms overlapped (9%), exposed 3.00-5.00
--    6.00 ms  K2 (6.01-8.00); 6.10 ms ncclAllReduce (6.10-6.15), its kernel 7.80-10.00: exposed
--             8.00-10.00
-- comm.exposed at allreduce_site: 4.00 ms, its claims 3.00-5.00 and 8.00-10.00, the whole of
-- the ledger's exposed communication
INSERT INTO run VALUES('hand:exposed_tail', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:exposed_tail', 'host', 1200, 0, 0, 1, 0, 'hand GPU', 'exposed_tail', 'active', 'tsc',
  1700000000000000000, 100000, 11000000, 0, 'exit', 0, 0, 'no Python', 'no NVTX calls seen', 'off');
INSERT INTO string VALUES(1, 1, 'K1'), (1, 2, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL'), (1, 3, 'K2');
INSERT INTO module VALUES(1, 1, 'exposed_tail', 'exposed_tail', '00');
INSERT INTO callsite VALUES(1, 1, 'init_site+0x10 (exposed_tail+0x1010)'),
  (1, 2, 'allreduce_site+0x10 (exposed_tail+0x2010)'), (1, 3, 'launch_site+0x10 (exposed_tail+0x3010)');

-- api_call(process_id, tid, api, start_ns, end_ns, stream, event, bytes, copy_kind, mem_kind, result,
--          callsite, call_id, pystack); a launch's end is its start (the tracer does not read it)
-- cupti_api(process_id, domain, cbid, tid, start_ns, end_ns, correlation, result)
-- gpu_op(process_id, kind, device, context, stream_id, name_id, start_ns, end_ns, bytes, copy_kind,
--        src_kind, dst_kind, correlation, sync_type, event_id)
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 200000, 200000, 4096, 0, 0, 0, 0, 0, 1, 1, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 300000, 300000, 24576, 0, 0, 0, 0, 0, 1, 2, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'ncclCommInitRank'), 400000, 500000, 0, 0, 0, 0, 0, 0, 1, 3, 0);
INSERT INTO comm VALUES(1, 20480, 777, 0, 1, 0, 400000);

INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 1000000, 1000000, 4096, 0, 0, 0, 0, 0, 3, 10, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 1000100, 1005000, 10, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 1, 1010000, 3000000, 0, 0, 0, 0, 10, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 1100000, 1150000, 24576, 0, 262144, 0, 0, 0, 2, 20, 0);
INSERT INTO collective VALUES(1, 20, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 777, 0, 65536, 7, 262144, 0, -1, 0, 1, 24576, 1100000, 1150000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 1120000, 1130000, 11, 0);
INSERT INTO ext_corr VALUES(1, 20, 11);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 13, 2, 2800000, 5000000, 0, 0, 0, 0, 11, 0, 0);

INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 6000000, 6000000, 4096, 0, 0, 0, 0, 0, 3, 30, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 6000100, 6005000, 12, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 3, 6010000, 8000000, 0, 0, 0, 0, 12, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 6100000, 6150000, 24576, 0, 262144, 0, 0, 0, 2, 40, 0);
INSERT INTO collective VALUES(1, 40, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 777, 1, 65536, 7, 262144, 0, -1, 0, 1, 24576, 6100000, 6150000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 6120000, 6130000, 13, 0);
INSERT INTO ext_corr VALUES(1, 40, 13);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 13, 2, 7800000, 10000000, 0, 0, 0, 0, 13, 0, 0);
