-- hand-upload_line: one process, one thread (tid 100), one GPU, one stream (handle 4096, CUPTI
-- stream 8), a host far ahead of its GPU.  10 steps, NVTX ranges "train_step" every 0.50 ms from
-- 1.00 ms, each: an 8 MiB upload from pinned memory (cudaMemcpyAsync, 0.5 ms on the GPU) and
-- kernel kA launched from the same call site (`y = model(x.cuda())` on one line), then kernel
-- kB from a site of its own, each 1 ms; on the GPU back to back from 1.015 ms, 2.5 ms a step
-- (u_k = 1.015 + 2.5 k ms: the upload to u_k + 0.5, kA to u_k + 1.5, kB to u_k + 2.5).  A device
-- sync from 6.00 ms waits for them.  copy.serialized's what-if moves the uploads, and only
-- them, to a copy stream, each kA after its upload: the kernels stay in their order on their
-- stream, 2 ms a step, and the first upload is not hidden: 2.05 ms.  Moving every operation of
-- the site's calls moved kA too, next to kB: 1.61 ms, less than the kernels take.  Times in ns.
INSERT INTO run VALUES('hand:upload_line', 1700000000001000000, 'hand');
INSERT INTO process(id, run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,
  cupti_status, clock_source, clock_offset_ns, start_ns, end_ns, exit_code, end_reason,
  dropped_host, dropped_cupti, python_status, nvtx_status, nccl_plugin_status)
  VALUES(1, 'hand:upload_line', 'host', 1000, 0, 0, 1, 0, 'hand GPU', 'upload_line', 'active', 'tsc',
  1700000000000000000, 100000, 27000000, 0, 'exit', 0, 0, 'no Python', 'active', 'off');
INSERT INTO string VALUES(1, 1, 'kA'), (1, 2, 'kB'), (1, 3, 'train_step');
INSERT INTO module VALUES(1, 1, 'upload_line', 'upload_line', '00');
INSERT INTO callsite VALUES(1, 1, 'step_site+0x10 (upload_line+0x1010)'),
  (1, 2, 'b_site+0x10 (upload_line+0x2010)'), (1, 3, 'drain_site+0x10 (upload_line+0x3010)');

-- api_call(process_id, tid, api, start_ns, end_ns, stream, event, bytes, copy_kind, mem_kind, result,
--          callsite, call_id, pystack); a launch's end is its start (the tracer does not read it)
-- cupti_api(process_id, domain, cbid, tid, start_ns, end_ns, correlation, result)
-- gpu_op(process_id, kind, device, context, stream_id, name_id, start_ns, end_ns, bytes, copy_kind,
--        src_kind, dst_kind, correlation, sync_type, event_id); memory kinds: 2 pinned, 3 device

INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaStreamCreateWithFlags'), 200000, 200000, 4096, 0, 0, 0, 1, 0, 0, 1, 0);

-- the steps (k = 0..9) at t = 1.00 + 0.50 k ms; call ids 10 + 3k (the upload, at t), 11 + 3k
-- (kA, t + 0.01 ms), 12 + 3k (kB, t + 0.02 ms), each the correlation of its CUPTI record
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9)
INSERT INTO nvtx_range SELECT 1, 100, 1, 0, 3, 0, 1000000 + 500000 * i, 1499000 + 500000 * i, 0, NULL, NULL FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9)
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaMemcpyAsync'), 1000000 + 500000 * i,
  1005000 + 500000 * i, 4096, 0, 8388608, 1, 2, 0, 1, 10 + 3 * i, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9)
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 1010000 + 500000 * i,
  1010000 + 500000 * i, 4096, 0, 0, 0, 0, 0, 1, 11 + 3 * i, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9)
INSERT INTO api_call SELECT 1, 100, (SELECT id FROM api WHERE name = 'cudaLaunchKernel'), 1020000 + 500000 * i,
  1020000 + 500000 * i, 4096, 0, 0, 0, 0, 0, 2, 12 + 3 * i, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9)
INSERT INTO cupti_api SELECT 1, 1, 41, 100, 1000100 + 500000 * i, 1004900 + 500000 * i, 10 + 3 * i, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9)
INSERT INTO cupti_api SELECT 1, 1, 211, 100, 1010100 + 500000 * i, 1015000 + 500000 * i, 11 + 3 * i, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9)
INSERT INTO cupti_api SELECT 1, 1, 211, 100, 1020100 + 500000 * i, 1025000 + 500000 * i, 12 + 3 * i, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9)
INSERT INTO gpu_op SELECT 1, 2, 0, 1, 8, 0, 1015000 + 2500000 * i, 1515000 + 2500000 * i, 8388608, 1, 2, 3, 10 + 3 * i, 0, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9)
INSERT INTO gpu_op SELECT 1, 1, 0, 1, 8, 1, 1515000 + 2500000 * i, 2515000 + 2500000 * i, 0, 0, 0, 0, 11 + 3 * i, 0, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 9)
INSERT INTO gpu_op SELECT 1, 1, 0, 1, 8, 2, 2515000 + 2500000 * i, 3515000 + 2500000 * i, 0, 0, 0, 0, 12 + 3 * i, 0, 0 FROM k;

-- the drain: a device sync 6.00-26.02 ms
INSERT INTO api_call VALUES(1, 100, (SELECT id FROM api WHERE name = 'cudaDeviceSynchronize'), 6000000, 26020000, 0, 0, 0, 0, 0, 0, 3, 50, 0);
INSERT INTO cupti_api VALUES(1, 1, 165, 100, 6000100, 26019900, 50, 0);
INSERT INTO ext_corr VALUES(1, 4611686018427387904 + 50, 50);
