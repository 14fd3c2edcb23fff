#!/usr/bin/env python3
"""browser.py: what a user sees in a browser, checked in one.

The demo (tests/apps/train_demo: 4 simulated ranks with planted problems)
is traced, and gputrace-report writes its Chrome trace, its Kineto traces
and its HTML report.  Then, in headless Chromium:

- the Chrome trace and each rank's Kineto trace, each opened in the Perfetto
  UI (served offline by vizviewer): the info page must show no "Import
  errors" and no "Data losses" table, the trace processor's stats table no
  error nor data loss; every slice and every flow link of the file must be
  in the trace processor (none dropped in silence); the ranks in rank
  order (process_sort_index, which the UI reads from v53; the pinned v52
  does not: there the file's indexes, and no filler markers); a track per
  GPU stream named "GPU g stream s (roles)" by what ran on it (Kineto:
  "stream s") on the stream's own id, none for a stream that ran nothing;
  each finding marked at its occurrences, not once at the process's start,
  on its process's track (no flow bound to a marker);
  comm.straggler's markers on the straggler's track (where a search for it
  lands);
- the HTML report (file://, every request to the network refused): no
  console error, and each chart drawn (its SVG elements on screen, and
  pixels other than the background in its screenshot).

Usage: browser.py BUILD_DIR CHROMIUM VIZVIEWER"""
import json, os, socket, subprocess, sys, tempfile, time

from tap import check, diag, finish  # tests/e2e/tap.py

from playwright.sync_api import sync_playwright

build, chromium, vizviewer = sys.argv[1:4]




def run(cmd, **kw):
    r = subprocess.run(cmd, cwd=build, capture_output=True, text=True, timeout=300, **kw)
    if r.returncode != 0:
        diag(r.stdout[-3000:] + r.stderr[-3000:])
        raise SystemExit(f"FAIL: {' '.join(cmd)} exited {r.returncode}")
    return r


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def expected(path):
    """What the file holds that the trace processor must keep."""
    ev = json.load(open(path))["traceEvents"]
    slices = sum(1 for e in ev if e.get("ph") in ("X", "i", "I"))
    by_id = {}
    for e in ev:
        if e.get("ph") in ("s", "t", "f"):
            by_id.setdefault((str(e.get("id")), e.get("cat"), e.get("name")), []).append(e)
    links = sum(len(v) - 1 for v in by_id.values())
    return ev, slices, links


def query(page, sql):
    return page.evaluate("""async (sql) => {
        const res = await window.app.trace.engine.query(sql);
        const cols = res.columns(), out = [];
        for (const it = res.iter({}); it.valid(); it.next())
            out.push(cols.map(c => { const v = it.get(c); return typeof v === 'bigint' ? Number(v) : v; }));
        return out;
    }""", sql)


def open_in_perfetto(browser, path):
    """The page with path loaded in the Perfetto UI, and the server."""
    port = free_port()
    srv = subprocess.Popen([vizviewer, "--server_only", "--port", str(port), path],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    # offline: nothing but the local server answers
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(f"http://127.0.0.1:{port}/")
               else r.abort())
    page.goto(f"http://127.0.0.1:{port}/")
    page.wait_for_function("() => window.app && window.app.trace && window.app.trace.engine", timeout=120000)
    # once loaded, the UI moves itself to its viewer page (with a cache key
    # in the address): a page asked for before that would be left again
    try:
        page.wait_for_function("() => location.hash.includes('local_cache_key')", timeout=20000)
    except Exception:
        pass
    return page, srv, port


def import_problems(page, port, name):
    """The info page's tables of import errors and data losses, and the
    stats behind them."""
    stats = query(page, "select name, severity, value from stats where value > 0 and severity in ('error', 'data_loss')")
    check(not stats, f"{name}: the trace processor's stats hold no error nor data loss ({stats})")
    for attempt in range(3):
        page.evaluate("() => { location.hash = '#!/info'; }")
        try:
            page.wait_for_selector("text=System info and metadata", timeout=20000)
            break
        except Exception:
            if attempt == 2:
                raise
    text = page.inner_text("body")
    check("Import errors" not in text and "Data losses" not in text,
          f"{name}: the info page shows no 'Import errors' nor 'Data losses' table"
          + ("" if "Import errors" not in text and "Data losses" not in text else
             ": " + text[:text.find("System info")].replace("\n", " ")[:600]))
    page.evaluate("() => { location.hash = '#!/viewer'; }")


def kept_everything(page, path, name):
    ev, slices, links = expected(path)
    n = query(page, "select count(*) from slice")[0][0]
    check(n == slices, f"{name}: all {slices} slices and markers of the file imported ({n})")
    f = query(page, "select count(*) from flow")[0][0]
    check(f == links, f"{name}: all {links} flow links of the file imported ({f})")
    return ev


def chrome_trace(browser, path):
    page, srv, port = open_in_perfetto(browser, path)
    try:
        import_problems(page, port, "Chrome trace")
        ev = kept_everything(page, path, "Chrome trace")
        coll = query(page, "select count(*) from flow f join slice s on f.slice_out = s.id where s.category = 'collective'")[0][0]
        check(coll > 0, f"Chrome trace: collectives linked across ranks ({coll} flow links)")
        groups = page.evaluate("() => window.app.trace.workspace.children.map(c => c.name)")
        ranks = [g.split()[1] for g in groups if g.startswith("rank ")]
        # Perfetto orders processes by process_sort_index from v53 (its
        # importer keeps it as the process's process_sort_index_hint); the
        # pinned UI, v52, by slice count and name, which only filler
        # markers (a column of arrows) could bend: there, the file's order
        sorted_ui = query(page, "select count(*) from args where key = 'process_sort_index_hint'")[0][0] > 0
        sort = {e["pid"]: e["args"]["sort_index"] for e in ev
                if e.get("ph") == "M" and e.get("name") == "process_sort_index"}
        named = sorted((sort.get(e["pid"], 1 << 30), e["args"]["name"].split()[1]) for e in ev if e.get("ph") == "M"
                       and e.get("name") == "process_name" and e["args"]["name"].startswith("rank "))
        filler = query(page, "select count(*) from slice where name = '(track order)'")[0][0]
        if sorted_ui:
            check(ranks == ["0", "1", "2", "3"], f"Chrome trace: the ranks in rank order ({groups})")
        else:
            check([r for _, r in named] == ["0", "1", "2", "3"] and not filler,
                  f"Chrome trace: the ranks in rank order by process_sort_index, no filler markers ({named}, "
                  f"{filler}; this UI reads no sort index and shows {ranks})")
        # a track per stream, on the stream's id, named for its GPU, its
        # stream and what ran on it; none for a stream that ran nothing
        roles = {}
        for e in ev:
            if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
                role = "NCCL" if e["name"].startswith("nccl") else "compute" if e["cat"] == "kernel" else "copy"
                roles.setdefault((e["pid"], e["args"]["device"], e["args"]["stream"]), set()).add(role)
        threads = query(page, "select p.pid, t.tid, t.name from thread t join process p using (upid)")
        have = {(pid, tid): nm for pid, tid, nm in threads}
        want = {(pid, s): f"GPU {g} stream {s} (%s)" % " + ".join(r for r in ("compute", "NCCL", "copy") if r in rs)
                for (pid, g, s), rs in roles.items()}
        check(want and all(have.get(k) == v for k, v in want.items()),
              f"Chrome trace: a track 'GPU g stream s (roles)' on tid s for each of {len(want)} streams "
              f"({[have.get(k) for k in sorted(want)][:5]})")
        empty = query(page, "select t.name from thread t where t.name like 'GPU % stream %' and not exists (select 1"
                            " from thread_track tt join slice s on s.track_id = tt.id where tt.utid = t.utid)")
        check(not empty, f"Chrome trace: no stream track without operations ({empty})")
        check(not any(tid >= 1000000000 for _, tid, _ in threads), "Chrome trace: no made-up thread ids")
        tracks = page.evaluate("() => window.app.trace.workspace.flatTracks.map(t => t.name)")
        check(any(t.startswith("GPU 0 stream ") and t.split()[4].startswith("(") for t in tracks),
              f"Chrome trace: the UI shows the stream tracks with their roles "
              f"({[t for t in tracks if 'stream' in t][:4]}...)")
        # searching comm.straggler lands on the straggler: each of its
        # markers on the process of the rank it names
        strag = query(page, "select p.name, a.int_value from slice s join process_track pt on s.track_id = pt.id join"
                            " process p using (upid) join args a on a.arg_set_id = s.arg_set_id and a.key = 'args.rank'"
                            " where s.name = 'comm.straggler' order by s.ts")
        if strag:
            check(all(nm.startswith(f"rank {r} ") for nm, r in strag),
                  f"Chrome trace: {len(strag)} comm.straggler markers on the straggler's track, the first on "
                  f"{strag[0][0].split(' ·')[0]} ({sorted({(nm.split(' ·')[0], r) for nm, r in strag})})")
        else:
            diag("no comm.straggler in this run (a loaded machine): its markers' track not checked")
        # findings where they happened: several times per finding, on threads
        marks = query(page, "select name, count(*), count(distinct ts), sum(track_id in (select id from thread_track))"
                            " from slice where category = 'finding' group by name")
        check(marks and all(n_ts > 1 for _, n, n_ts, _ in marks if n > 1),
              f"Chrome trace: each finding marked at its occurrences' times ({marks})")
        # (the whole-process kinds, which a busy run may add, are marked on
        # their process's track, at the time charged to them or at its start:
        # docs/chrome-trace.md)
        # (and so is a comm.exposed of the whole process: ledger.c)
        whole = ("comm.straggler", "gpu.idle", "gpu.stalled", "gpu.launch_bound", "comm.mismatch", "comm.hang",
                 "gpu.pipeline_bubble")
        # (on their process's track, not the thread's or stream's, where a
        # flow starting or ending at their time bound to them: the thread
        # or stream in their args)
        at_sites = query(page, "select s.name, count(*), count(distinct s.ts), sum(s.track_id in (select id from"
                               " process_track) and exists (select 1 from args a where a.arg_set_id = s.arg_set_id"
                               " and a.key in ('args.thread', 'args.stream'))) from slice s where s.category ="
                               " 'finding' and not exists (select 1 from args a where a.arg_set_id = s.arg_set_id"
                               " and a.key = 'args.callsite' and a.string_value = '(whole process)') group by s.name")
        check(all(placed == n for name, n, _, placed in at_sites if name not in whole),
              "Chrome trace: findings marked on their process's track, naming the thread (stream, for collectives)"
              f" where they happened ({at_sites})")
        bound = query(page, "select count(*) from flow f join slice s on s.id in (f.slice_out, f.slice_in)"
                            " where s.category = 'finding'")[0][0]
        check(bound == 0, f"Chrome trace: no flow bound to a finding's marker ({bound})")
        n = sum(n for _, n, _, _ in marks)
        keys = dict(query(page, "select a.key, count(*) from slice s join args a using (arg_set_id) where s.category ="
                                " 'finding' and a.key in ('args.kind', 'args.finding_cost_ns', 'args.fix') group by 1"))
        check(keys == {"args.kind": n, "args.finding_cost_ns": n, "args.fix": n},
              f"Chrome trace: each of {n} markers carries its finding's kind, cost and fix ({keys})")
        page.screenshot(path=os.path.join(out, "perfetto-chrome-trace.png"))
    finally:
        page.close()
        srv.kill()


def kineto_trace(browser, path, rank):
    page, srv, port = open_in_perfetto(browser, path)
    try:
        import_problems(page, port, f"Kineto rank {rank}")
        ev = kept_everything(page, path, f"Kineto rank {rank}")
        if rank:
            return  # the rows' names: rank 0's
        dev = json.load(open(path))["deviceProperties"][0]["id"]
        streams = {e["tid"] for e in ev if e.get("cat") == "kernel"}
        threads = query(page, "select p.pid, t.tid, t.name from thread t join process p using (upid)")
        have = {(pid, tid): nm for pid, tid, nm in threads}
        check(streams and all(have.get((dev, s)) == f"stream {s}" for s in streams),
              f"Kineto rank 0: GPU rows named 'stream N' ({sorted(streams)})")
        unnamed = query(page, "select t.tid from thread_track tt join thread t using (utid)"
                              " where t.name is null and tt.id in (select distinct track_id from slice)")
        check(not unnamed, f"Kineto rank 0: every row with slices has a name ({unnamed})")
    finally:
        page.close()
        srv.kill()


def html_report(browser, path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    requests = []
    page.route("**/*", lambda r: (r.continue_() if r.request.url.startswith("file://")
                                  else (requests.append(r.request.url), r.abort())))
    decoder = browser.new_page()  # the report's own policy lets no image in: its pixels are counted here
    page.goto("file://" + os.path.abspath(path))
    page.wait_for_load_state("load")
    check(not errors, f"HTML report: no console errors ({errors[:3]})")
    check(not requests, f"HTML report: asks the network for nothing ({requests[:3]})")
    for chart, what in (("rank-summary", "rect"), ("step-times", "polyline"), ("lateness", "rect"),
                        ("findings", "rect")):
        el = page.query_selector(f"#{chart} svg")
        check(el is not None, f"HTML report: chart {chart} is there")
        if el is None:
            continue
        n = page.evaluate("""([id, what]) => [...document.querySelectorAll('#' + id + ' svg ' + what)]
            .filter(e => { const b = e.getBoundingClientRect(); return b.width > 0 && b.height > 0; }).length""",
                          [chart, what])
        check(n > 0, f"HTML report: chart {chart} draws {n} {what} elements on screen")
        png = os.path.join(out, f"html-{chart}.png")
        page.query_selector(f"#{chart}").screenshot(path=png)
        colours = decoder.evaluate("""async (src) => {
            const img = new Image(); img.src = src; await img.decode();
            const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
            const g = c.getContext('2d'); g.drawImage(img, 0, 0);
            const d = g.getImageData(0, 0, c.width, c.height).data; const seen = new Set();
            for (let i = 0; i < d.length; i += 16) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
            return seen.size; }""", "data:image/png;base64," + __import__("base64").b64encode(open(png, "rb").read()).decode())
        check(colours > 3, f"HTML report: chart {chart}'s screenshot has {colours} colours (not blank)")
    page.close()
    decoder.close()


tmp = tempfile.mkdtemp(prefix="gt-browser-")
out = os.environ.get("GPUTRACE_BROWSER_OUT", tmp)
run(["./gputrace", "record", "-f", "-o", f"{tmp}/run.db", "--", "tests/sim/gpusim-run", "-n", "4", "--timeout", "120",
     "tests/apps/train_demo"])
run(["./gputrace-report", "--chrome-trace", f"{tmp}/trace.json", "--kineto", f"{tmp}/kineto", "--html",
     f"{tmp}/report.html", f"{tmp}/run.db"])
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
    chrome_trace(browser, f"{tmp}/trace.json")
    for r in range(4):  # overlapping slices, where they were, came on some ranks and not others
        kineto_trace(browser, f"{tmp}/kineto/rank-{r}.json", r)
    html_report(browser, f"{tmp}/report.html")
    browser.close()
finish()
