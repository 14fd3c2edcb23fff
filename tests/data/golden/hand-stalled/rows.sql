-- hand-stalled: one process, one thread (tid 100), one GPU, streams A (handle 4096, CUPTI stream
-- 8) and B (handle 8192, CUPTI stream 9): the GPU idle with work queued for it (gpu.stalled),
-- against the host's pace (gpu.idle) and a sync's drain (sync.scalar_read).  Times in ns; one
-- clock.
--    1.00 ms  kernel K1 launched on A (runs 1.01-2.00)
--    1.10 ms  kernel K2 launched on B, queued from 1.30 (its call's end and a launch's 0.2 ms);
--             it runs 6.00-7.00: the GPU idle 2.00-6.00 with it queued (gpu.stalled, 4.00 ms)
--    1.20 ms  a 4-byte copy to pinned memory on B (runs 7.00-7.01), then a stream sync of B,
--             1.25-7.10: sync.scalar_read, whose claim from the call to the next operation
--             (7.55) is the stall's where they meet: its own 7.01-7.55, 0.54 ms
--    7.50 ms  K3 on A (7.55-8.55); 10.00 ms K4 on A (10.01-11.00): the GPU idle 8.55-10.01
--             while the host was elsewhere, K4 launched at its end (gpu.idle, 1.46 ms)
--   12.00 ms  K0 on A, 12.00-13.00, of correlation 5, below the first call's (10): enqueued
--             before any call recorded, so queued through 11.00-12.00 (gpu.stalled, 1.00 ms)
--   14.00 ms  K5 launched on A, its call's CUPTI record to 14.01, run 14.50-15.50: queued
--             from 14.21, the GPU idle 13.00-14.50: gpu.idle 13.00-14.21 (1.21 ms),
--             gpu.stalled 14.21-14.50 (0.29 ms)
--   15.60 ms  the read again: K6 launched on B (queued from 15.80, runs 19.00-20.00), a 4-byte
--             copy (20.00-20.01), a stream sync 15.75-20.10, K7 on A at 20.50 (20.55-21.00):
--             gpu.idle 15.50-15.75 (0.25 ms, the host then blocked), gpu.stalled 15.80-19.00
--             (3.20 ms), sync.scalar_read 15.75-15.80 and 20.01-20.55 (0.59 ms)
--   20.86 ms  K8 launched on A, its call's CUPTI record to 20.90, run 22.00-22.50: queued
--             from 21.10, the GPU idle 21.00-22.00: gpu.stalled 21.10-22.00 (0.90 ms), and the rest,
--             shorter than --idle-gap-us, gpu.idle's (21.00-21.10, 0.10 ms; it was no finding's)
-- In all: gpu.stalled 9.39 ms, 5 times (K2's 4.00 the longest); sync.scalar_read 1.13 ms of the
-- 8.33 ms the GPU idled after its calls (ranked after the syncs' claims, the stalls would be the
-- read's); gpu.idle 3.02 ms (1.46 + 1.21 + 0.25 + 0.10)
INSERT INTO run VALUES('hand:stalled', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:stalled', 'host', 1000, 0, 0, 1, 0, 'hand GPU', 'stalled', 'active', 'tsc',
  1700000000000000000, 100000, 23000000, 0, 'exit', 0, 0, 'no Python', 'active', 'off');
INSERT INTO string VALUES(1, 1, 'K1'), (1, 2, 'K2'), (1, 3, 'K3'), (1, 4, 'K4'), (1, 5, 'K0'), (1, 6, 'K5'),
  (1, 7, 'K6'), (1, 8, 'K7'), (1, 9, 'K8');
INSERT INTO module VALUES(1, 1, 'stalled', 'stalled', '00');
INSERT INTO callsite VALUES(1, 1, 'read_site+0x10 (stalled+0x1010)'), (1, 2, 'sync_site+0x10 (stalled+0x2010)');

-- api_call(process_id, tid, api, start_ns, end_ns, stream, event, bytes, copy_kind, mem_kind, result,
--          callsite, call_id, pystack); a launch's end is its start (the tracer does not read it)
-- cupti_api(process_id, domain, cbid, tid, start_ns, end_ns, correlation, result)
-- gpu_op(process_id, kind, device, context, stream_id, name_id, start_ns, end_ns, bytes, copy_kind,
--        src_kind, dst_kind, correlation, sync_type, event_id)
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 200000, 200000, 4096, 0, 0, 0, 0, 0, 0, 1, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreate'), 300000, 300000, 8192, 0, 0, 0, 0, 0, 0, 2, 0);

INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 1000000, 1000000, 4096, 0, 0, 0, 0, 0, 0, 10, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 1000100, 1005000, 10, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 1, 1010000, 2000000, 0, 0, 0, 0, 10, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 1100000, 1100000, 8192, 0, 0, 0, 0, 0, 0, 11, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 1100100, 1105000, 11, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 9, 2, 6000000, 7000000, 0, 0, 0, 0, 11, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaMemcpyAsync'), 1200000, 1210000, 8192, 0, 4, 2, 2, 0, 1, 12, 0);
INSERT INTO cupti_api VALUES(1, 1, 41, 100, 1200100, 1209900, 12, 0);
INSERT INTO gpu_op VALUES(1, 2, 0, 1, 9, 0, 7000000, 7010000, 4, 2, 3, 2, 12, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 1250000, 7100000, 8192, 0, 0, 0, 0, 0, 2, 13, 0);
INSERT INTO cupti_api VALUES(1, 1, 131, 100, 1250100, 7099900, 13, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 13, 13);

INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 7500000, 7500000, 4096, 0, 0, 0, 0, 0, 0, 14, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 7500100, 7505000, 14, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 3, 7550000, 8550000, 0, 0, 0, 0, 14, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 10000000, 10000000, 4096, 0, 0, 0, 0, 0, 0, 15, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 10000100, 10005000, 15, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 4, 10010000, 11000000, 0, 0, 0, 0, 15, 0, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 5, 12000000, 13000000, 0, 0, 0, 0, 5, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 14000000, 14000000, 4096, 0, 0, 0, 0, 0, 0, 16, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 14000100, 14010000, 16, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 6, 14500000, 15500000, 0, 0, 0, 0, 16, 0, 0);

INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 15600000, 15600000, 8192, 0, 0, 0, 0, 0, 0, 17, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 15600100, 15605000, 17, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 9, 7, 19000000, 20000000, 0, 0, 0, 0, 17, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaMemcpyAsync'), 15700000, 15710000, 8192, 0, 4, 2, 2, 0, 1, 18, 0);
INSERT INTO cupti_api VALUES(1, 1, 41, 100, 15700100, 15709900, 18, 0);
INSERT INTO gpu_op VALUES(1, 2, 0, 1, 9, 0, 20000000, 20010000, 4, 2, 3, 2, 18, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamSynchronize'), 15750000, 20100000, 8192, 0, 0, 0, 0, 0, 2, 19, 0);
INSERT INTO cupti_api VALUES(1, 1, 131, 100, 15750100, 20099900, 19, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 19, 19);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 20500000, 20500000, 4096, 0, 0, 0, 0, 0, 0, 20, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 20500100, 20505000, 20, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 8, 20550000, 21000000, 0, 0, 0, 0, 20, 0, 0);
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 20860000, 20860000, 4096, 0, 0, 0, 0, 0, 0, 21, 0);
INSERT INTO cupti_api VALUES(1, 1, 211, 100, 20860100, 20900000, 21, 0);
INSERT INTO gpu_op VALUES(1, 1, 0, 1, 8, 9, 22000000, 22500000, 0, 0, 0, 0, 21, 0, 0);
