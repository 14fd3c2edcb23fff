#!/usr/bin/env python3
"""report_html_page.py BUILD SRC: the HTML page as a new user reads it
(issue 39), on the demo's saved recording (tests/data/golden/sim-train_demo,
fixed: nothing here depends on the machine's load).

- Findings: a card per problem, as the text report lists them: the same
  kind at the same call site on several ranks is one card naming the
  ranks (four identical comm.exposed cards once), as many cards as the
  text's "findings (N)".
- Cost bars: each a share of the wall time the cost lay in (its rank's,
  or the ranks' summed), said in words beside it, so that a 1% finding
  shows a 1% bar; once the largest finding filled its bar whatever its
  share.
- The step chart: y-axis ticks with grid lines, both axis titles, an
  x label for more than the first and last iteration.
- The lateness heatmap: a colour scale, from 0 ms to the latest arrival.
- "Fix first" at the top: the first three cards, a line each (kind,
  where, cost, fix), each a link to its card.
- The tables the text report has: collectives, kernels, phases, each row
  the JSON's.
- Each card of a finding with a call site names it.
- Each card says where the finding is in the Chrome trace: the marker to
  search for, the rank whose track it is on and its first one's time, as
  the trace written from the same recording has them.
"""
import html
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # tests/e2e/tap.py: TAP lines for automake's driver

b, s = sys.argv[1], sys.argv[2]
rep = os.path.join(b, "gputrace-report")
tmp = tempfile.mkdtemp()
db = os.path.join(tmp, "run.db")
with open(os.path.join(s, "tests", "data", "golden", "sim-train_demo", "input.sql")) as f:
    subprocess.run(["sqlite3", db], stdin=f, check=True)


def check(what, cond, detail=""):
    return tap.check(cond, what if cond or detail == "" else "%s %s" % (what, detail))


def ranks_of(text):
    """"0,2-3" -> [0, 2, 3]"""
    out = []
    for part in text.split(","):
        a, _, z = part.partition("-")
        out += list(range(int(a), int(z or a) + 1))
    return out


page_path = os.path.join(tmp, "r.html")
text = subprocess.run([rep, "--html", page_path, db], capture_output=True, text=True).stdout
d = json.loads(subprocess.run([rep, "--format", "json", db], capture_output=True, text=True).stdout)
page = open(page_path, encoding="utf-8").read()
wall = {r["rank"]: r["wall_ns"] / 1e6 for r in d["ranks"]}

# 1. a card per group
cards = re.findall(r'<div class="finding" id="finding-\d+">(.*?)</div><div class="fix">', page)
groups = int(re.search(r"^findings \((\d+)\)", text, re.M).group(1))
check(f"as many cards as the text's findings ({groups})", len(cards) == groups, f"got {len(cards)}")
keys = []
for c in cards:
    kind = re.search(r'class="kind">([^<]*)<', c).group(1)
    at = re.search(r"<div>at <code>(.*?)</code>(?: in <code>(.*?)</code>)?", c)
    keys.append((kind, at.group(1) if at else "", at.group(2) if at else ""))
check("no two cards for one kind at one call site in one range", len(set(keys)) == len(keys), str(keys))
exposed = {}
for f in d["findings"]:
    if f["kind"] == "comm.exposed" and f["callsite"].startswith("app_train") and not f.get("below_min_cost"):
        exposed.setdefault(f["callsite"], []).append(f["rank"])
site, want = next(iter(exposed.items())) if exposed else ("", [])
card = next((c for c in cards if 'comm.exposed</span>' in c and site.replace("[", "") in c.replace("[", "")), "")
named = re.search(r"on ranks? ([\d,-]+)</h3>", card)
check(f"comm.exposed at {site}: one card naming ranks {sorted(want)}", len(want) > 1 and named is not None and
      ranks_of(named.group(1)) == sorted(want), f"got {named.group(1) if named else card[:200]}")

# 2. bars against the wall time
first = True
for c in cards:
    width = float(re.search(r'<svg class="cost".*?width="([\d.]+)" height="12" fill="#d62728"', c).group(1))
    cost = float(re.search(r"<b>([\d.]+) ms</b>", c).group(1))
    share = re.search(r'<span class="share">([\d.]+)% of (?:rank (\d+)\'s wall time|the wall time of ranks ([\d,-]+),'
                      r' summed)</span>', c)
    if not share:
        check("each card says what its bar is a share of", False, c[:300])
        continue
    ranks = [int(share.group(2))] if share.group(2) else ranks_of(share.group(3))
    whole = sum(wall[r] for r in ranks)
    pct = 100 * cost / whole
    kind = re.search(r'class="kind">([^<]*)<', c).group(1)
    check(f"{kind}: its share, {share.group(1)}%, is its cost over its ranks' wall time ({pct:.1f}%)",
          abs(float(share.group(1)) - pct) < 0.1)
    check(f"{kind}: its bar is that share of its width ({width / 2:.1f}%)",
          abs(width / 2 - min(pct, 100)) < 0.1 or (pct < 0.5 and width == 1.0))
    if first:
        check("the first finding's bar is not full (it is not 100% of its ranks' time)", width < 200 and pct < 99)
        first = False

# 3. the step chart's axes
chart = page[page.index('id="step-times"'):]
chart = chart[:chart.index("</svg>")]
yt = re.findall(r'<text class="yt"[^>]*>([\d.]+)<', chart)
check("the step chart's y axis has 4 ticks or more, from 0", len(yt) >= 4 and float(yt[0]) == 0, str(yt))
check("each tick above 0 has a grid line", chart.count('class="grid"') == len(yt) - 1)
check("the axes have titles", ">iteration</text>" in chart and ">step time (ms)</text>" in chart)
xt = [int(x) for x in re.findall(r'<text class="xt"[^>]*>(\d+)<', chart)]
n = len(re.findall(r'points="([^"]*)"', chart)[0].split())
check(f"the x axis labels each of its {n} iterations (up to 10), else 5 or more, its ends among them",
      xt == list(range(1, n + 1)) if n <= 10 else len(xt) >= 5 and xt[0] == 1 and xt[-1] == n, str(xt))

# 4. the heatmap's colour scale
heat = page[page.index('id="lateness"'):]
heat = heat[:heat.index("</svg>")]
late = [float(x) for x in re.findall(r": ([\d.]+) ms after the first rank</title>", heat)]
scale = re.search(r'<g class="scale">.*?>0 ms<.*?<g class="ramp">((?:<rect [^>]*/>)+)</g>.*?>([\d.]+) ms<', heat)
ramp = re.findall(r'fill="rgb\((\d+),(\d+),(\d+)\)"', scale.group(1)) if scale else []
check("the heatmap has a colour scale from 0 ms to its latest arrival, white to dark red",
      len(ramp) >= 10 and ramp[0] == ("255", "245", "240") and ramp[-1] == ("180", "30", "30") and late
      and abs(float(scale.group(2)) - max(late)) < 0.01,
      f"{scale.group(2) if scale else None} vs {max(late) if late else None}")
check("the cells' colours are the scale's: the latest arrival's the darkest",
      'fill="rgb(180,30,30)"><title>' in heat)
check("and says what a blank cell is", "not in that collective" in heat)

# 5. what if it were fixed: the replay's table, each finding's prediction,
# the critical path, as the JSON has them
js = json.loads(subprocess.run([rep, "--format", "json", db], capture_output=True, text=True, check=True).stdout)
wi = page[page.index('id="whatif"'):] if 'id="whatif"' in page else ""
rows = re.findall(r"<tr><td>(-?\d+)</td><td>(\d+)</td><td>([\d.]+)</td><td>([\d.]+)</td>", wi[:wi.find("</table>")])
check("the what-if table has a row per rank replayed, its figures the JSON's",
      len(rows) == len(js["whatif"]) > 0 and all(
          (int(r[0]), float(r[2]), float(r[3])) == (w["rank"], round(w["step_ms_measured"], 2), round(w["step_ms_replayed"], 2))
          for r, w in zip(rows, js["whatif"])), str(rows[:2]))
rough = [w for w in js["whatif"] if not w["reliable"]]
said = {int(r): html.unescape(why) for r, why in re.findall(r"<p class=\"sub\">Rank (-?\d+)'s replay is rough: (.*?)\.</p>", page)}
check("each rank whose replay is rough says why, as the JSON's rough_why",
      len(rough) > 0 and said == {w["rank"]: w["rough_why"] for w in rough}, str(said)[:200])
gains = re.findall(r'<div class="gain"><b>if fixed:</b> a step ([\d.]+) ms -&gt; ([\d.]+) ms', page)
check("each card of a predicted finding says the step it would give", len(gains) >= 1, str(gains))
path = js["whatif"] and [w for w in js["whatif"] if w["rank"] == js["whatif_job"]["reference_rank"]][0]
parts = re.findall(r'<rect x="[\d.]+" y="0" width="([\d.]+)" height="40" fill="[^"]*"><title>', page)
check("the critical path: a bar of its parts, the JSON's, that fills it",
      path and len(parts) == len(path["critical_path"]["parts"]) and abs(sum(float(w) for w in parts) - 1000) < 2,
      f"{len(parts)} parts, {sum(float(w) for w in parts):.1f} of 1000")
# 6. "fix first": the first three cards, each linked, before the charts
top = page[page.index('id="fix-first"'):] if 'id="fix-first"' in page else ""
top = top[:top.find("</ol>")]
items = re.findall(r'<li><a href="#finding-(\d+)"><span class="kind">([^<]*)</span></a>(.*?)</li>', top)
check("fix first: the first three cards, in order, each a link to its card's anchor",
      [int(i[0]) for i in items] == [1, 2, 3] and all(f'id="finding-{i[0]}"' in page for i in items), str(items)[:300])
check("fix first: above the charts", 0 < page.find('id="fix-first"') < page.find('id="rank-summary"'))
for n, kind, rest in items:
    c = cards[int(n) - 1]
    ckind = re.search(r'class="kind">([^<]*)<', c).group(1)
    ccost = re.search(r"<b>([\d.]+) ms</b>", c).group(1)
    where = re.search(r"<div>at <code>(.*?)</code>", c)
    said = re.search(r"<b>([\d.]+) ms</b>", rest)
    check(f"fix first {n}: its card's kind ({ckind}), cost ({ccost} ms), a place and a fix",
          kind == ckind and said and said.group(1) == ccost and re.search(r" (at|in) <code>", rest)
          and "<b>fix:</b> " in rest, rest[:200])

# 7. the text report's tables, each row the JSON's
def rows(tid):
    at = page.find(f'<table id="{tid}">')
    if at < 0:
        return None
    body = page[at:page.index("</table>", at)]
    return [re.findall(r"<td[^>]*>(?:<code>)?(.*?)(?:</code>)?</td>", r) for r in re.findall(r"<tr><td.*?</tr>", body)]


got = rows("collectives")
check("a collectives table, a row per JSON collective (op, bytes, count, total ms)",
      got is not None and [(r[0], int(r[1]), int(r[2]), float(r[3])) for r in got] ==
      [(c["op"], c["bytes"], c["count"], round(c["total_ns"] / 1e6, 2)) for c in d["collectives"]], str(got)[:300])
got = rows("kernels")
check("a kernels table, the JSON's first 10 (name, count, total ms)",
      got is not None and len(d["kernels"]) > 1 and [(r[0], int(r[1]), float(r[2])) for r in got] ==
      [(k["name"], k["count"], round(k["total_ns"] / 1e6, 2)) for k in d["kernels"][:10]], str(got)[:300])
got = rows("phases")
check("a phases table, the JSON's phases (rank, name, count, wall ms), six at most per rank",
      got is not None and len(d["phases"]) > 1 and [(int(r[0]), r[1], int(r[2]), float(r[3])) for r in got] ==
      [(p["rank"], p["name"], p["count"], round(p["wall_ns"] / 1e6, 1)) for p in d["phases"]
       if sum(1 for q in d["phases"][:d["phases"].index(p)] if q["rank"] == p["rank"]) < 6], str(got)[:300])

# 8. each card of a finding with a call site names it (the JSON's)
sites = {f["callsite"] for f in d["findings"] if not f.get("below_min_cost")}
named = [re.search(r"<div>at <code>(.*?)</code>", c) for c in cards]
check("each card names its call site, one of the JSON's", all(a and a.group(1) in sites for a in named),
      str([a.group(1) if a else None for a in named]))
# 9. each card's place in the Chrome trace: a marker of that name on that rank at that time
trace = os.path.join(tmp, "t.json")
subprocess.run([rep, "--chrome-trace", trace, db], capture_output=True, check=True)
ev = json.load(open(trace))["traceEvents"]
marks = {(e["name"], e["args"].get("rank"), round(e["ts"] / 1e3, 3)) for e in ev if e.get("cat") == "finding"}
whole = re.findall(r'<div class="finding" id="finding-\d+">.*?(?=<div class="finding"|<h2|$)', page, re.S)
first = {}
for e in ev:
    if e.get("cat") == "finding" and e["ph"] == "i":
        k = (e["name"], e["pid"])
        first[k] = min(first.get(k, e["ts"]), e["ts"])
pids = {e["pid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "process_name"}
rank_of = {pid: int(re.match(r"rank (\d+)", n).group(1)) for pid, n in pids.items() if re.match(r"rank \d+", n)}
at = {(k[0], rank_of.get(k[1])): round(t / 1e3, 3) for k, t in first.items()}
places = [re.search(r'class="where">.*?search <code>([^<]*)</code>; its (?:first marker is on rank (\d+)\'s track at'
                    r' ([\d.]+) ms|markers are on rank (\d+)\'s streams)', c) for c in whole]
good = [p and (at.get((p.group(1), int(p.group(2)))) == float(p.group(3)) if p.group(2) else
               (p.group(1), int(p.group(4))) in at) for p in places]
check("each card names its marker in the Chrome trace: the earliest of that name on that rank is at that time",
      len(whole) == len(cards) and all(good), str([p.groups() if p else None for p in places])[:300])
# 10. a process that drives several GPUs (sim-model_parallel): a finding whose GPU time, each GPU's
# counted, is not the process time its header shows says so, in the text and on the card, the
# figure the JSON's waste_ns (what orders the findings)
mp = os.path.join(tmp, "mp.db")
with open(os.path.join(s, "tests", "data", "golden", "sim-model_parallel", "input.sql")) as f:
    subprocess.run(["sqlite3", mp], stdin=f, check=True)
mp_page = os.path.join(tmp, "mp.html")
mp_text = subprocess.run([rep, "--html", mp_page, mp], capture_output=True, text=True).stdout
mp_json = json.loads(subprocess.run([rep, "--format", "json", mp], capture_output=True, text=True).stdout)
mp_html = open(mp_page).read()
apart = [f for f in mp_json["findings"] if not f.get("below_min_cost") and
         round(f["cost_ns"] / 1e6, 2) != round(f["waste_ns"] / 1e6, 2)]
said = ["%.2f ms of GPU time over its 2 GPUs" % (f["waste_ns"] / 1e6) for f in apart]
check("a finding of two GPUs whose GPU time is not its process time says both (text)",
      len(apart) > 0 and all(w in " ".join(mp_text.split()) for w in said), str(said))
check("... and on its card", len(apart) > 0 and all(w in mp_html for w in said), str(said))
agree = [f for f in mp_json["findings"] if not f.get("below_min_cost") and f not in apart]
check("a finding whose two agree says it once", len(agree) > 0 and
      mp_text.count("of GPU time over its") == len(apart) and mp_html.count("of GPU time over its") == len(apart))
tap.finish()
