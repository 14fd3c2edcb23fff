#!/bin/sh
# report_cli.sh: the rough edges a new user met: --fail-on names every kind
# it found; --kineto DIR/ writes and prints DIR/rank-0.json, not
# DIR//rank-0.json; `gputrace record` of a program that never calls CUDA
# says so at its end, and the report then says why there is no file;
# --help says what TMPDIR is for in plain words; --html writes one page
# that fetches nothing, with its four charts; and the Chrome and Kineto
# traces keep to the rules Perfetto's importer holds them to
# (trace_rules.py), without a browser.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
rep="$b/gputrace-report"

"$b/gputrace" record -o "$tmp/run.db" -- "$b/tests/sim/gpusim-run" -n 4 --timeout 120 "$b/tests/apps/train_demo" \
  > /dev/null 2>&1
if "$rep" --chrome-trace "$tmp/trace.json" --kineto "$tmp/kt" "$tmp/run.db" > /dev/null 2> "$tmp/err" &&
   python3 "$s/tests/e2e/trace_rules.py" "$tmp/trace.json" "$tmp"/kt/rank-*.json > "$tmp/rules" 2>&1; then
  ok "the traces keep Perfetto's rules ($(tail -n 1 "$tmp/rules"))"
else bad "the traces break Perfetto's rules: $(grep -v '^ok' "$tmp/rules" | head -n 8) $(cat "$tmp/err")"; fi
# two ranks' whole-process findings of one kind, timed alike to the
# nanosecond (it happened), are still two findings to the rules: the same
# trace with their costs and messages made the same keeps them
python3 - "$tmp/trace.json" "$tmp/alike.json" > "$tmp/alike" 2>&1 <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
by = {}
for e in t["traceEvents"]:
    a = e.get("args", {})
    if e.get("cat") == "finding" and "charged_piece" in a and "rank" in a:
        by.setdefault(a["kind"], {}).setdefault(a["rank"], []).append(e)
# ranks whose markers carry all of their finding's cost (every piece
# marked): made alike, their pieces sum past either's cost
whole = {k: sorted(r for r, v in rs.items() if sum(e["args"]["cost_ns"] for e in v) == v[0]["args"]["finding_cost_ns"])
         for k, rs in by.items()}
kind = max(whole, key=lambda k: len(whole[k]))
ranks = whole[kind][:2]
assert len(ranks) == 2, whole
first = max((by[kind][r][0]["args"] for r in ranks), key=lambda a: a["finding_cost_ns"])
for r in ranks:
    for e in by[kind][r]:
        e["args"]["finding_cost_ns"], e["args"]["message"] = first["finding_cost_ns"], first["message"]
json.dump(t, open(sys.argv[2], "w"))
print(kind, ranks)
PY
if python3 "$s/tests/e2e/trace_rules.py" "$tmp/alike.json" "$tmp"/kt/rank-*.json > "$tmp/rules" 2>&1; then
  ok "two ranks' findings alike to the nanosecond ($(cat "$tmp/alike")): still two to the rules"
else bad "two ranks' findings alike ($(cat "$tmp/alike")): $(grep -v '^ok' "$tmp/rules" | head -n 4)"; fi
"$rep" --fail-on sync.scalar_read,comm.exposed "$tmp/run.db" > /dev/null 2> "$tmp/err"; rc=$?
expect "--fail-on: exit 3 when a kind is found" "$rc" 3
expect "--fail-on: one line naming both kinds found" "$(cat "$tmp/err")" \
  "gputrace-report: found sync.scalar_read, comm.exposed (--fail-on)"
"$rep" --fail-on gpu.idle,comm.mismatch,sync.scalar_read "$tmp/run.db" > /dev/null 2> "$tmp/err"
# which of those the run has depends on its timing (gpu.idle on a slow
# machine): the report's own JSON says which it found
found=$("$rep" --format json "$tmp/run.db" | python3 -c 'import json, sys
ask = {"gpu.idle", "comm.mismatch", "sync.scalar_read"}
print(",".join(sorted({f["kind"] for f in json.load(sys.stdin)["findings"] if not f.get("below_min_cost")} & ask)))')
expect "--fail-on: one line naming only the kinds found, of those asked for ($found)" \
  "$(wc -l < "$tmp/err" | tr -d ' '):$(sed -n 's/^gputrace-report: found \(.*\) (--fail-on)$/\1/p' "$tmp/err" | tr -d ' ' | tr ',' '\n' | sort | paste -sd, -)" \
  "1:$found"

mkdir -p "$tmp/k"
( cd "$tmp" && "$rep" --kineto k/ run.db ) > "$tmp/out" 2>&1
if grep -q "k//" "$tmp/out"; then bad "--kineto k/: a doubled slash ($(grep 'k//' "$tmp/out"))"
else ok "--kineto k/: no doubled slash in what it prints"; fi
if grep -q "Kineto traces: 4 in k/ " "$tmp/out" && [ -f "$tmp/k/rank-0.json" ]; then ok "--kineto k/: k/rank-0.json written and named"
else bad "--kineto k/: $(cat "$tmp/out" | tail -n 2)"; fi

"$b/gputrace" record -o "$tmp/none.db" -- true > "$tmp/out" 2> "$tmp/err"; rc=$?
expect "record -- true: the command's exit status" "$rc" 0
if grep -q "nothing was written to $tmp/none.db: no process of true called CUDA or NCCL" "$tmp/err"; then
  ok "record -- true: says nothing was written, and why"
else bad "record -- true: stderr '$(cat "$tmp/err")'"; fi
"$b/gputrace" record -o "$tmp/none2.db" -- sh -c 'exit 5' > /dev/null 2>&1; rc=$?
expect "record of a program without CUDA: its exit status kept" "$rc" 5
"$rep" "$tmp/none.db" > /dev/null 2> "$tmp/err"; rc=$?
expect "report of what record -- true left: exit 1" "$rc" 1
if grep -q "no such file or run directory (gputrace record makes it at the first CUDA or NCCL call" "$tmp/err"; then
  ok "report of a missing run: says why there is no file"
else bad "report of a missing run: '$(cat "$tmp/err")'"; fi
"$b/gputrace" record -o "$tmp/some.db" -- "$b/tests/sim/gpusim-run" -n 1 "$b/tests/apps/scalar_read" > /dev/null 2> "$tmp/err"
if grep -q "nothing was written" "$tmp/err"; then bad "record of a CUDA program: no 'nothing was written' ($(cat "$tmp/err"))"
else ok "record of a CUDA program: silent about its files"; fi

"$rep" --help > "$tmp/help"
if grep -q "collectives wait" "$tmp/help"; then bad "--help: TMPDIR still 'where every rank's collectives wait'"
else ok "--help: TMPDIR in plain words"; fi
grep -q "TMPDIR: a folder for a scratch file" "$tmp/help" && ok "--help: TMPDIR is a folder for a scratch file" \
  || bad "--help: TMPDIR line missing"

"$rep" --html "$tmp/report.html" "$tmp/run.db" > "$tmp/out" 2>&1; rc=$?
expect "--html: exit 0" "$rc" 0
grep -q "^HTML report: $tmp/report.html" "$tmp/out" && ok "--html: says where the page is" || bad "--html: $(tail -n 3 "$tmp/out")"
for id in rank-summary step-times lateness; do
  grep -q "<div id=\"$id\"><svg" "$tmp/report.html" && ok "--html: chart $id drawn" || bad "--html: no chart $id"
done
grep -q '<div id="findings">.*<div class="finding"[^>]*>.*<svg class="cost"' "$tmp/report.html" && ok "--html: findings with cost bars" \
  || bad "--html: no findings with cost bars"
if grep -qi "<script\|src=\|href=\"http\|@import\|url(" "$tmp/report.html"; then bad "--html: the page fetches or runs something"
else ok "--html: no script, nothing fetched"; fi
# a card per problem, as the text lists them (the same kind at the same
# call site on several ranks: one card)
expect "--html: each finding listed (those --min-cost shows), a card per group as in the text" \
  "$(grep -o 'class="finding"' "$tmp/report.html" | wc -l)" \
  "$("$rep" "$tmp/run.db" | sed -n 's/^findings (\([0-9]*\)).*/\1/p')"
# names from the file are text, never markup: NVTX labels and call sites
# made of HTML still make a page with no script and no element of theirs
"$b/gputrace" merge "$tmp/one.db" "$tmp/run.db" > /dev/null 2>&1
sqlite3 "$tmp/one.db" "update label set value = '<script>alert(1)</script><img src=x>' || value;
  update callsite set frames = replace(frames, 'app_train', '<b onclick=x>app_train</b>')"
"$rep" --html "$tmp/hostile.html" "$tmp/one.db" > /dev/null 2>&1; rc=$?
expect "--html of hostile names: exit 0" "$rc" 0
if grep -qi "<script\|<img\|<b onclick" "$tmp/hostile.html"; then bad "--html: markup from the file got into the page"
else ok "--html: names from the file escaped"; fi
grep -q "&lt;script&gt;alert(1)&lt;/script&gt;" "$tmp/hostile.html" && ok "--html: hostile NVTX names shown as text" \
  || bad "--html: the hostile NVTX names are not shown ($(grep -o 'in <code>[^<]*' "$tmp/hostile.html" | head -n 2))"
"$b/gputrace" record -o "$tmp/plain.db" -- "$b/tests/sim/gpusim-run" -n 1 "$b/tests/apps/scalar_read" > /dev/null 2>&1
"$rep" --html "$tmp/plain.html" "$tmp/plain.db" > /dev/null 2>&1; rc=$?
expect "--html of one rank, no collective: exit 0" "$rc" 0
grep -q "No collective that two ranks or more took part in" "$tmp/plain.html" \
  && ok "--html: says what it cannot chart" || bad "--html: no word on the missing heatmap"
"$rep" --html "$tmp/run.db/$(ls "$tmp/run.db" | head -n 1)" "$tmp/run.db" > /dev/null 2> "$tmp/err"; rc=$?
expect "--html over an input database: refused (exit 2)" "$rc" 2
# every option --help lists (viewer/report_cli.c's table) is documented
undocumented=""
for o in $("$rep" --help | sed -n 's/^  \(-[a-z], \)\{0,1\}\(--[a-z-]*\).*/\2/p'); do
  grep -q -- "$o" "$s/docs/report.md" "$s/README.md" || undocumented="$undocumented $o"
done
expect "every option of --help is in docs/report.md or README.md" "$undocumented" ""
expect "--help lists the options" "$("$rep" --help | grep -c '^  -')" 24
finish
