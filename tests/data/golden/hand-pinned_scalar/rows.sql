-- hand-pinned_scalar: one process, one thread (tid 100), one GPU, one stream (handle 4096, CUPTI
-- stream 8).  10 steps, NVTX ranges "train_step" every 1.73 ms from 1.00 ms (t = 1.00 + 1.73 k
-- ms), each: a 4-byte upload from pinned memory (a learning rate, `torch.tensor(lr).to(dev,
-- non_blocking=True)`: cudaMemcpyAsync, 2 us on the GPU at t + 0.020 ms), a 1 ms kernel
-- (t + 0.022 to t + 1.022 ms), then a blocking cudaMemcpy of 1 MiB from pageable memory behind
-- it (0.4 ms on the GPU, the host blocked t + 0.020 to t + 1.430 ms).  copy.pageable's what-if
-- makes the copy pinned and asynchronous: the step is then the GPU's, 1 ms of kernel and the
-- copy at a quarter of its time (no pinned copy large enough to measure a bandwidth: the 4-byte
-- ones measure latency), 1.10 ms.  From the 4-byte copies' "bandwidth" (0.002 bytes a ns) the
-- megabyte took 524 ms and the step 525.29 ms, all fixed 524.29.  Times in ns; one clock.
INSERT INTO run VALUES('hand:pinned_scalar', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:pinned_scalar', 'host', 1000, 0, 0, 1, 0, 'hand GPU', 'pinned_scalar', 'active', 'tsc',
  1700000000000000000, 100000, 20000000, 0, 'exit', 0, 0, 'no Python', 'active', 'off');
INSERT INTO string VALUES(1, 1, 'fwd'), (1, 2, 'train_step');
INSERT INTO module VALUES(1, 1, 'pinned_scalar', 'pinned_scalar', '00');
INSERT INTO callsite VALUES(1, 1, 'lr_site+0x10 (pinned_scalar+0x1010)'),
  (1, 2, 'fwd_site+0x10 (pinned_scalar+0x2010)'), (1, 3, 'upload_site+0x10 (pinned_scalar+0x3010)'),
  (1, 4, 'drain_site+0x10 (pinned_scalar+0x4010)');

-- api_call(process_id, tid, api, start_ns, end_ns, stream, event, bytes, copy_kind, mem_kind, result,
--          callsite, call_id, pystack); a launch's end is its start (the tracer does not read it)
-- cupti_api(process_id, domain, cbid, tid, start_ns, end_ns, correlation, result)
-- gpu_op(process_id, kind, device, context, stream_id, name_id, start_ns, end_ns, bytes, copy_kind,
--        src_kind, dst_kind, correlation, sync_type, event_id); memory kinds: 1 pageable, 2 pinned, 3 device

INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreateWithFlags'), 200000, 200000, 4096, 0, 0, 0, 1, 0, 0, 1, 0);

-- the steps (k = 0..9) at t = 1.00 + 1.73 k ms; call ids 10 + 3k (the 4 bytes), 11 + 3k (the
-- kernel), 12 + 3k (the megabyte), each the correlation of its CUPTI record
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9)
INSERT INTO nvtx_range SELECT 1, 100, 1, 0, 2, 0, 1000000 + 1730000 * i, 2729000 + 1730000 * i, 0, NULL, NULL FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9)
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaMemcpyAsync'), 1000000 + 1730000 * i,
  1005000 + 1730000 * i, 4096, 0, 4, 1, 2, 0, 1, 10 + 3 * i, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9)
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 1010000 + 1730000 * i,
  1010000 + 1730000 * i, 4096, 0, 0, 0, 0, 0, 2, 11 + 3 * i, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9)
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaMemcpy'), 1020000 + 1730000 * i,
  2430000 + 1730000 * i, 4096, 0, 1048576, 1, 1, 0, 3, 12 + 3 * i, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9)
INSERT INTO cupti_api SELECT 1, 1, 41, 100, 1000100 + 1730000 * i, 1004900 + 1730000 * i, 10 + 3 * i, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9)
INSERT INTO cupti_api SELECT 1, 1, 211, 100, 1010100 + 1730000 * i, 1015000 + 1730000 * i, 11 + 3 * i, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9)
INSERT INTO cupti_api SELECT 1, 1, 31, 100, 1020100 + 1730000 * i, 2429900 + 1730000 * i, 12 + 3 * i, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9)
INSERT INTO ext_corr SELECT 1, 4611686018427387904 + 12 + 3 * i, 12 + 3 * i FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9)
INSERT INTO gpu_op SELECT 1, 2, 0, 1, 8, 0, 1020000 + 1730000 * i, 1022000 + 1730000 * i, 4, 1, 2, 3, 10 + 3 * i, 0, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9)
INSERT INTO gpu_op SELECT 1, 1, 0, 1, 8, 1, 1022000 + 1730000 * i, 2022000 + 1730000 * i, 0, 0, 0, 0, 11 + 3 * i, 0, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9)
INSERT INTO gpu_op SELECT 1, 2, 0, 1, 8, 0, 2022000 + 1730000 * i, 2422000 + 1730000 * i, 1048576, 1, 1, 3, 12 + 3 * i, 0, 0 FROM k;

-- after the loop, a device sync at 18.30 ms
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaDeviceSynchronize'), 18300000, 18310000, 0, 0, 0, 0, 0, 0, 4, 50, 0);
INSERT INTO cupti_api VALUES(1, 1, 165, 100, 18300100, 18309900, 50, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 50, 50);
