# check_db.py DB NAME: prints what a traced run recorded and checks that the
# real CUPTI path worked: GPU kernels/copies/syncs with GPU times, NCCL
# kernels attributed to their operation.  Exit 1 if a check fails.
import sqlite3, sys
db, name = sys.argv[1], sys.argv[2]
c = sqlite3.connect(db)
q = lambda s: c.execute(s).fetchall()
fails = []
def check(cond, what):
    print(f"  [{'ok' if cond else 'FAIL'}] {what}")
    if not cond: fails.append(what)
print(f"== {name}")
for row in q("select pid, rank, device, gpu_name, cuda_runtime_version, nccl_version, cupti_version, cupti_status, clock_source, exit_code, end_reason, dropped_host, dropped_cupti from process"):
    print("  process:", row)
print("  api calls:", q("select a.name, count(*) from api_call c join api a on a.id=c.api group by 1 order by 2 desc limit 25"))
kinds = dict(q("select kind, count(*) from gpu_op group by 1"))
print("  gpu_op by kind (1 kernel, 2 memcpy, 3 memset, 4 sync):", kinds)
check(q("select count(*) from process where cupti_status='active'")[0][0] >= 1, "CUPTI active")
check(kinds.get(1, 0) > 0, "kernel records")
check(q("select count(*) from gpu_op where kind=1 and end_ns > start_ns")[0][0] == kinds.get(1, 0), "kernels have GPU start < end")
check(kinds.get(2, 0) > 0, "memcpy records")
check(kinds.get(4, 0) > 0, "synchronization records")
print("  memcpy src kinds:", q("select copy_kind, src_kind, dst_kind, count(*) from gpu_op where kind=2 group by 1,2,3"))
print("  host copies by mem kind:", q("select a.name, c.copy_kind, c.mem_kind, count(*) from api_call c join api a on a.id=c.api where a.class='copy' group by 1,2,3"))
ncoll = q("select count(*) from collective")[0][0]
nattr = q("select count(distinct call_id) from collective_kernel")[0][0]
print(f"  collectives: {ncoll}, attributed to a kernel: {nattr}")
print("  nccl kernel names:", q("select distinct s.value from collective_kernel k join string s on s.process_id=k.process_id and s.id=k.name_id limit 5"))
# a world of one: NCCL runs each collective as a copy of its own, with no
# kernel of NCCL's and no event for its profiler plugin (seen on an H200)
cols_c = [r[1] for r in q("pragma table_info(comm)")]
world = q("select max(nranks) from comm")[0][0] if "nranks" in cols_c else None
print(f"  communicators' largest world: {world}")
if ncoll and (world or 0) > 1:
    check(nattr == ncoll, "every NCCL operation attributed to its kernel")
# host/GPU clock agreement: each attributed kernel starts after its call began
bad = q("select count(*) from collective_kernel k join collective c on c.process_id=k.process_id and c.call_id=k.call_id where k.gpu_start_ns < c.start_ns")[0][0]
check(bad == 0, f"NCCL kernels start after their host call ({bad} do not)")
cols = [r[1] for r in q("pragma table_info(process)")]
if "nccl_plugin_status" in cols:
    st = q("select nccl_plugin_status from process")
    nops = q("select count(*) from nccl_op")[0][0]
    print(f"  NCCL profiler plugin: {st}, operations it recorded: {nops}")
    if ncoll and (world or 0) > 1 and any((s or "").startswith("active") for (s,) in st):
        check(nops >= ncoll, f"NCCL's plugin recorded every collective ({nops} of {ncoll})")
print("  callsite example:", q("select frames from callsite limit 1"))
sys.exit(1 if fails else 0)
