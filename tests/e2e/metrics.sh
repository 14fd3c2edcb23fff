#!/bin/sh
# metrics.sh: monitor mode's metrics with the real components: each
# process's RUN/metrics/<host>-<pid>.prom passes `promtool check metrics`,
# `gputrace metrics RUN` merges them into one valid exposition, and a real
# Prometheus scraping node_exporter's textfile collector on that folder and
# `gputrace metrics --listen` answers PromQL with what was planted: the
# steps of 4 ranks, the scalar read's blocked seconds, the straggler as the
# rank that blocks least (the others wait for it), and for a planted hang
# the in-flight gauge past GPUTRACE_HANG_S.  The alert rules of
# docs/prometheus-alerts.yml pass `promtool check rules`.  Needs Debian's
# prometheus and prometheus-node-exporter (.ci/run installs them).
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
. "${top_srcdir:-.}/tests/e2e/monitorlib.sh"
export GPUTRACE_METRICS_MS=300
for tool in promtool prometheus prometheus-node-exporter; do
  command -v "$tool" > /dev/null 2>&1 || skip_all "$tool is not installed (apt-get install prometheus prometheus-node-exporter)"
done
nprom() { ls "$1"/metrics/*.prom 2>/dev/null | wc -l | tr -d ' '; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# query PROMQL: the result of an instant query, as "labels=value" lines
query() {
  python3 - "$pport" "$1" <<'EOF'
import json, sys, urllib.parse, urllib.request
port, q = sys.argv[1], sys.argv[2]
url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": q})
try:
    d = json.load(urllib.request.urlopen(url, timeout=5))
except Exception as e:
    print(f"error {e}")
    sys.exit(0)
for r in d.get("data", {}).get("result", []):
    m = r["metric"]
    print(f'{m.get("job", "")}|{m.get("rank", "")}|{r["value"][1]}')
EOF
}
# until QUERY gives N lines or more (up to 30 s)
await() {
  k=0
  while [ $k -lt 150 ]; do
    [ "$(query "$1" | grep -vc '^error')" -ge "$2" ] && return 0
    sleep 0.2; k=$((k + 1))
  done
  return 1
}

r="$tmp/run"
APP_STEPS=100000 GPUTRACE_OUTPUT="$r" LD_PRELOAD="$lib" "$run" -n 4 --timeout 90 "$b/tests/apps/train_demo" \
  > "$tmp/app.out" 2>&1 &
app=$!
k=0; while [ $k -lt 150 ] && [ "$(nprom "$r")" -lt 4 ]; do sleep 0.2; k=$((k + 1)); done
sleep 1
expect "each of the 4 ranks writes its metrics file" "$(nprom "$r")" 4
bad_files=0
for f in "$r"/metrics/*.prom; do promtool check metrics < "$f" > "$tmp/lint" 2>&1 || { bad_files=$((bad_files + 1)); note "$(cat "$tmp/lint")"; }; done
expect "every metrics file passes promtool check metrics" "$bad_files" 0
# the Python client's parser (the one Python exporters and tests use),
# from PyPI into a venv kept in the build folder
venv=${GPUTRACE_PROM_VENV:-$b/prom-venv}
if ! "$venv/bin/python" -c 'import prometheus_client' 2>/dev/null; then
  python3 -m venv "$venv" > /dev/null 2>&1 &&
    "$venv/bin/pip" install -q --disable-pip-version-check "prometheus_client==0.21.1" > "$tmp/pip.log" 2>&1
fi
if "$venv/bin/python" -c 'import prometheus_client' 2>/dev/null; then
  parsed=$("$venv/bin/python" - "$r"/metrics/*.prom <<'EOF'
import sys
from prometheus_client.parser import text_string_to_metric_families
bad = 0
for path in sys.argv[1:]:
    try:
        fams = {f.name: f.type for f in text_string_to_metric_families(open(path).read())}
        ok = fams.get("gputrace_step_seconds") == "histogram" and fams.get("gputrace_gpu_seconds") == "counter" \
            and fams.get("gputrace_collective_gpu_seconds") == "histogram"
        bad += not ok
    except Exception as e:
        print(path, e, file=sys.stderr)
        bad += 1
print(bad)
EOF
)
  expect "every metrics file parses with prometheus_client, its histograms and counters typed" "$parsed" 0
else
  skip "every metrics file parses with prometheus_client" "prometheus_client could not be installed: $(tail -1 "$tmp/pip.log" 2>/dev/null)"
fi
"$b/gputrace" metrics "$r" > "$tmp/all.prom" 2> "$tmp/err"
expect "gputrace metrics RUN: exit 0" "$?" 0
promtool check metrics < "$tmp/all.prom" > "$tmp/lint" 2>&1
expect "... one exposition that passes promtool check metrics" "$?" 0
expect "... with every rank's steps" "$(grep -c '^gputrace_steps_total{' "$tmp/all.prom")" 4
expect "... each metric described once" "$(grep -c '^# TYPE gputrace_steps_total ' "$tmp/all.prom")" 1

# node_exporter's textfile collector on the metrics folder, gputrace
# metrics --listen, and Prometheus scraping both every second
nport=$(free_port) gport=$(free_port) pport=$(free_port)
prometheus-node-exporter --collector.disable-defaults --collector.textfile \
  --collector.textfile.directory="$r/metrics" --web.listen-address="127.0.0.1:$nport" > "$tmp/node.log" 2>&1 &
node=$!
"$b/gputrace" metrics "$r" --listen "127.0.0.1:$gport" > "$tmp/serve.log" 2>&1 &
serve=$!
docs=$(cd "$s/docs" && pwd)
cat > "$tmp/prom.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: ["$docs/prometheus-recording.yml", "$docs/prometheus-alerts.yml"]
scrape_configs:
  - job_name: node
    static_configs: [{targets: ["127.0.0.1:$nport"]}]
  - job_name: gputrace
    static_configs: [{targets: ["127.0.0.1:$gport"]}]
EOF
prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/tsdb" \
  --web.listen-address="127.0.0.1:$pport" > "$tmp/prom.log" 2>&1 &
prom=$!
await 'gputrace_steps_total' 8; got=$?
expect "Prometheus has every rank's steps through node_exporter and gputrace metrics --listen" \
  "$got:$(query 'count by (job) (gputrace_steps_total)' | sort | tr '\n' ';')" "0:gputrace||4;node||4;"
await 'gputrace_steps_total{job="node"} > 20' 4
expect "the steps counted go up as the job runs" "$?" 0
# the straggler's lead is 15 ms a step: at 20 steps, 0.3 s, which one
# hold-up of another rank on a loaded machine can outweigh; at 60, 0.9 s
await 'gputrace_steps_total{job="node"} > 60' 4
sched=$(query 'sum by (rank) (gputrace_host_blocked_seconds_total{job="node",api="cudaStreamSynchronize"}) > 0' | wc -l | tr -d ' ')
expect "the scalar read's sync blocked seconds on every rank" "$sched" 4
# per step, and past the communicator's start: the files are written each
# at its own moment (ranks a step or two apart at the scrape, ~140 ms a
# step under the sanitizers), and a rank that a loaded machine started
# late waits least in ncclCommInitRank; either outweighed the straggler's
# 15 ms a step at 20 steps (rank 2 named, 1 run in 8 beside 12 busy loops)
least=$(query 'bottomk(1, sum by (rank) (gputrace_host_blocked_seconds_total{job="node",api!="ncclCommInitRank"})
  / on (rank) sum by (rank) (gputrace_steps_total{job="node"}))' | cut -d'|' -f2)
expect "the straggler (rank 1) is the rank that blocks least, per step: the others wait for it" "$least" 1
# what needs the GPU's records, and every rank's series (the recording
# rules): the straggler arrives last at its all-reduces, and its GPU waits
# for its host (the planted host work) the most
# The rule's first values are rates over two or three scrapes: a rank whose
# host a loaded machine held up for a second tops them (a sanitizer run had
# rank 3 first); the check waits for eight evaluations, eight seconds of
# samples, in which the planted straggler's host work dominates
await 'gputrace:collective_late_seconds:rate1m{job="node"} > 0' 1
await 'count_over_time(gputrace:collective_late_seconds:rate1m{job="node"}[1m]) >= 8' 1
expect "... the rule evaluated eight times" "$?" 0
late=$(query 'max by (rank) (gputrace:collective_late_seconds:rate1m{job="node"})' | sort -t'|' -k3 -g -r)
expect "late arrivals (recording rule): the straggler, rank 1, arrives latest" \
  "$(echo "$late" | head -1 | cut -d'|' -f2)" 1
# the same since the start (the counters, not a minute's rates)
late=$(query 'max by (comm, op) (gputrace_collective_gpu_seconds_sum{job="node"})
  - on (comm, op) group_right gputrace_collective_gpu_seconds_sum{job="node"}' | sort -t'|' -k3 -g -r)
expect "... and since the start, 5 times later than any other rank" \
  "$(echo "$late" | awk -F'|' 'NR == 1 { top = $3; who = $2 } NR == 2 { print who, (top > 5 * $3) }')" "1 1"
# since the start, as the late arrivals: a rate over the few samples of a
# short run once named rank 3, whose host a loaded machine had held up
busy=$(query 'topk(1, sum by (rank) (gputrace_gpu_seconds_total{job="node",state="idle.host_busy"}))' | cut -d'|' -f2)
expect "GPU idle while the host is busy elsewhere: most on the straggler" "$busy" 1
# each rank's shares of its GPU time add up to 1 once its counters have
# moved between two scrapes: until then its rates are 0 and the ratio NaN
# (a sanitizer run on a loaded machine once had a rank whose file had not
# changed yet), so the check waits for the data, not for a time
await '(sum by (rank) (gputrace:gpu_state_ratio:rate5m{job="node"}) > 0.99) < 1.01' 4
sum=$(query 'sum by (rank) (gputrace:gpu_state_ratio:rate5m{job="node"})' | awk -F'|' '$3 > 0.99 && $3 < 1.01' | wc -l)
expect "the GPU states add up to the time on every rank" "$(echo $sum)" 4
bw=$(query 'gputrace:collective_busbw_bytes_per_second:rate1m{job="node"} > 0' | wc -l)
expect "the all-reduce's bus bandwidth (recording rule)" "$(echo $bw)" 1
shares=$(query 'sum by (rank) (gputrace_last_step_gpu_ratio{job="node"})' | awk -F'|' '$3 > 0.99 && $3 < 1.01' | wc -l)
expect "the last step's GPU shares add up to 1 on every rank" "$(echo $shares)" 4
# every panel of the example dashboard answers on this job
panels=$(python3 - "$pport" "$s/docs/grafana-dashboard.json" <<'EOF'
import json, sys, urllib.parse, urllib.request
port, path = sys.argv[1], sys.argv[2]
empty = []
for p in json.load(open(path))["panels"]:
    for t in p["targets"]:
        q = t["expr"].replace('"$run"', '".+"')
        url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": q})
        try:
            d = json.load(urllib.request.urlopen(url, timeout=5))
            ok = d.get("status") == "success" and d["data"]["result"]
        except Exception:
            ok = False
        if not ok:
            empty.append(p["title"])
print("; ".join(empty) or "all")
EOF
)
expect "every panel of docs/grafana-dashboard.json has data" "$panels" all
expect "no window written" "$(query 'sum(gputrace_windows_total{job="node"})' | cut -d'|' -f3)" 0
kill -TERM "$app" 2>/dev/null; wait "$app" 2>/dev/null

# a planted hang: the in-flight gauge past GPUTRACE_HANG_S on the waiting
# ranks (the metrics folder of another run, read by the same exporters)
h="$tmp/hang"
GPUTRACE_HANG_S=2 GPUTRACE_OUTPUT="$h" LD_PRELOAD="$lib" "$run" -n 4 --timeout 90 "$b/tests/apps/hang" \
  > "$tmp/app.out" 2>&1 &
app=$!
k=0; while [ $k -lt 150 ] && [ "$(nprom "$h")" -lt 4 ]; do sleep 0.2; k=$((k + 1)); done
kill -TERM "$serve" 2>/dev/null; wait "$serve" 2>/dev/null
"$b/gputrace" metrics "$h" --listen "127.0.0.1:$gport" > "$tmp/serve.log" 2>&1 &
serve=$!
await 'gputrace_inflight_seconds{job="gputrace"} > 2' 3
expect "a hang: the in-flight gauge past GPUTRACE_HANG_S on the 3 waiting ranks" "$?" 0
await 'gputrace_windows_total{job="gputrace",reason="hang"} > 0' 4
expect "a hang: every rank counts the window it wrote" "$?" 0
kill -TERM "$app" "$serve" "$prom" "$node" 2>/dev/null
wait "$app" "$serve" "$prom" "$node" 2>/dev/null
expect "a process's metrics file goes when it ends" "$(nprom "$h")" 0

promtool check rules "$s/docs/prometheus-alerts.yml" "$s/docs/prometheus-recording.yml" > "$tmp/rules" 2>&1
expect "docs/prometheus-alerts.yml and prometheus-recording.yml pass promtool check rules" "$?" 0
finish
