-- hand-stalled_nccl: one rank (pid 1100, one thread, tid 100, world of one), one GPU, a compute
-- stream (handle 4096, CUPTI stream 8) and a communication stream (handle 24576, CUPTI stream 13):
-- the GPU idle with an NCCL kernel queued for it (gpu.stalled behind an all-reduce), as a trace
-- exported to Kineto and read back must still say (tests/e2e/kineto_roundtrip_golden.py: the
-- export writes the kernel's launch inside the NCCL call, as PyTorch's traces have it; without
-- it the stall read back as gpu.idle).  Times in ns; one clock.
--    1.00 ms  kernel K1 launched on the compute stream (runs 1.01-2.00)
--    1.10 ms  ncclAllReduce on the communication stream, 1.10-1.15 (its kernel's launch CUPTI
--             saw at 1.12-1.13): the kernel queued from 1.35 (the call's end and a launch's
--             0.2 ms), run 5.00-5.50: the GPU idle 2.00-5.00 with it queued (gpu.stalled, 3.00 ms)
--    6.00 ms  K2 launched on the compute stream (runs 6.01-7.00): the GPU idle 5.50-6.01 while
--             the host was elsewhere (gpu.idle, 0.51 ms)
INSERT INTO run VALUES('hand:stalled_nccl', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:stalled_nccl', 'host', 1100, 0, 0, 1, 0, 'hand GPU', 'stalled_nccl', 'active', 'tsc',
  1700000000000000000, 100000, 8000000, 0, 'exit', 0, 0, 'no Python', 'no NVTX calls seen', 'off');
INSERT INTO string VALUES(1, 1, 'K1'), (1, 2, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL'), (1, 3, 'K2');
INSERT INTO module VALUES(1, 1, 'stalled_nccl', 'stalled_nccl', '00');
INSERT INTO callsite VALUES(1, 1, 'init_site+0x10 (stalled_nccl+0x1010)'),
  (1, 2, 'allreduce_site+0x10 (stalled_nccl+0x2010)'), (1, 3, 'launch_site+0x10 (stalled_nccl+0x3010)');

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
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 1, 1010000, 2000000, 0, 0, 0, 0, 10, 0, 0);

INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 1100000, 1150000, 24576, 0, 262144, 0, 0, 0, 2, 20, 0);
INSERT INTO collective VALUES(1, 20, (SELECT id FROM api WHERE name = 'ncclAllReduce'), 777, 0, 65536, 7, 262144, 0, -1, 0, 1, 24576, 1100000, 1150000, 2, 0, 0, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 1120000, 1130000, 11, 0);
INSERT INTO ext_corr VALUES(1, 20, 11);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 13, 2, 5000000, 5500000, 0, 0, 0, 0, 11, 0, 0);

INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 6000000, 6000000, 4096, 0, 0, 0, 0, 0, 3, 30, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 6000100, 6005000, 12, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 3, 6010000, 7000000, 0, 0, 0, 0, 12, 0, 0);
