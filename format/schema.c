/* schema.c: the SQL of the database schema, version GT_SCHEMA_VERSION.
 * Every table and column is described in docs/schema.md; keep them in step. */
#include "format/schema.h"

/* Indexes on the tables written at the highest rate cost the writer about
 * as much as the rows themselves (a gpu_op row with its two: 3.3 us alone,
 * 1.4 us without them; db_batch.h): nothing the writer does reads them (it
 * only appends), so they are made when a process ends instead, idempotently
 * (gt_schema_late, gt_db_make_late_indexes), and by a merge or an import. */
#define LATE_API_CALL "CREATE INDEX IF NOT EXISTS api_call_by_process ON api_call(process_id, start_ns);\n"
#define LATE_GPU_OP "CREATE INDEX IF NOT EXISTS gpu_op_by_process ON gpu_op(process_id, start_ns);\n" \
                    "CREATE INDEX IF NOT EXISTS gpu_op_by_corr ON gpu_op(process_id, correlation);\n"
#define LATE_CUPTI_API "CREATE INDEX IF NOT EXISTS cupti_api_by_corr ON cupti_api(process_id, correlation);\n"
#define LATE_EXT_CORR "CREATE INDEX IF NOT EXISTS ext_corr_by_ext ON ext_corr(process_id, external_id);\n"

const char gt_schema_late_sql[] = LATE_API_CALL LATE_GPU_OP LATE_CUPTI_API LATE_EXT_CORR;

const struct gt_late_index gt_schema_late[GT_SCHEMA_LATE_TABLES] = {
    { "api_call", LATE_API_CALL },
    { "gpu_op", LATE_GPU_OP },
    { "cupti_api", LATE_CUPTI_API },
    { "ext_corr", LATE_EXT_CORR },
};

const char gt_schema_sql[] =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);\n"
    "CREATE TABLE IF NOT EXISTS run(id TEXT PRIMARY KEY, started_ns INTEGER, launcher TEXT);\n"
    "CREATE TABLE IF NOT EXISTS process(\n"
    "  id INTEGER PRIMARY KEY, run_id TEXT, host TEXT, pid INTEGER, rank INTEGER, local_rank INTEGER,\n"
    "  world_size INTEGER, device INTEGER, gpu_name TEXT, cmdline TEXT, cuda_runtime_version INTEGER,\n"
    "  nccl_version INTEGER, cupti_version INTEGER, cupti_status TEXT, clock_source TEXT,\n"
    "  clock_offset_ns INTEGER, start_ns INTEGER, end_ns INTEGER, exit_code INTEGER, exit_signal INTEGER,\n"
    "  end_reason TEXT, dropped_host INTEGER DEFAULT 0, dropped_cupti INTEGER DEFAULT 0,\n"
    "  python_status TEXT, nvtx_status TEXT, nccl_plugin_status TEXT, source TEXT, boot_id TEXT);\n"
    "CREATE TABLE IF NOT EXISTS api(id INTEGER PRIMARY KEY, name TEXT UNIQUE, class TEXT);\n"
    "CREATE TABLE IF NOT EXISTS api_call(\n"
    "  process_id INTEGER, tid INTEGER, api INTEGER, start_ns INTEGER, end_ns INTEGER, stream INTEGER,\n"
    "  event INTEGER, bytes INTEGER, copy_kind INTEGER, mem_kind INTEGER, result INTEGER,\n"
    "  callsite INTEGER, call_id INTEGER, pystack INTEGER);\n"
    "CREATE TABLE IF NOT EXISTS api_call_block(process_id INTEGER, format INTEGER, n INTEGER, data BLOB);\n"
    "CREATE TABLE IF NOT EXISTS inflight(\n"
    "  process_id INTEGER, tid INTEGER, api INTEGER, start_ns INTEGER, call_id INTEGER, callsite INTEGER,\n"
    "  pystack INTEGER, PRIMARY KEY(process_id, call_id));\n"
    "CREATE TABLE IF NOT EXISTS comm(\n"
    "  process_id INTEGER, handle INTEGER, comm_id INTEGER, rank INTEGER, nranks INTEGER,\n"
    "  parent_comm_id INTEGER, created_ns INTEGER);\n"
    "CREATE TABLE IF NOT EXISTS collective(\n"
    "  process_id INTEGER, call_id INTEGER, api INTEGER, comm_id INTEGER, seq INTEGER, count INTEGER,\n"
    "  datatype INTEGER, bytes INTEGER, op INTEGER, peer INTEGER, rank INTEGER, nranks INTEGER,\n"
    "  stream INTEGER, start_ns INTEGER, end_ns INTEGER, callsite INTEGER, group_id INTEGER,\n"
    "  result INTEGER, pystack INTEGER);\n"
    "CREATE TABLE IF NOT EXISTS gpu_op(\n"
    "  process_id INTEGER, kind INTEGER, device INTEGER, context INTEGER, stream_id INTEGER,\n"
    "  name_id INTEGER, start_ns INTEGER, end_ns INTEGER, bytes INTEGER, copy_kind INTEGER,\n"
    "  src_kind INTEGER, dst_kind INTEGER, correlation INTEGER, sync_type INTEGER, event_id INTEGER);\n"
    "CREATE TABLE IF NOT EXISTS gpu_op_block(process_id INTEGER, format INTEGER, n INTEGER, data BLOB);\n"
    "CREATE TABLE IF NOT EXISTS cupti_api(\n"
    "  process_id INTEGER, domain INTEGER, cbid INTEGER, tid INTEGER, start_ns INTEGER, end_ns INTEGER,\n"
    "  correlation INTEGER, result INTEGER);\n"
    "CREATE TABLE IF NOT EXISTS cupti_api_block(process_id INTEGER, format INTEGER, n INTEGER, data BLOB);\n"
    "CREATE TABLE IF NOT EXISTS ext_corr(process_id INTEGER, external_id INTEGER, correlation INTEGER);\n"
    "CREATE TABLE IF NOT EXISTS string(process_id INTEGER, id INTEGER, value TEXT, PRIMARY KEY(process_id, id));\n"
    "CREATE TABLE IF NOT EXISTS callsite(process_id INTEGER, id INTEGER, frames TEXT, PRIMARY KEY(process_id, id));\n"
    "CREATE TABLE IF NOT EXISTS module(process_id INTEGER, id INTEGER, name TEXT, path TEXT, build_id TEXT,\n"
    "  PRIMARY KEY(process_id, id));\n"
    "CREATE TABLE IF NOT EXISTS pystack(process_id INTEGER, id INTEGER, frames TEXT, PRIMARY KEY(process_id, id));\n"
    "CREATE TABLE IF NOT EXISTS label(process_id INTEGER, id INTEGER, value TEXT, PRIMARY KEY(process_id, id));\n"
    "CREATE TABLE IF NOT EXISTS nvtx_range(\n"
    "  process_id INTEGER, tid INTEGER, kind INTEGER, domain INTEGER, name INTEGER, category INTEGER,\n"
    "  start_ns INTEGER, end_ns INTEGER, depth INTEGER, range_id INTEGER, payload);\n"
    "CREATE TABLE IF NOT EXISTS nvtx_range_block(process_id INTEGER, format INTEGER, n INTEGER, data BLOB);\n"
    "CREATE TABLE IF NOT EXISTS nvtx_category(process_id INTEGER, domain INTEGER, category INTEGER, name INTEGER);\n"
    "CREATE TABLE IF NOT EXISTS thread_name(process_id INTEGER, tid INTEGER, name INTEGER);\n"
    /* the writer's last sign of life, at every commit: a process whose
     * records stop early but whose heartbeat goes on was alive and idle */
    "CREATE TABLE IF NOT EXISTS heartbeat(process_id INTEGER PRIMARY KEY, at_ns INTEGER);\n"
    /* the stretches the program's own profiler held CUPTI: no GPU records
     * of ours then (collector/cupti_sub.c); to_ns NULL while it held it */
    "CREATE TABLE IF NOT EXISTS gpu_gap(process_id INTEGER, idx INTEGER, from_ns INTEGER, to_ns INTEGER,\n"
    "  PRIMARY KEY(process_id, idx));\n"
    /* a monitor's window (collector/window.c): why it was written */
    "CREATE TABLE IF NOT EXISTS window(process_id INTEGER, request TEXT, reason TEXT, at_ns INTEGER,\n"
    "  from_ns INTEGER, cut_rows INTEGER, detail TEXT, gpu_flushed INTEGER, onset_ns INTEGER);\n"
    /* a monitor's aggregates for the whole job (collector/mon_agg.c) */
    "CREATE TABLE IF NOT EXISTS mon_step(process_id INTEGER, name INTEGER, idx INTEGER, n INTEGER,\n"
    "  start_ns INTEGER, end_ns INTEGER, min_ns INTEGER, max_ns INTEGER);\n"
    "CREATE TABLE IF NOT EXISTS mon_callsite(process_id INTEGER, callsite INTEGER, api INTEGER, calls INTEGER,\n"
    "  total_ns INTEGER, max_ns INTEGER, PRIMARY KEY(process_id, callsite, api));\n"
    "CREATE TABLE IF NOT EXISTS mon_comm(process_id INTEGER, comm_id INTEGER, api INTEGER, calls INTEGER,\n"
    "  bytes INTEGER, last_seq INTEGER, last_ns INTEGER, PRIMARY KEY(process_id, comm_id, api));\n"
    /* written by `gputrace import` only (import/, docs/import.md) */
    "CREATE TABLE IF NOT EXISTS import_note(process_id INTEGER, kind TEXT, note TEXT);\n"
    "CREATE INDEX IF NOT EXISTS nvtx_range_by_id ON nvtx_range(process_id, range_id) WHERE kind = 2;\n"
    "CREATE INDEX IF NOT EXISTS collective_by_comm ON collective(comm_id, seq);\n"
    "CREATE VIEW IF NOT EXISTS api_call_named AS\n"
    "  SELECT c.*, a.name AS api_name, a.class AS api_class FROM api_call c JOIN api a ON a.id = c.api;\n"
    "CREATE VIEW IF NOT EXISTS kernel AS\n"
    "  SELECT g.process_id, g.device, g.stream_id, s.value AS name, g.start_ns, g.end_ns, g.correlation\n"
    "  FROM gpu_op g LEFT JOIN string s ON s.process_id = g.process_id AND s.id = g.name_id WHERE g.kind = 1;\n"
    "CREATE VIEW IF NOT EXISTS collective_kernel AS\n"
    "  SELECT c.process_id, c.comm_id, c.seq, c.api, c.call_id, g.start_ns AS gpu_start_ns, g.end_ns AS gpu_end_ns,\n"
    "         g.stream_id, g.name_id\n"
    "  FROM collective c\n"
    "  JOIN ext_corr x ON x.process_id = c.process_id AND x.external_id = (CASE WHEN c.group_id THEN c.group_id ELSE c.call_id END)\n"
    "  JOIN gpu_op g ON g.process_id = x.process_id AND g.correlation = x.correlation AND g.kind = 1;\n"
    /* NCCL's own records, from the tracer as its profiler plugin
     * (libtrace/nccl_profiler.c); names are label ids */
    "CREATE TABLE IF NOT EXISTS nccl_comm(\n"
    "  process_id INTEGER, comm_hash INTEGER, rank INTEGER, nranks INTEGER, nnodes INTEGER, name INTEGER,\n"
    "  plugin_version INTEGER, created_ns INTEGER);\n"
    "CREATE TABLE IF NOT EXISTS nccl_op(\n"
    "  process_id INTEGER, event_id INTEGER, comm_hash INTEGER, seq INTEGER, nccl_seq INTEGER, func INTEGER,\n"
    "  datatype INTEGER, count INTEGER, algo INTEGER, proto INTEGER, rank INTEGER, root_peer INTEGER,\n"
    "  nchannels INTEGER, nwarps INTEGER, is_p2p INTEGER, graph_captured INTEGER, stream INTEGER,\n"
    "  start_ns INTEGER, end_ns INTEGER);\n"
    "CREATE TABLE IF NOT EXISTS nccl_kernel_ch(\n"
    "  process_id INTEGER, event_id INTEGER, op_event_id INTEGER, channel INTEGER, start_ns INTEGER,\n"
    "  end_ns INTEGER, gpu_start INTEGER, gpu_end INTEGER);\n"
    "CREATE TABLE IF NOT EXISTS nccl_proxy_op(\n"
    "  process_id INTEGER, event_id INTEGER, op_event_id INTEGER, channel INTEGER, peer INTEGER, is_send INTEGER,\n"
    "  nsteps INTEGER, chunk_size INTEGER, start_ns INTEGER, end_ns INTEGER, steps_done INTEGER, bytes INTEGER,\n"
    "  gpu_wait_ns INTEGER, peer_wait_ns INTEGER, net_ns INTEGER, recv_wait_ns INTEGER, flush_ns INTEGER,\n"
    "  last_state INTEGER);\n"
    "CREATE INDEX IF NOT EXISTS nccl_op_by_event ON nccl_op(process_id, event_id);\n"
    "CREATE INDEX IF NOT EXISTS nccl_kernel_ch_by_event ON nccl_kernel_ch(process_id, event_id);\n"
    "CREATE INDEX IF NOT EXISTS nccl_proxy_op_by_event ON nccl_proxy_op(process_id, event_id);\n"
    "CREATE VIEW IF NOT EXISTS nccl_op_named AS\n"
    "  SELECT o.*, f.value AS func_name, t.value AS datatype_name, a.value AS algo_name, p.value AS proto_name\n"
    "  FROM nccl_op o\n"
    "  LEFT JOIN label f ON f.process_id = o.process_id AND f.id = o.func\n"
    "  LEFT JOIN label t ON t.process_id = o.process_id AND t.id = o.datatype\n"
    "  LEFT JOIN label a ON a.process_id = o.process_id AND a.id = o.algo\n"
    "  LEFT JOIN label p ON p.process_id = o.process_id AND p.id = o.proto;\n"
    /* CUPTI's CUDA_EVENT and SYNCHRONIZATION records (gpu_op kinds 5 and
     * 4) by their own names: which stream an event was recorded on, and
     * which record of it a sync or a stream wait waited for */
    "CREATE VIEW IF NOT EXISTS cuda_event AS\n"
    "  SELECT process_id, device, context, stream_id, event_id, bytes AS event_sync_id, correlation\n"
    "  FROM gpu_op WHERE kind = 5;\n"
    "CREATE VIEW IF NOT EXISTS synchronization AS\n"
    "  SELECT process_id, sync_type, context, stream_id, event_id, bytes AS event_sync_id, start_ns, end_ns,\n"
    "         correlation\n"
    "  FROM gpu_op WHERE kind = 4;\n";
