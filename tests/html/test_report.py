#!/usr/bin/env python3
"""The HTML report in a real browser: tests/html/run GPUSIM SOURCE_DIR BUILD_DIR [SCENARIO...].

For scenarios/teaching/gang-deadlock.yaml: runs it, writes `gpusim report --html`, loads the page
in headless Chromium (DevTools protocol over a pipe, tests/html/cdp.py) and moves through the
events as a person would (clicks on the step buttons, the slider focused and stepped with the
arrow key), reading the DOM after each step: at every instant of the trace the GPU slots each
node shows held, and by which pod, equal the trace's GpuAllocated rows of the pods bound and not
ended by then (read here with sqlite3, not from the page); at the step where the deadlock forms
(every GPU held) the samples say every GPU is held by an incomplete PodGroup. Then for every
teaching scenario (or those named): the page has no external URL, opens without console errors,
exceptions or requests leaving the file, and at up to 6 sample times (opened by #t=) the GPUs
allocated the map shows add up to the sample's gpus_allocated. Screenshots of every page are
written to BUILD_DIR/html-screenshots/.
"""
import glob
import json
import os
import re
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

GPUSIM, SRC, BUILD = sys.argv[1], sys.argv[2], sys.argv[3]
ONLY = sys.argv[4:]
OUT = os.path.join(BUILD, "html-test")
SHOTS = os.path.join(BUILD, "html-screenshots")
ENDS = {"Completed", "Deleted", "Evicted", "UnexpectedAdmissionError", "Rejected"}
EXTERNAL = re.compile(r"(?i)\b(?:https?|ftp|wss?)\s*:\s*\\?/\\?/|(?:src|href|action)\s*=\s*[\"']?\s*(?!#)[^\s\"'>]|@import|url\s*\(")

failures = []
# Pages known to disagree with the samples, with the reason; such a page is reported XFAIL, and
# fails when it agrees (XPASS: remove its entry).
KNOWN = {}


def fail(msg):
    failures.append(msg)
    print("FAIL  " + msg, flush=True)


def ok(msg):
    print("PASS  " + msg, flush=True)


def build_report(scenario):
    name = os.path.splitext(os.path.basename(scenario))[0]
    db, html = os.path.join(OUT, name + ".db"), os.path.join(OUT, name + ".html")
    for p in (db, html):
        if os.path.exists(p):
            os.remove(p)
    r = subprocess.run([GPUSIM, "run", scenario, "-o", db, "--quiet-progress"], cwd=SRC,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if not os.path.exists(db):
        fail("%s: gpusim run exited %d without a trace: %s" % (name, r.returncode, r.stderr.strip()[-300:]))
        return None, None, None
    r = subprocess.run([GPUSIM, "report", db, "--html", html], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        fail("%s: gpusim report --html exited %d: %s" % (name, r.returncode, r.stderr.strip()))
        return name, db, None
    return name, db, html


def no_external(name, html):
    text = open(html, encoding="utf-8").read()
    m = EXTERNAL.search(text)
    if m:
        fail("%s: the page refers outside itself: ...%s..." % (name, text[max(0, m.start() - 40):m.end() + 40]))
        return False
    return True


def dom_state(b):
    """The step shown and, per node, its held slots {slot: pods} and data-allocated."""
    return b.eval("""(function(){
      var nodes = {};
      document.querySelectorAll('#map .node').forEach(function(n){
        var held = {};
        n.querySelectorAll('.slot.held').forEach(function(s){ held[s.getAttribute('data-slot')] = s.getAttribute('data-pod'); });
        nodes[n.getAttribute('data-node')] = {held: held, allocated: +n.getAttribute('data-allocated')};
      });
      return {step: +document.getElementById('slider').value, max: +document.getElementById('slider').max,
              info: document.getElementById('step-info').textContent, reason: document.getElementById('event').getAttribute('data-reason'),
              event: document.getElementById('event').textContent, nodes: nodes,
              groups: document.getElementById('groups-line').textContent};
    })()""")


def page_data(b):
    return b.eval("""(function(){ var d = JSON.parse(document.getElementById('gpusim-data').textContent);
      return {times: d.steps.events.map(function(e){ return e[0]; }), first: d.steps.first, total: d.steps.total,
              nodes: d.nodes.length, mapNodes: d.limits.mapNodes}; })()""")


def trace_slots(con, t_us):
    """Per node, the GPU slots held at t_us and by which pod, from the trace's pod_event rows."""
    names = dict(con.execute("SELECT id, name FROM pod"))
    held = {}
    for pod, reason, msg in con.execute("SELECT pod_id, reason, message FROM pod_event WHERE t_us <= ? ORDER BY t_us, rowid", (t_us,)):
        if reason == "GpuAllocated":
            node = msg.split(" ", 1)[0]
            gpus = [int(g) for g in re.search(r"gpu=([\d,]+)", msg).group(1).split(",")]
            held[pod] = (node, gpus)
        elif reason in ENDS:
            held.pop(pod, None)
    out = {}
    for pod, (node, gpus) in held.items():
        for g in gpus:
            out.setdefault(node, {})[str(g)] = names[pod]
    return out


def check_gang_deadlock(b):
    scenario = os.path.join(SRC, "scenarios/teaching/gang-deadlock.yaml")
    name, db, html = build_report(scenario)
    if not html:
        return
    no_external(name, html)
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    b.navigate("file://" + os.path.abspath(html))
    problems = b.problems()
    if problems:
        fail("%s: %s" % (name, "; ".join(problems[:5])))
    data = page_data(b)
    times = data["times"]
    n = len(times)
    # start from the beginning: the "first" button, then the slider focused by a click at its left end
    b.click("#btn-first")
    b.click("#slider", fx=0.0)
    s = dom_state(b)
    if s["step"] != 0:
        fail("%s: after the first button and a click at the slider's start, step %d, want 0" % (name, s["step"]))
        return
    states = [s]
    for k in range(1, n + 1):
        b.key("ArrowRight", "ArrowRight", 39)
        s = dom_state(b)
        if s["step"] != k:
            fail("%s: ArrowRight on the slider went to step %d, want %d" % (name, s["step"], k))
            return
        states.append(s)
    ok("%s: stepped through all %d events with the arrow key on the slider" % (name, n))
    # the buttons: back three, on one
    for _ in range(3):
        b.click("#btn-prev")
    b.click("#btn-next")
    s = dom_state(b)
    if s["step"] != n - 2:
        fail("%s: 3 x back and 1 x next from step %d gave step %d, want %d" % (name, n, s["step"], n - 2))
    else:
        ok("%s: the back and next buttons move one event each" % name)
    # at every instant (the last step at each event time) the slots equal the trace's
    checked = 0
    for k in range(1, n + 1):
        if k < n and times[k] == times[k - 1]:
            continue
        want = trace_slots(con, times[k - 1])
        got = {node: v["held"] for node, v in states[k]["nodes"].items() if v["held"]}
        if got != want:
            fail("%s: step %d (t=%dus, %s): page shows %s, trace has %s" % (name, k, times[k - 1], states[k]["reason"], got, want))
            return
        checked += 1
    ok("%s: slots per node equal the trace's GpuAllocated rows at all %d instants" % (name, checked))
    # the deadlock: the first step at which every GPU is held
    total = sum(g for (g,) in con.execute("SELECT gpu_count FROM node"))
    dead = next((k for k in range(n + 1) if sum(len(v["held"]) for v in states[k]["nodes"].values()) == total), None)
    if dead is None:
        fail("%s: no step shows all %d GPUs held" % (name, total))
        return
    t = times[dead - 1]
    want = trace_slots(con, t)
    per_node_page = {node: len(v["held"]) for node, v in states[dead]["nodes"].items()}
    per_node_trace = {node: len(v) for node, v in want.items()}
    if per_node_page != per_node_trace:
        fail("%s: deadlock step %d: page %s, trace %s" % (name, dead, per_node_page, per_node_trace))
    row = con.execute("SELECT t_us, gpus_held_by_incomplete_groups, gpus_allocated FROM sample WHERE pool = '' AND t_us >= ? ORDER BY t_us LIMIT 1", (t,)).fetchone()
    if not row or row[1] != total or row[2] != total:
        fail("%s: at the deadlock (t=%dus) the next sample %s does not hold all %d GPUs in incomplete groups" % (name, t, row, total))
    else:
        ok("%s: the deadlock forms at step %d (t=%dus, %s): slots per node %s as in the trace; the sample at %dus: %d GPUs held by incomplete groups"
           % (name, dead, t, states[dead]["reason"], per_node_page, row[0], row[1]))
    # the PodGroups line: how many of each group's pods hold GPUs, as the trace says
    group_of = dict(con.execute("SELECT name, pod_group FROM pod"))
    size = dict(con.execute("SELECT pod_group, count(*) FROM pod WHERE pod_group IS NOT NULL GROUP BY pod_group"))
    holders = {}
    for slots in want.values():
        for pod in set(slots.values()):
            if group_of.get(pod):
                holders.setdefault(group_of[pod], set()).add(pod)
    line = " · ".join("PodGroup %s: %d of its %d pods hold GPUs" % (g, len(holders.get(g, ())), size[g]) for g in sorted(size))
    if states[dead]["groups"] != line:
        fail("%s: deadlock step %d: the PodGroups line is %r, the trace gives %r" % (name, dead, states[dead]["groups"], line))
    else:
        ok("%s: at the deadlock the page says %r" % (name, line))
    # the fragment opens the page at that step
    b.navigate("file://" + os.path.abspath(html) + "#step=%d" % dead)
    s = dom_state(b)
    if s["step"] != dead or s["nodes"] != states[dead]["nodes"]:
        fail("%s: #step=%d opened step %d with %s" % (name, dead, s["step"], s["nodes"]))
    else:
        ok("%s: #step=%d opens that step" % (name, dead))
    # a time as a Go duration: #t=2s is the last event at or before 2s
    b.navigate("file://" + os.path.abspath(html) + "#t=2s")
    s = dom_state(b)
    want = max(k for k in range(n + 1) if k == 0 or times[k - 1] <= 2000000)
    if s["step"] != want:
        fail("%s: #t=2s opened step %d, want %d" % (name, s["step"], want))
    else:
        ok("%s: #t=2s opens step %d, the last event at or before 2s" % (name, want))
    b.navigate("file://" + os.path.abspath(html) + "#step=%d" % dead)
    b.problems()
    os.makedirs(SHOTS, exist_ok=True)
    b.screenshot(os.path.join(SHOTS, name + ".png"))
    con.close()


def check_scenario(b, scenario):
    name, db, html = build_report(scenario)
    if not html:
        return
    if not no_external(name, html):
        return
    b.navigate("file://" + os.path.abspath(html))
    problems = b.problems()
    if problems:
        fail("%s: %s" % (name, "; ".join(problems[:5])))
        return
    data = page_data(b)
    times = data["times"]
    # the screenshot first (at the last step), so a page that fails below is there to look at
    os.makedirs(SHOTS, exist_ok=True)
    b.navigate("file://" + os.path.abspath(html) + "#step=%d" % len(times))
    b.screenshot(os.path.join(SHOTS, name + ".png"))
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    samples = con.execute("SELECT t_us, gpus_allocated FROM sample s WHERE pool = '' AND rowid = "
                          "(SELECT max(rowid) FROM sample WHERE pool = '' AND t_us = s.t_us) ORDER BY t_us").fetchall()
    con.close()
    # every sample time inside the page's window of events (at most 100, spread over it): the page
    # opened at the first (a fresh load of #t=), moved to the others by changing the fragment
    if data["first"] == 0 and data["nodes"] <= data["mapNodes"] and times:
        inside = [r for r in samples if r[0] <= times[-1] or len(times) == data["total"]]
        pick = inside if len(inside) <= 100 else [inside[i * (len(inside) - 1) // 99] for i in range(100)]
        for i, (t, want) in enumerate(pick):
            if i == 0:
                b.navigate("file://" + os.path.abspath(html) + "#t=%dus" % t)
            else:
                b.eval("new Promise(function (done) { window.addEventListener('hashchange', function () { done(); }, {once: true});"
                       " location.hash = '#t=%dus'; })" % t)
            # the step the page must show: after every event at or before t; wait (up to 10 s) until
            # it does, so a loaded machine's slow page is not taken for a wrong one
            k = sum(1 for x in times if x <= t)
            b.eval("new Promise(function (done) { var end = Date.now() + 10000; (function poll() {"
                   " if (+document.getElementById('slider').value === %d || Date.now() > end) done();"
                   " else setTimeout(poll, 20); })(); })" % k)
            s = dom_state(b)
            if s["step"] != k:
                fail("%s: #t=%dus shows step %d, not %d (the events at or before it)" % (name, t, s["step"], k))
                return
            got = sum(v["allocated"] for v in s["nodes"].values())
            if got != want:
                if name in KNOWN:
                    print("XFAIL %s: at t=%dus the map's nodes hold %d GPUs, the sample says %d: %s" % (name, t, got, want, KNOWN[name]), flush=True)
                    return
                fail("%s: at t=%dus (step %d) the map's nodes hold %d GPUs, the sample says %d" % (name, t, s["step"], got, want))
                return
        p = b.problems()
        if p:
            fail("%s: %s" % (name, "; ".join(p[:5])))
            return
        if name in KNOWN:
            fail("%s: XPASS: agrees with the samples now; remove it from KNOWN" % name)
            return
        ok("%s: opens without errors; GPUs allocated on the map equal the samples at %d times" % (name, len(pick)))
    else:
        ok("%s: opens without errors" % name)


def check_compare(b):
    """gpusim compare --html of gang-deadlock and gang-deadlock-gang: opens cleanly, one colour a run."""
    dbs = []
    for name in ("gang-deadlock", "gang-deadlock-gang"):
        db = os.path.join(OUT, name + ".db")
        if not os.path.exists(db):
            build_report(os.path.join(SRC, "scenarios/teaching/%s.yaml" % name))
        dbs.append(db)
    html = os.path.join(OUT, "compare.html")
    r = subprocess.run([GPUSIM, "compare"] + dbs + ["--html", html], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        fail("compare --html exited %d: %s" % (r.returncode, r.stderr.strip()))
        return
    if not no_external("compare", html):
        return
    b.navigate("file://" + os.path.abspath(html))
    p = b.problems()
    if p:
        fail("compare: %s" % "; ".join(p[:5]))
        return
    # the gang panel: one curve of GPUs held by incomplete groups per run
    keys = b.eval("""Array.prototype.map.call(document.querySelectorAll('#sec-gangs ~ .charts')[0].querySelectorAll('.legend .key'),
                     function (k) { return k.textContent; })""")
    want = ["gang-deadlock: held by incomplete groups", "gang-deadlock: allocated",
            "gang-deadlock-gang: held by incomplete groups", "gang-deadlock-gang: allocated"]
    if keys != want:
        fail("compare: the gang panel's legend is %s, want %s" % (keys, want))
        return
    ok("compare --html: opens without errors, the gang panel overlays both runs")
    os.makedirs(SHOTS, exist_ok=True)
    b.screenshot(os.path.join(SHOTS, "compare.png"))


def check_from_window(b):
    """report --html --from 30s --steps 3 on gang-deadlock: step 0 is the cluster at 30s, and says
    t = 30s (the window's start), not the time of the window's first event."""
    scenario = os.path.join(SRC, "scenarios/teaching/gang-deadlock.yaml")
    name, db, html = build_report(scenario)
    if not html:
        return
    win = os.path.join(OUT, "gang-deadlock-from30s.html")
    r = subprocess.run([GPUSIM, "report", db, "--html", win, "--from", "30s", "--steps", "3"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        fail("%s --from 30s: gpusim report --html exited %d: %s" % (name, r.returncode, r.stderr.strip()))
        return
    b.navigate("file://" + os.path.abspath(win))
    b.click("#btn-first")
    s = dom_state(b)
    data = page_data(b)
    first_t = data["times"][0] if data["times"] else None
    if first_t is None or first_t <= 30000000:
        fail("%s --from 30s: the window's first event is at %sus, want one after 30s (else the check cannot fail)" % (name, first_t))
        return
    want = "step 0 of %d \u00b7 t = 30s" % len(data["times"])
    if s["info"] != want:
        fail("%s --from 30s: step 0 reads %r, want %r (the window's first event is at %sus)" % (name, s["info"], want, first_t))
    else:
        ok("%s --from 30s: step 0 reads %r (first event of the window at %sus)" % (name, s["info"], first_t))


def main():
    chromium = cdp.find_chromium()
    if not chromium:
        print("SKIP: no Chromium (tools/install-deps chromium installs Debian's chromium)")
        return 77
    os.makedirs(OUT, exist_ok=True)
    b = cdp.Browser(chromium)
    try:
        b.open_page()
        if not ONLY or "gang-deadlock" in ONLY:
            check_gang_deadlock(b)
            check_from_window(b)
        scenarios = sorted(p for p in glob.glob(os.path.join(SRC, "scenarios/teaching/*.yaml")) if not os.path.islink(p))
        for sc in scenarios:
            name = os.path.splitext(os.path.basename(sc))[0]
            if name == "gang-deadlock" or (ONLY and name not in ONLY):
                continue
            check_scenario(b, sc)
        if not ONLY or "compare" in ONLY:
            check_compare(b)
    finally:
        b.close()
    print("%d failed" % len(failures) if failures else "all passed", "; screenshots in", SHOTS)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
