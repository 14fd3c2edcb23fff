#!/usr/bin/env python3
"""report_html_steps.py BUILD SRC: the HTML page's step chart and its
"Not checked" section, on a real PyTorch profiler trace
(tests/data/traces/hta-nccl-2rank) and variants of it.

The trace has ProfilerStep#4-6 on its main thread and 15 `nccl:all_reduce`
ranges on the backward thread.  The chart once numbered those by
occurrence (1-15) and merged `nccl:all_reduce` #4-6 with the steps: 15
"iterations", three of them spans from a step's start to an all-reduce's
end.  Its steps must be the ProfilerStep ranges, as the trace has them
(iterations, and each one's time to the chart's precision), whatever
number of operator ranges another thread holds (a variant with 2,020
more, as the issue's run had).  The page must list what the text and
JSON reports list under "Not checked" (the JSON's `not_checked`), every
note escaped (a variant whose nccl_version, quoted in a note, is HTML).
"""
import gzip
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # tests/e2e/tap.py: TAP lines for automake's driver

b, s = sys.argv[1], sys.argv[2]
rep = os.path.join(b, "gputrace-report")
src = os.path.join(s, "tests", "data", "traces", "hta-nccl-2rank", "nccl_data.json.gz")
tmp = tempfile.mkdtemp()


def check(what, cond, detail=""):
    return tap.check(cond, what if cond or detail == "" else "%s %s" % (what, detail))


def report(path, *args):
    p = subprocess.run([rep, *args, path], capture_output=True, timeout=300)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def steps_of(trace):
    """ProfilerStep#N: N -> duration in ms, read off the raw trace."""
    out = {}
    for e in trace["traceEvents"]:
        m = re.fullmatch(r"ProfilerStep#(\d+)", str(e.get("name", "")))
        if m and e.get("ph") == "X":
            out[int(m.group(1))] = float(e["dur"]) / 1e3
    return out


def chart(page):
    """The step chart: its iteration labels (the x axis's ticks), the top
    of its scale (ms), its geometry, and each line's points as (x, y)."""
    part = page[page.index('id="step-times"'):]
    part = part[:part.index("</div>")]
    iters = [int(x) for x in re.findall(r'<text class="xt"[^>]*>(\d+)<', part)]
    geo = re.search(r'data-x0="(\d+)" data-y0="(\d+)" data-width="(\d+)" data-height="(\d+)" data-top-ms="([0-9.e+-]+)"',
                    part)
    geo = tuple(float(v) for v in geo.groups()) if geo else None
    lines = [[tuple(float(v) for v in pt.split(",")) for pt in pts.split()]
             for pts in re.findall(r'<polyline[^>]* points="([^"]*)"', part)]
    circles = re.findall(r'<circle cx="([0-9.]+)" cy="([0-9.]+)"', part)
    if not lines and circles:
        lines = [[(float(x), float(y)) for x, y in circles]]
    return iters, geo, lines


def check_steps(name, path, want):
    rc, _, err = report(path, "--html", os.path.join(tmp, name + ".html"))
    check(f"{name}: report with --html exits 0", rc == 0, err)
    page = open(os.path.join(tmp, name + ".html"), encoding="utf-8").read()
    iters, geo, lines = chart(page)
    most = max(want.values())
    lo, hi = min(want), max(want)
    check(f"{name}: the chart's iterations are the ProfilerSteps, {lo}-{hi}, each labelled",
          iters == list(range(lo, hi + 1)), f"got labels {iters}")
    top = geo[4] if geo else None
    check(f"{name}: the scale's top is at or above the longest step, {most:.2f} ms, within a tick",
          top is not None and most <= top + 0.006 and top - most < top / 4 + 0.006, f"got {top}")
    check(f"{name}: one line of {len(want)} points", len(lines) == 1 and len(lines[0]) == len(want),
          f"got {[len(v) for v in lines]}")
    if len(lines) == 1 and len(lines[0]) == len(want) and geo:
        x0, y0, pw, ph, top = geo
        got = {round(lo + (x - x0) / pw * (hi - lo)) if hi > lo else lo: (y0 - y) / ph * top for x, y in lines[0]}
        check(f"{name}: each point is its ProfilerStep's time (within the chart's 0.1 unit)",
              sorted(got) == sorted(want) and all(abs(got[k] - want[k]) <= 0.06 * top / ph * 2 + 0.01
                                                  for k in want),
              f"got {got}, want {want}")
    return page


def check_not_checked(name, path, page):
    rc, out, err = report(path, "--format", "json")
    notes = json.loads(out).get("not_checked", []) if rc == 0 else []
    check(f"{name}: the JSON report has notes to compare with", len(notes) > 0, err)
    check(f"{name}: the page has the Not checked section",
          "<h2>Not checked on these imported traces</h2>" in page and 'id="not-checked"' in page)
    section = page[page.find('id="not-checked"'):]
    rows = re.findall(r"<tr><td><code>(.*?)</code></td><td>(.*?)</td></tr>", section[:section.find("</table>")])
    want = [(n["kind"], n["note"]) for n in notes]
    got = [(html.unescape(k), html.unescape(n)) for k, n in rows]
    check(f"{name}: its rows are the JSON's not_checked, in order, escaped",
          got == want and not any("<" in k + n or ">" in k + n for k, n in rows), f"got {rows}, want {want}")
    rc, out, _ = report(path)
    text = out[out.find("Not checked"):]
    check(f"{name}: the text report lists the same kinds",
          all(f"  {n['kind']}: " in text for n in notes) and len(notes) == len(re.findall(r"^  \S", text, re.M)))


def check_ledger(name, path, page):
    """The page's ledger: a row per rank of the JSON's ledger, its figures
    the JSON's buckets (ms, to the page's 0.01), and the causes table."""
    rc, out, err = report(path, "--format", "json")
    ledger = json.loads(out).get("ledger", []) if rc == 0 else []
    table = page[page.find('id="ledger"'):]
    table = table[:table.find("</table>")]
    heads = re.findall(r"<th>(.*?)</th>", table)[2:]
    rows = re.findall(r"<tr><td>(-?\d+)</td>((?:<td class=n>[\d.]+</td>)+)</tr>", table)
    got = {int(r): [float(x) for x in re.findall(r">([\d.]+)<", cells)] for r, cells in rows}
    want = {l["rank"]: [l["gpu_span_ns"] / 1e6] + [next(b["ns"] for b in l["buckets"] if b["bucket"] == h) / 1e6
                                                   for h in heads] for l in ledger}
    check(f"{name}: the page's ledger is the JSON's, rank by rank", ledger and got.keys() == want.keys() and
          all(abs(a - b) < 0.006 for r in want for a, b in zip(got[r], want[r])), f"got {got}, want {want}")
    check(f"{name}: the page lists the GPU time lost by cause", 'id="causes"' in page and "gpu.idle" in
          page[page.find('id="causes"'):])


trace = json.load(gzip.open(src))
want = steps_of(trace)
check("the trace has ProfilerStep#4-6", sorted(want) == [4, 5, 6], str(want))

# 1. the real trace as it is: 15 nccl:all_reduce ranges on the backward thread
page = check_steps("real", src, want)
check_not_checked("real", src, page)
check_ledger("real", src, page)

# 2. 2,020 more nccl:all_reduce ranges on the backward thread, spread over
#    the run (a few microseconds each), and aten:: ones at the top level of
#    a third thread: none of them an iteration
bwd = next(e for e in trace["traceEvents"] if e.get("name") == "nccl:all_reduce")
t0 = min(float(e["ts"]) for e in trace["traceEvents"] if e.get("ph") == "X")
t1 = max(float(e["ts"]) + float(e.get("dur", 0)) for e in trace["traceEvents"] if e.get("ph") == "X")
more = []
for i in range(2020):
    ts = t0 + (t1 - t0) * i / 2020
    more.append(dict(bwd, ts=ts, dur=3.0, args={}))
    if i % 10 == 0:
        more.append(dict(bwd, name="aten::copy_", tid=bwd["tid"] + 1, ts=ts, dur=2.0, args={}))
variant = dict(trace, traceEvents=trace["traceEvents"] + more)
many = os.path.join(tmp, "many_all_reduce.json.gz")
with gzip.open(many, "wt") as f:
    json.dump(variant, f)
page = check_steps("2020 more all_reduce", many, want)

# 3. a note that quotes the trace: HTML in it is text on the page
odd = dict(trace, distributedInfo=dict(trace["distributedInfo"], nccl_version="<b>2.17</b>&<i>"))
oddp = os.path.join(tmp, "odd.json.gz")
with gzip.open(oddp, "wt") as f:
    json.dump(odd, f)
page = check_steps("html in a note", oddp, want)
check_not_checked("html in a note", oddp, page)
check("html in a note: escaped, never raw", "&lt;b&gt;2.17&lt;/b&gt;&amp;&lt;i&gt;" in page and "<b>2.17" not in page
      and "<i>" not in page)

shutil.rmtree(tmp)
tap.finish()
