#!/bin/sh
# cu_three_ways.sh: every .cu workload of tests/apps (compiled by nvcc with
# -cudart none against the simulator) traced three ways, LD_PRELOAD alone,
# the driver's injection alone (CUDA_INJECTION64_PATH, no preload) and both
# (as gputrace record runs a program), and its static build (the
# simulator's runtime, driver and NCCL linked in, as nvcc links
# libcudart_static.a) injected and both: the same findings at the same call
# sites, and the same counts of calls, kernels, copies and collectives,
# whatever saw the calls (the wrappers, CUPTI's callbacks or CUPTI's
# records alone).  What cannot be known without the NCCL wrappers is
# asserted as such (docs/loading.md, "The same report whichever way").
# Then the PyTorch event pattern (tests/apps/pg_sync.c, event_sync.c)
# injected alone: its syncs reach their streams through CUPTI's CUDA_EVENT
# and SYNCHRONIZATION records, and those records carry what CUDA 13's CUPTI
# fills in (cupti_activity.h).  Nothing here depends on times: finding
# kinds at call-site lines and counts.
# Skipped where configure found no working nvcc.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
# each traced process below writes the one file named (docs/schema.md)
export GPUTRACE_ONE_FILE=1
lib="$b/.libs/libgputrace.so"
if [ ! -x "$b/tests/apps/cu_scalar_read_static" ]; then
  skip_all "nvcc was not found at configure time, the .cu workloads were not built"
fi

# trace PROGRAM WAY DB: runs PROGRAM traced one way into DB; its exit status
trace() {
  rm -f "$3"
  case $2 in
    preload) GPUTRACE_OUTPUT="$3" LD_PRELOAD="$lib" "$b/tests/apps/$1" ;;
    inject) GPUTRACE_OUTPUT="$3" CUDA_INJECTION64_PATH="$lib" "$b/tests/apps/$1" ;;
    both) GPUTRACE_OUTPUT="$3" CUDA_INJECTION64_PATH="$lib" LD_PRELOAD="$lib" "$b/tests/apps/$1" ;;
  esac > "$3.out" 2>&1
}

# facts DB SOURCE: what must not depend on the way a program was traced,
# one line: the finding kinds at their call sites (file:line of the frame
# the report names; kinds the workload's "allow:" lines say timing may add
# left out, and those of how fast the host was against its GPU, which a
# loaded machine changes from one run to the next: comm.exposed (whether a
# collective overlapped compute in that step: one run in three of a static
# build traced both ways finds the first step's collectives exposed),
# comm.straggler, gpu.idle and gpu.launch_bound (a CI run found the GPU of
# cu_allreduce_compute_stream launch-bound traced two ways of four), and
# host.setup (a CUDA call of set-up slowed past 1 ms under the sanitizers
# while the GPU idled: cu_overlapped static, traced both ways, on CI), and
# gpu.stalled (the simulated GPU's streams are threads: a queued kernel
# waits for one to run, tests/e2e/workload_spec.py)), then
# the counts: kernels, copies and memsets (CUPTI's
# records), collectives, syncs the report could not place, and the
# report's calls (NCCL's calls that are no operation, which only the NCCL
# wrappers see, left out: docs/loading.md).
facts() {
  "$b/gputrace" expand "$1" > /dev/null
  gpu=$(q "$1" "select count(*) filter (where kind = 1) || ' ' || count(*) filter (where kind = 2) || ' ' ||
                count(*) filter (where kind = 3) from gpu_op")
  nccl_noop=$(q "$1" "select (select count(*) from api_call_named where api_class = 'nccl') - (select count(*) from collective)")
  "$b/gputrace-report" --format json "$1" | python3 -c '
import json, re, sys
src, gpu, noop = sys.argv[1], sys.argv[2], int(sys.argv[3])
allowed = {"comm.exposed", "comm.straggler", "gpu.idle", "gpu.launch_bound", "host.setup", "gpu.stalled"}
for l in open(src):
    m = re.match(r"\s*\*\s*allow:(.*)", l)
    if m:
        allowed |= {w for w in m.group(1).split() if re.fullmatch(r"[a-z]+\.[a-z_]+", w)}
j = json.load(sys.stdin)
site = lambda f: (re.findall(r"\((\S+:\d+)\)", f.get("callsite") or "") or ["?"])[0]
# a sync finding with what it waited for (the last of its pending work to
# end; "via-event": on a stream it reached through an event)
waited = lambda f: "(" + f["waited_for"] + (" via-event" if f.get("waited_through_event") else "") + ")" if f.get("waited_for") else ""
kinds = sorted({f["kind"] + "@" + site(f) + waited(f) for f in j["findings"] if f["kind"] not in allowed})
r = j["ranks"][0]
print("findings:", " ".join(kinds) or "none", "| kernels copies memsets:", gpu, "| collectives:", r["collectives"],
      "| unplaced syncs:", r["unscoped_syncs"], "| calls:", r["api_calls"] - noop)' "$2" "$gpu" "$nccl_noop"
}
# the calls of the APIs that api_call rows of DB2 hold (the wrappers', or
# the syncs, copies and frees CUPTI's callbacks recorded) as DB1 has them
wrapped() {
  q "$1" "select group_concat(api_name || '=' || n, ' ') from (select api_name, count(*) n from api_call_named
          where api_name in ($(q "$2" "select group_concat(distinct quote(api_name)) from api_call_named"))
          group by 1 order by 1)"
}
# the report's calls of one API (its Chrome trace's slices of that name)
report_calls() {
  "$b/gputrace-report" --chrome-trace "$1.json" "$1" > /dev/null &&
    python3 -c 'import json, sys
print(sum(e.get("ph") == "X" and e.get("name") == sys.argv[2] for e in json.load(open(sys.argv[1]))["traceEvents"]))' "$1.json" "$2"
}
# CUPTI's records of runtime and driver calls, by callback id: every call
# listed once whichever way (the tracer's own cudaGetDeviceProperties, cbid
# 440, which a preloaded copy makes for the GPU's name, left out)
records() {
  q "$1" "select group_concat(k || '=' || n, ' ') from (select domain || ':' || cbid k, count(*) n from cupti_api
          where not (domain = 1 and cbid = 440) group by 1 order by 1)"
}
# Without the NCCL wrappers (injected alone, static NCCL) a collective is
# seen by NCCL's profiler plugin, whose records carry no call stack: its
# findings are at no call site (docs/loading.md)
no_nccl_sites() { sed 's/\(comm\.[a-z_]*\)@[^ ]*/\1@?/g'; }

for app in cu_scalar_read cu_overlapped cu_allreduce_compute_stream; do
  src="$s/tests/apps/$app.cu"
  "$b/tests/apps/$app" > "$tmp/$app.untraced" 2>&1
  untraced=$?
  trace "$app" preload "$tmp/$app.preload.db"
  expect "$app, preloaded: exit status passes through" $? "$untraced"
  want=$(facts "$tmp/$app.preload.db" "$src")
  want_records=$(records "$tmp/$app.preload.db")
  want_unwrapped=$(printf '%s\n' "$want" | no_nccl_sites)
  for way in inject both static:inject static:both; do
    prog=$app
    case $way in static:*) prog=${app}_static ;; esac
    db="$tmp/$app.$(echo "$way" | tr : _).db"
    trace "$prog" "${way#static:}" "$db"
    expect "$app, $way: exit status passes through" $? "$untraced"
    expect "$app, $way: the same output" "$(cmp -s "$tmp/$app.untraced" "$db.out" && echo same)" same
    expect "$app, $way: every call in CUPTI's records once, as preloaded" "$(records "$db")" "$want_records"
    got=$(facts "$db" "$src")
    # the NCCL wrappers see a collective where the program's NCCL is the
    # shared one and the tracer is preloaded
    case $way in
      both)
        # the calls: the wrappers' and those only CUPTI's records list, the
        # latter joined by time; under load the join can still give one to
        # the wrapped call beside it, in this run or the preloaded one (2 of
        # 292 seen once, with a sanitizer build beside it): equal within 1%
        expect "$app, $way: the preloaded run's findings and counts" "${got% | calls:*}" "${want% | calls:*}"
        n_got=${got##* | calls: } n_want=${want##* | calls: }
        expect "$app, $way: the preloaded run's calls, within 1% ($n_got, $n_want)" \
          "$(test $(( (n_got - n_want) * (n_got - n_want) * 10000 )) -le $(( (n_want + 200) * (n_want + 200) )) && echo close)" close ;;
      *)
        # the calls CUPTI's callbacks recorded are the preloaded run's; the
        # calls only CUPTI's records list are joined to them by time, and
        # on a loaded machine the join can still give one such record to
        # the recorded call before it when the two clocks' conversions
        # drift apart (a few hundred ns): then the report has fewer calls
        # (up to 20 of 422 seen), never more (a record is one call) -- a
        # count to make exact once the join keeps each record with its own
        # call
        expect "$app, $way: the preloaded run's findings and counts" "${got% | calls:*}" "${want_unwrapped% | calls:*}"
        expect "$app, $way: the calls CUPTI's callbacks recorded, as preloaded" \
          "$(wrapped "$tmp/$app.preload.db" "$db")" "$(wrapped "$db" "$db")"
        expect "$app, $way: no call counted twice (calls at most the preloaded run's)" \
          "$(test "${got##* | calls: }" -le "${want##* | calls: }" && echo at-most)" at-most ;;
    esac
  done
  expect "$app: a static build imports no CUDA symbol" \
    "$(nm -D --undefined-only "$b/tests/apps/${app}_static" | grep -c ' cuda\| __cuda\| nccl')" 0
done

# the planted findings really are there (the comparisons above would pass
# on a run that found nothing every way)
pre="$tmp/cu_allreduce_compute_stream.preload.db"
expect "cu_allreduce_compute_stream: its comm.same_stream at the all-reduce" \
  "$(facts "$pre" "$s/tests/apps/cu_allreduce_compute_stream.cu" | cut -d'|' -f1)" \
  "findings: comm.same_stream@cu_train.cu:$(grep -n 'ncclAllReduce(d_grad\[b\], d_grad\[b\], BUCKET_ELEMS, ncclFloat32, ncclSum, comm, compute)' "$s/tests/apps/cu_train.cu" | cut -d: -f1) "
for way in inject static_inject; do
  expect "cu_overlapped, $way: its event sync (cudaEventSynchronize only CUPTI's callback saw) placed" \
    "$(facts "$tmp/cu_overlapped.$way.db" "$s/tests/apps/cu_overlapped.cu" | sed 's/.*unplaced syncs: \([0-9]*\).*/\1/')" 0
  # (each after a cudaEventDestroy, which only CUPTI's records list: no
  # recorded call before it for the join to give it to)
  expect "cu_overlapped, $way: its stream destroys, which only CUPTI saw, are calls" \
    "$(report_calls "$tmp/cu_overlapped.$way.db" cudaStreamDestroy)" 3
done

# The PyTorch event pattern (C workloads, shared runtime) injected alone:
# without the wrappers every cudaEventRecord and cudaStreamWaitEvent is a
# call only CUPTI saw, and the sync reaches the all-reduce (pg_sync) or the
# producer's kernel (event_sync) through the events their CUDA_EVENT and
# SYNCHRONIZATION records name: the preloaded run's sync.no_consumer, never
# a sync.redundant nor an unplaced sync
# (what each sync waited for: pg_sync's the all-reduce, on the NCCL stream
# it reached through two events; event_sync's the producer's kernel)
for sync in 'pg_sync:current_stream().synchronize():(ncclDevKernel_AllReduce_[A-Za-z0-9_]* via-event)' \
            'event_sync:cudaEventSynchronize(eb):(ev_producer_kernel)'; do
  app=${sync%%:*} rest=${sync#*:}; call=${rest%%:*} waited=${rest#*:}
  src="$s/tests/apps/$app.c"
  trace "$app" preload "$tmp/$app.preload.db"
  want=$(facts "$tmp/$app.preload.db" "$src")
  expect "$app, preloaded: the sync.no_consumer it plants, and what it waited for" \
    "$(echo "$want" | cut -d'|' -f1 | sed "s/$waited/(as planted)/")" \
    "findings: sync.no_consumer@$app.c:$(grep -nF "$call" "$src" | grep CHECK_CUDA | head -1 | cut -d: -f1)(as planted) "
  for way in inject both; do
    trace "$app" "$way" "$tmp/$app.$way.db"
    got=$(facts "$tmp/$app.$way.db" "$src")
    case $way in
      both)
        # the calls: the wrappers' and those only CUPTI's records list, the
        # latter joined by time; under load the join can still give one to
        # the wrapped call beside it, in this run or the preloaded one (2 of
        # 292 seen once, with a sanitizer build beside it): equal within 1%
        expect "$app, $way: the preloaded run's findings and counts" "${got% | calls:*}" "${want% | calls:*}"
        n_got=${got##* | calls: } n_want=${want##* | calls: }
        expect "$app, $way: the preloaded run's calls, within 1% ($n_got, $n_want)" \
          "$(test $(( (n_got - n_want) * (n_got - n_want) * 10000 )) -le $(( (n_want + 200) * (n_want + 200) )) && echo close)" close ;;
      *) expect "$app, $way: the preloaded run's findings and counts" "${got% | calls:*}" \
           "$(printf '%s\n' "${want% | calls:*}" | no_nccl_sites)" ;;
    esac
  done
done

# CUPTI's records as CUDA 13 fills them (cupti_activity.h:
# CUpti_ActivityCudaEvent2, CUpti_ActivitySynchronization2), seen through
# the views over gpu_op: cu_overlapped records 7 events a step for 12 steps
# and one at the end, waits for 6 a step, and syncs on the last
db="$tmp/cu_overlapped.preload.db"
expect "an event record per cudaEventRecord, each with a cudaEventSyncId of its own" \
  "$(q "$db" "select count(*), count(distinct event_sync_id), min(event_sync_id) > 0 from cuda_event")" \
  "$(q "$db" "select count(*) from api_call_named where api_name = 'cudaEventRecord'")|85|1"
expect "an event is always recorded on its own stream (three of them), the upload's event on the copy stream" \
  "$(q "$db" "select (select count(*) from (select event_id from cuda_event group by 1 having count(distinct stream_id) > 1)),
                     (select count(distinct stream_id) from cuda_event),
                     (select count(distinct event_id) from cuda_event where stream_id in
                        (select stream_id from gpu_op where kind = 2 and copy_kind = 1))")" "0|3|1"
expect "stream waits: the waiting stream, the event, and the latest record of it before the wait" \
  "$(q "$db" "select count(*), sum(stream_id >= 0 and event_id >= 0),
                     sum(event_sync_id = (select max(e.event_sync_id) from cuda_event e
                                          where e.event_id = s.event_id and e.correlation < s.correlation))
              from synchronization s where sync_type = 2")" "72|72|72"
expect "the event sync: no stream (not valid for it), its event's latest record, on the compute stream" \
  "$(q "$db" "select count(*), sum(s.stream_id = -1), sum(e.stream_id = (select stream_id from kernel where name = 'train_fwd' limit 1))
              from synchronization s join cuda_event e on e.event_sync_id = s.event_sync_id and e.event_id = s.event_id
              where s.sync_type = 1")" "1|1|1"
expect "stream syncs: their stream, no event" \
  "$(q "$tmp/cu_scalar_read.preload.db" "select count(*), sum(stream_id >= 0 and event_id = -1 and event_sync_id = -1)
                                          from synchronization where sync_type = 3")" "40|40"
trace device_sync preload "$tmp/device_sync.db"
expect "context syncs: neither stream nor event" \
  "$(q "$tmp/device_sync.db" "select count(*) > 0, sum(stream_id = -1 and event_id = -1 and event_sync_id = -1) = count(*)
                              from synchronization where sync_type = 4")" "1|1"

finish
