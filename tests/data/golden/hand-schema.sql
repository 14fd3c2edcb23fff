-- hand-schema.sql: the tracer's schema (version 5) and api table, as sim-event_sync/input.sql has
-- them: what the hand-written fixtures' rows.sql are loaded after (README.md).
PRAGMA foreign_keys=OFF;
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE run(id TEXT PRIMARY KEY, started_ns INTEGER, launcher TEXT);
CREATE TABLE process(
  id INTEGER PRIMARY KEY, run_id TEXT, host TEXT, pid INTEGER, rank INTEGER, local_rank INTEGER,
  world_size INTEGER, device INTEGER, gpu_name TEXT, cmdline TEXT, cuda_runtime_version INTEGER,
  nccl_version INTEGER, cupti_version INTEGER, cupti_status TEXT, clock_source TEXT,
  clock_offset_ns INTEGER, start_ns INTEGER, end_ns INTEGER, exit_code INTEGER, exit_signal INTEGER,
  end_reason TEXT, dropped_host INTEGER DEFAULT 0, dropped_cupti INTEGER DEFAULT 0,
  python_status TEXT, nvtx_status TEXT, nccl_plugin_status TEXT, source TEXT, boot_id TEXT);
CREATE TABLE api(id INTEGER PRIMARY KEY, name TEXT UNIQUE, class TEXT);
CREATE TABLE api_call(
  process_id INTEGER, tid INTEGER, api INTEGER, start_ns INTEGER, end_ns INTEGER, stream INTEGER,
  event INTEGER, bytes INTEGER, copy_kind INTEGER, mem_kind INTEGER, result INTEGER,
  callsite INTEGER, call_id INTEGER, pystack INTEGER);
CREATE TABLE api_call_block(process_id INTEGER, format INTEGER, n INTEGER, data BLOB);
CREATE TABLE inflight(
  process_id INTEGER, tid INTEGER, api INTEGER, start_ns INTEGER, call_id INTEGER, callsite INTEGER,
  pystack INTEGER, PRIMARY KEY(process_id, call_id));
CREATE TABLE comm(
  process_id INTEGER, handle INTEGER, comm_id INTEGER, rank INTEGER, nranks INTEGER,
  parent_comm_id INTEGER, created_ns INTEGER);
CREATE TABLE collective(
  process_id INTEGER, call_id INTEGER, api INTEGER, comm_id INTEGER, seq INTEGER, count INTEGER,
  datatype INTEGER, bytes INTEGER, op INTEGER, peer INTEGER, rank INTEGER, nranks INTEGER,
  stream INTEGER, start_ns INTEGER, end_ns INTEGER, callsite INTEGER, group_id INTEGER,
  result INTEGER, pystack INTEGER);
CREATE TABLE gpu_op(
  process_id INTEGER, kind INTEGER, device INTEGER, context INTEGER, stream_id INTEGER,
  name_id INTEGER, start_ns INTEGER, end_ns INTEGER, bytes INTEGER, copy_kind INTEGER,
  src_kind INTEGER, dst_kind INTEGER, correlation INTEGER, sync_type INTEGER, event_id INTEGER);
CREATE TABLE gpu_op_block(process_id INTEGER, format INTEGER, n INTEGER, data BLOB);
CREATE TABLE cupti_api(
  process_id INTEGER, domain INTEGER, cbid INTEGER, tid INTEGER, start_ns INTEGER, end_ns INTEGER,
  correlation INTEGER, result INTEGER);
CREATE TABLE cupti_api_block(process_id INTEGER, format INTEGER, n INTEGER, data BLOB);
CREATE TABLE ext_corr(process_id INTEGER, external_id INTEGER, correlation INTEGER);
CREATE TABLE string(process_id INTEGER, id INTEGER, value TEXT, PRIMARY KEY(process_id, id));
CREATE TABLE callsite(process_id INTEGER, id INTEGER, frames TEXT, PRIMARY KEY(process_id, id));
CREATE TABLE module(process_id INTEGER, id INTEGER, name TEXT, path TEXT, build_id TEXT,
  PRIMARY KEY(process_id, id));
CREATE TABLE pystack(process_id INTEGER, id INTEGER, frames TEXT, PRIMARY KEY(process_id, id));
CREATE TABLE label(process_id INTEGER, id INTEGER, value TEXT, PRIMARY KEY(process_id, id));
CREATE TABLE nvtx_range(
  process_id INTEGER, tid INTEGER, kind INTEGER, domain INTEGER, name INTEGER, category INTEGER,
  start_ns INTEGER, end_ns INTEGER, depth INTEGER, range_id INTEGER, payload);
CREATE TABLE nvtx_range_block(process_id INTEGER, format INTEGER, n INTEGER, data BLOB);
CREATE TABLE nvtx_category(process_id INTEGER, domain INTEGER, category INTEGER, name INTEGER);
CREATE TABLE thread_name(process_id INTEGER, tid INTEGER, name INTEGER);
CREATE TABLE import_note(process_id INTEGER, kind TEXT, note TEXT);
CREATE TABLE nccl_comm(
  process_id INTEGER, comm_hash INTEGER, rank INTEGER, nranks INTEGER, nnodes INTEGER, name INTEGER,
  plugin_version INTEGER, created_ns INTEGER);
CREATE TABLE nccl_op(
  process_id INTEGER, event_id INTEGER, comm_hash INTEGER, seq INTEGER, nccl_seq INTEGER, func INTEGER,
  datatype INTEGER, count INTEGER, algo INTEGER, proto INTEGER, rank INTEGER, root_peer INTEGER,
  nchannels INTEGER, nwarps INTEGER, is_p2p INTEGER, graph_captured INTEGER, stream INTEGER,
  start_ns INTEGER, end_ns INTEGER);
CREATE TABLE nccl_kernel_ch(
  process_id INTEGER, event_id INTEGER, op_event_id INTEGER, channel INTEGER, start_ns INTEGER,
  end_ns INTEGER, gpu_start INTEGER, gpu_end INTEGER);
CREATE TABLE nccl_proxy_op(
  process_id INTEGER, event_id INTEGER, op_event_id INTEGER, channel INTEGER, peer INTEGER, is_send INTEGER,
  nsteps INTEGER, chunk_size INTEGER, start_ns INTEGER, end_ns INTEGER, steps_done INTEGER, bytes INTEGER,
  gpu_wait_ns INTEGER, peer_wait_ns INTEGER, net_ns INTEGER, recv_wait_ns INTEGER, flush_ns INTEGER,
  last_state INTEGER);
CREATE INDEX nvtx_range_by_id ON nvtx_range(process_id, range_id) WHERE kind = 2;
CREATE INDEX collective_by_comm ON collective(comm_id, seq);
CREATE VIEW api_call_named AS
  SELECT c.*, a.name AS api_name, a.class AS api_class FROM api_call c JOIN api a ON a.id = c.api;
CREATE VIEW kernel AS
  SELECT g.process_id, g.device, g.stream_id, s.value AS name, g.start_ns, g.end_ns, g.correlation
  FROM gpu_op g LEFT JOIN string s ON s.process_id = g.process_id AND s.id = g.name_id WHERE g.kind = 1;
CREATE VIEW collective_kernel AS
  SELECT c.process_id, c.comm_id, c.seq, c.api, c.call_id, g.start_ns AS gpu_start_ns, g.end_ns AS gpu_end_ns,
         g.stream_id, g.name_id
  FROM collective c
  JOIN ext_corr x ON x.process_id = c.process_id AND x.external_id = (CASE WHEN c.group_id THEN c.group_id ELSE c.call_id END)
  JOIN gpu_op g ON g.process_id = x.process_id AND g.correlation = x.correlation AND g.kind = 1;
CREATE INDEX nccl_op_by_event ON nccl_op(process_id, event_id);
CREATE INDEX nccl_kernel_ch_by_event ON nccl_kernel_ch(process_id, event_id);
CREATE INDEX nccl_proxy_op_by_event ON nccl_proxy_op(process_id, event_id);
CREATE VIEW nccl_op_named AS
  SELECT o.*, f.value AS func_name, t.value AS datatype_name, a.value AS algo_name, p.value AS proto_name
  FROM nccl_op o
  LEFT JOIN label f ON f.process_id = o.process_id AND f.id = o.func
  LEFT JOIN label t ON t.process_id = o.process_id AND t.id = o.datatype
  LEFT JOIN label a ON a.process_id = o.process_id AND a.id = o.algo
  LEFT JOIN label p ON p.process_id = o.process_id AND p.id = o.proto;
CREATE VIEW cuda_event AS
  SELECT process_id, device, context, stream_id, event_id, bytes AS event_sync_id, correlation
  FROM gpu_op WHERE kind = 5;
CREATE VIEW synchronization AS
  SELECT process_id, sync_type, context, stream_id, event_id, bytes AS event_sync_id, start_ns, end_ns,
         correlation
  FROM gpu_op WHERE kind = 4;
CREATE INDEX api_call_by_process ON api_call(process_id, start_ns);
CREATE INDEX gpu_op_by_process ON gpu_op(process_id, start_ns);
CREATE INDEX gpu_op_by_corr ON gpu_op(process_id, correlation);
CREATE INDEX cupti_api_by_corr ON cupti_api(process_id, correlation);
CREATE INDEX ext_corr_by_ext ON ext_corr(process_id, external_id);
INSERT INTO meta VALUES('schema_version','5');
INSERT INTO meta VALUES('writer','gputrace 0.1.0');
INSERT INTO api VALUES(0,'cudaStreamCreate','stream');
INSERT INTO api VALUES(1,'cudaStreamCreateWithFlags','stream');
INSERT INTO api VALUES(2,'cudaStreamCreateWithPriority','stream');
INSERT INTO api VALUES(3,'cudaStreamDestroy','stream');
INSERT INTO api VALUES(4,'cudaStreamSynchronize','sync');
INSERT INTO api VALUES(5,'cudaStreamSynchronize_ptsz','sync');
INSERT INTO api VALUES(6,'cudaStreamQuery','stream');
INSERT INTO api VALUES(7,'cudaStreamQuery_ptsz','stream');
INSERT INTO api VALUES(8,'cudaStreamWaitEvent','stream');
INSERT INTO api VALUES(9,'cudaStreamWaitEvent_ptsz','stream');
INSERT INTO api VALUES(10,'cudaEventCreate','event');
INSERT INTO api VALUES(11,'cudaEventCreateWithFlags','event');
INSERT INTO api VALUES(12,'cudaEventRecord','event');
INSERT INTO api VALUES(13,'cudaEventRecord_ptsz','event');
INSERT INTO api VALUES(14,'cudaEventRecordWithFlags','event');
INSERT INTO api VALUES(15,'cudaEventRecordWithFlags_ptsz','event');
INSERT INTO api VALUES(16,'cudaEventSynchronize','sync');
INSERT INTO api VALUES(17,'cudaEventQuery','event');
INSERT INTO api VALUES(18,'cudaEventElapsedTime','event');
INSERT INTO api VALUES(19,'cudaEventDestroy','event');
INSERT INTO api VALUES(20,'cudaDeviceSynchronize','sync');
INSERT INTO api VALUES(21,'cudaSetDevice','device');
INSERT INTO api VALUES(22,'cudaMalloc','memory');
INSERT INTO api VALUES(23,'cudaFree','memory');
INSERT INTO api VALUES(24,'cudaMallocHost','memory');
INSERT INTO api VALUES(25,'cudaHostAlloc','memory');
INSERT INTO api VALUES(26,'cudaFreeHost','memory');
INSERT INTO api VALUES(27,'cudaMallocManaged','memory');
INSERT INTO api VALUES(28,'cudaHostRegister','memory');
INSERT INTO api VALUES(29,'cudaHostUnregister','memory');
INSERT INTO api VALUES(30,'cudaMemcpy','copy');
INSERT INTO api VALUES(31,'cudaMemcpy_ptds','copy');
INSERT INTO api VALUES(32,'cudaMemcpyAsync','copy');
INSERT INTO api VALUES(33,'cudaMemcpyAsync_ptsz','copy');
INSERT INTO api VALUES(34,'cudaMemcpy2D','copy');
INSERT INTO api VALUES(35,'cudaMemcpy2D_ptds','copy');
INSERT INTO api VALUES(36,'cudaMemcpy2DAsync','copy');
INSERT INTO api VALUES(37,'cudaMemcpy2DAsync_ptsz','copy');
INSERT INTO api VALUES(38,'cudaMemcpyPeer','copy');
INSERT INTO api VALUES(39,'cudaMemcpyPeerAsync','copy');
INSERT INTO api VALUES(40,'cudaMemset','copy');
INSERT INTO api VALUES(41,'cudaMemset_ptds','copy');
INSERT INTO api VALUES(42,'cudaMemsetAsync','copy');
INSERT INTO api VALUES(43,'cudaMemsetAsync_ptsz','copy');
INSERT INTO api VALUES(44,'cudaLaunchKernel','launch');
INSERT INTO api VALUES(45,'cudaLaunchKernel_ptsz','launch');
INSERT INTO api VALUES(46,'__cudaLaunchKernel','launch');
INSERT INTO api VALUES(47,'__cudaLaunchKernel_ptsz','launch');
INSERT INTO api VALUES(48,'cudaLaunchKernelExC','launch');
INSERT INTO api VALUES(49,'cudaLaunchKernelExC_ptsz','launch');
INSERT INTO api VALUES(50,'cudaGraphLaunch','launch');
INSERT INTO api VALUES(51,'cudaGraphLaunch_ptsz','launch');
INSERT INTO api VALUES(52,'cuCtxSynchronize','sync');
INSERT INTO api VALUES(53,'cuCtxSynchronize_v2','sync');
INSERT INTO api VALUES(54,'cuStreamSynchronize','sync');
INSERT INTO api VALUES(55,'cuStreamSynchronize_ptsz','sync');
INSERT INTO api VALUES(56,'cuEventSynchronize','sync');
INSERT INTO api VALUES(57,'cuStreamWaitEvent','stream');
INSERT INTO api VALUES(58,'cuStreamWaitEvent_ptsz','stream');
INSERT INTO api VALUES(59,'cuMemcpyDtoH_v2','copy');
INSERT INTO api VALUES(60,'cuMemcpyDtoH_v2_ptds','copy');
INSERT INTO api VALUES(61,'cuMemcpyHtoD_v2','copy');
INSERT INTO api VALUES(62,'cuMemcpyHtoD_v2_ptds','copy');
INSERT INTO api VALUES(63,'cuMemcpyDtoD_v2','copy');
INSERT INTO api VALUES(64,'cuMemcpyDtoD_v2_ptds','copy');
INSERT INTO api VALUES(65,'cuMemcpyDtoHAsync_v2','copy');
INSERT INTO api VALUES(66,'cuMemcpyDtoHAsync_v2_ptsz','copy');
INSERT INTO api VALUES(67,'cuMemcpyHtoDAsync_v2','copy');
INSERT INTO api VALUES(68,'cuMemcpyHtoDAsync_v2_ptsz','copy');
INSERT INTO api VALUES(69,'cuMemcpyDtoDAsync_v2','copy');
INSERT INTO api VALUES(70,'cuMemcpyDtoDAsync_v2_ptsz','copy');
INSERT INTO api VALUES(71,'cuLaunchKernel','launch');
INSERT INTO api VALUES(72,'cuLaunchKernel_ptsz','launch');
INSERT INTO api VALUES(73,'cuLaunchKernelEx','launch');
INSERT INTO api VALUES(74,'cuLaunchKernelEx_ptsz','launch');
INSERT INTO api VALUES(75,'ncclCommInitRank','nccl');
INSERT INTO api VALUES(76,'ncclCommInitAll','nccl');
INSERT INTO api VALUES(77,'ncclCommInitRankConfig','nccl');
INSERT INTO api VALUES(78,'ncclCommSplit','nccl');
INSERT INTO api VALUES(79,'ncclCommDestroy','nccl');
INSERT INTO api VALUES(80,'ncclCommAbort','nccl');
INSERT INTO api VALUES(81,'ncclAllReduce','nccl');
INSERT INTO api VALUES(82,'ncclBroadcast','nccl');
INSERT INTO api VALUES(83,'ncclBcast','nccl');
INSERT INTO api VALUES(84,'ncclReduce','nccl');
INSERT INTO api VALUES(85,'ncclAllGather','nccl');
INSERT INTO api VALUES(86,'ncclReduceScatter','nccl');
INSERT INTO api VALUES(87,'ncclAlltoAll','nccl');
INSERT INTO api VALUES(88,'ncclGather','nccl');
INSERT INTO api VALUES(89,'ncclScatter','nccl');
INSERT INTO api VALUES(90,'ncclSend','nccl');
INSERT INTO api VALUES(91,'ncclRecv','nccl');
INSERT INTO api VALUES(92,'ncclGroupStart','nccl');
INSERT INTO api VALUES(93,'ncclGroupEnd','nccl');
INSERT INTO api VALUES(94,'ncclGroupSimulateEnd','nccl');
INSERT INTO api VALUES(95,'ncclCommInitRankScalable','nccl');
INSERT INTO api VALUES(96,'ncclCommShrink','nccl');
INSERT INTO api VALUES(97,'ncclCommGetAsyncError','nccl');
INSERT INTO api VALUES(98,'ncclRedOpCreatePreMulSum','nccl');
INSERT INTO api VALUES(99,'ncclRedOpDestroy','nccl');
INSERT INTO api VALUES(100,'ncclMemAlloc','nccl');
INSERT INTO api VALUES(101,'ncclMemFree','nccl');
INSERT INTO api VALUES(102,'ncclCommRegister','nccl');
INSERT INTO api VALUES(103,'ncclCommDeregister','nccl');
INSERT INTO api VALUES(104,'ncclCommWindowRegister','nccl');
INSERT INTO api VALUES(105,'ncclCommWindowDeregister','nccl');
INSERT INTO api VALUES(106,'ncclCommFinalize','nccl');
INSERT INTO api VALUES(107,'ncclCommRevoke','nccl');
