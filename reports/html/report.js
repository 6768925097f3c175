/* gpusim's HTML report (reports/html.h): our own script, compiled into the binary. It reads the
 * JSON in #gpusim-data and draws every panel as inline SVG and HTML; it loads nothing. */
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('gpusim-data').textContent);
  var S = D.strings || [];
  var app = document.getElementById('app');
  var PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];

  function str(i) { return i >= 0 ? S[i] : null; }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  /* a duration in µs as Go prints it: 1h2m3.5s, 250ms, 0s */
  function dur(us) {
    if (us === 0) return '0s';
    var neg = us < 0; if (neg) us = -us;
    var out;
    if (us < 1000) out = us + 'µs';
    else if (us < 1000000) out = +(us / 1000).toFixed(3) + 'ms';
    else {
      var h = Math.floor(us / 3600e6), m = Math.floor(us % 3600e6 / 60e6), s = +((us % 60e6) / 1e6).toFixed(3);
      out = (h ? h + 'h' : '') + (h || m ? m + 'm' : '') + s + 's';
    }
    return (neg ? '-' : '') + out;
  }
  /* a Go duration (10m40s, 1h, 1.5s, 250ms) in µs, NaN when it is not one */
  function parseDur(s) {
    var re = /(\d+(?:\.\d*)?|\.\d+)(h|ms|us|µs|m|s)/g, total = 0, at = 0, m;
    if (s === '0') return 0;
    while ((m = re.exec(s)) !== null) {
      if (m.index !== at) return NaN;
      at = re.lastIndex;
      total += parseFloat(m[1]) * { h: 3600e6, m: 60e6, s: 1e6, ms: 1e3, us: 1, 'µs': 1 }[m[2]];
    }
    return at === s.length && at > 0 ? Math.round(total) : NaN;
  }
  function hue(i, s, l) { return 'hsl(' + Math.round((i * 137.508) % 360) + ',' + s + '%,' + l + '%)'; }
  function niceStep(range, n) {
    var raw = range / Math.max(1, n), p = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
  }
  function timeStep(range, n) {
    var steps = [1e6, 2e6, 5e6, 10e6, 15e6, 30e6, 60e6, 120e6, 300e6, 600e6, 900e6, 1800e6, 3600e6, 7200e6,
      10800e6, 21600e6, 43200e6, 86400e6, 172800e6, 604800e6];
    var raw = range / Math.max(1, n);
    for (var i = 0; i < steps.length; i++) if (steps[i] >= raw) return steps[i];
    return niceStep(range, n);
  }

  /* ---------------------------------------------------------------- line charts */
  /* o: {title, series: [{label, color, dash, xs, ys, step}], xmax (µs or a number), xTime,
   * ymax, yLabel, width, height}. Values null are gaps. */
  function chart(o) {
    var W = o.width || 540, H = o.height || 200, L = 46, R = 26, T = 10, B = 30;
    var xmax = o.xmax > 0 ? o.xmax : 1, ymax = o.ymax || 0;
    o.series.forEach(function (s) { s.ys.forEach(function (y) { if (y !== null && y > ymax) ymax = y; }); });
    if (ymax <= 0) ymax = 1;
    var ystep = niceStep(ymax, 4); ymax = Math.ceil(ymax / ystep) * ystep;
    function X(x) { return L + (W - L - R) * x / xmax; }
    function Y(y) { return T + (H - T - B) * (1 - y / ymax); }
    var g = [];
    for (var y = 0; y <= ymax + 1e-9; y += ystep) {
      g.push('<line class="grid" x1="' + L + '" x2="' + (W - R) + '" y1="' + Y(y) + '" y2="' + Y(y) + '"/>');
      g.push('<text x="' + (L - 5) + '" y="' + (Y(y) + 4) + '" text-anchor="end">' + (+y.toFixed(3)) + '</text>');
    }
    var xstep = o.xTime ? timeStep(xmax, 6) : niceStep(xmax, 6);
    for (var x = 0; x <= xmax + 1e-9; x += xstep) {
      g.push('<line class="axis" x1="' + X(x) + '" x2="' + X(x) + '" y1="' + (H - B) + '" y2="' + (H - B + 4) + '"/>');
      g.push('<text x="' + X(x) + '" y="' + (H - B + 16) + '" text-anchor="middle">' + (o.xTime ? dur(x) : +x.toFixed(3)) + '</text>');
    }
    g.push('<line class="axis" x1="' + L + '" x2="' + (W - R) + '" y1="' + (H - B) + '" y2="' + (H - B) + '"/>');
    g.push('<line class="axis" x1="' + L + '" x2="' + L + '" y1="' + T + '" y2="' + (H - B) + '"/>');
    if (o.yLabel) g.push('<text x="' + 4 + '" y="' + (T + 2) + '" transform="rotate(90 4 ' + (T + 2) + ')">' + esc(o.yLabel) + '</text>');
    o.series.forEach(function (s) {
      var d = '', pen = false;
      for (var i = 0; i < s.xs.length; i++) {
        var yv = s.ys[i];
        if (yv === null || yv === undefined) { pen = false; continue; }
        var px = X(s.xs[i]).toFixed(1), py = Y(yv).toFixed(1);
        if (!pen) { d += 'M' + px + ' ' + py; pen = true; }
        else if (s.step) d += 'H' + px + 'V' + py;
        else d += 'L' + px + ' ' + py;
      }
      if (pen && s.step && s.xs.length) d += 'H' + X(Math.max(s.xs[s.xs.length - 1], s.until || xmax)).toFixed(1);
      g.push('<path d="' + d + '" fill="none" stroke="' + s.color + '" stroke-width="' + (s.width || 1.8) + '"' +
        (s.dash ? ' stroke-dasharray="5 3"' : '') + '><title>' + esc(s.label) + '</title></path>');
    });
    var legend = o.series.map(function (s) {
      return '<span class="key"><i class="' + (s.dash ? 'dash' : '') + '" style="border-color:' + s.color + '"></i>' + esc(s.label) + '</span>';
    }).join('');
    return '<figure class="chart"><figcaption>' + esc(o.title) + '</figcaption><svg width="' + W + '" height="' + H +
      '" viewBox="0 0 ' + W + ' ' + H + '" role="img" aria-label="' + esc(o.title) + '">' + g.join('') +
      '</svg><div class="legend">' + legend + '</div></figure>';
  }

  function runColor(i) { return D.runs.length > 1 ? PALETTE[i % PALETTE.length] : null; }
  function endUs(run) { return Math.round((run.endSeconds || 0) * 1e6); }
  var XMAX = Math.max.apply(null, D.runs.map(endUs).concat([1]));
  function sampleSeries(run, pool, key) {
    var p = run.samples && run.samples.pools[pool];
    if (!p) return null;
    return { xs: run.samples.t.slice(p.from, p.from + p[key].length), ys: p[key], until: endUs(run) };
  }
  function poolsOf() {
    var seen = {}, out = [];
    D.runs.forEach(function (r) { Object.keys((r.samples && r.samples.pools) || {}).forEach(function (k) { if (!seen[k]) { seen[k] = 1; out.push(k); } }); });
    out.sort(function (a, b) { return a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0; });
    return out;
  }
  function withRun(label, i) { return D.runs.length > 1 ? D.runs[i].label + ': ' + label : label; }
  /* one series per run (and per key given) */
  function overlay(keys, pool) {
    var out = [];
    D.runs.forEach(function (r, i) {
      keys.forEach(function (k) {
        var s = sampleSeries(r, pool, k.key);
        if (!s) return;
        s.label = withRun(k.label, i); s.color = runColor(i) || k.color; s.dash = k.dash; s.step = true;
        out.push(s);
      });
    });
    return out;
  }
  function stride(run) { return run.samples && run.samples.stride > 1 ? ' (every ' + run.samples.stride + 'th sample)' : ''; }

  /* ---------------------------------------------------------------- page */
  var html = [];
  var r0 = D.runs[0] || {};
  if (D.kind === 'compare') {
    html.push('<h1>gpusim compare: ' + D.runs.length + ' runs</h1>');
    html.push('<p class="facts">' + D.runs.map(function (r, i) {
      return '<span style="color:' + runColor(i) + '">■</span> ' + esc(r.label) + ' (' + esc(r.scenario || '?') + ', seed ' + esc(r.seed || '?') + ', ' + dur(endUs(r)) + ')';
    }).join(' · ') + '</p>');
  } else {
    var pods = r0.pods || {};
    html.push('<h1>gpusim report: ' + esc(r0.scenario || r0.label) + '</h1>');
    html.push('<p class="facts">seed ' + esc(r0.seed) + ' · status ' + esc(r0.status) + ' · simulated ' + dur(endUs(r0)) +
      ' · Kubernetes ' + esc(r0.kubernetesVersion) + ' · ' + (D.nodes ? D.nodes.length : 0) + ' nodes · ' + (pods.total || 0) + ' pods (' +
      ['running', 'succeeded', 'pending', 'failed', 'rejected', 'deleted'].filter(function (k) { return pods[k]; }).map(function (k) { return pods[k] + ' ' + k; }).join(', ') + ')</p>');
    if (r0.command) html.push('<p class="note"><code>' + esc(r0.command) + '</code></p>');
  }
  html.push('<nav class="toc">' + (D.steps ? '<a href="#sec-step">Step through</a>' : '') +
    '<a href="#sec-gpus">GPUs over time</a><a href="#sec-tts">Time to schedule</a>' +
    (D.gantt ? '<a href="#sec-bringup">Bring-up</a>' : '') + '<a href="#sec-gangs">Gangs</a><a href="#sec-frag">Fragmentation</a></nav>');

  if (D.steps) {
    html.push('<h2 id="sec-step">Step through the run</h2>');
    html.push('<p class="explain">Each row is a node, each box one of its GPUs, coloured by the pod that holds it; a thick outline ' +
      'marks pods of one PodGroup (a gang). Move the slider or use the buttons (or the arrow keys on the slider) to go from one ' +
      'event of the trace to the next; the event that just happened is shown with its message.</p>');
    html.push('<div class="controls"><button id="btn-first" title="the start">« start</button><button id="btn-prev" title="one event back">◀ back</button>' +
      '<input id="slider" type="range" min="0" value="0" step="1" aria-label="step"><button id="btn-next" title="one event on">next ▶</button>' +
      '<button id="btn-last" title="the end">end »</button><button id="btn-play">play</button><span id="step-info"></span></div>');
    html.push('<div id="event"></div><div id="cluster-line"></div><div id="map"></div><div id="pod-legend"></div><div id="groups-line" class="note"></div><ul id="recent"></ul>');
    html.push('<p class="note" id="step-note"></p>');
  }

  /* GPUs over time */
  html.push('<h2 id="sec-gpus">GPUs and pending pods over time</h2><div class="charts">');
  poolsOf().forEach(function (pool) {
    var series = overlay([{ key: 'alloc', label: 'allocated', color: '#1f77b4' },
      { key: 'allocatable', label: 'allocatable', color: '#1f77b4', dash: true }], pool);
    html.push(chart({ title: (pool === '' ? 'Cluster' : 'Pool ' + pool) + ': GPUs allocated and allocatable', series: series, xmax: XMAX, xTime: true, yLabel: 'GPUs' }));
  });
  html.push(chart({ title: 'Pods pending (waiting for a node, at Permit, or bound and not started)',
    series: overlay([{ key: 'pending', label: 'pods pending', color: '#d62728' }], ''), xmax: XMAX, xTime: true, yLabel: 'pods' }));
  html.push('</div><p class="note">From the trace\'s <code>sample</code> table' + stride(r0) + '.</p>');

  /* CDF */
  html.push('<h2 id="sec-tts">Time to schedule</h2>');
  var cdfMax = 0;
  D.runs.forEach(function (r) { (r.cdf || []).forEach(function (p) { if (p[0] > cdfMax) cdfMax = p[0]; }); });
  var cdfSeries = D.runs.map(function (r, i) {
    var xs = [0], ys = [0];
    (r.cdf || []).forEach(function (p) { xs.push(p[0] * 1e6); ys.push(p[1]); });
    return { label: withRun('bound pods', i) + ' (' + (r.bound || 0) + ' of ' + ((r.pods || {}).total || 0) + ')', color: runColor(i) || '#2ca02c', xs: xs, ys: ys, step: true, until: xs[xs.length - 1] };
  });
  html.push(chart({ title: 'Share of bound pods scheduled within a time of their creation (CDF)', series: cdfSeries, xmax: Math.max(cdfMax * 1e6, 1e6), xTime: true, ymax: 1, yLabel: 'share', width: 620 }));
  html.push('<p class="explain">Time to schedule is a pod\'s binding time minus its creation time, over the pods bound by the end ' +
    '(the values behind the summary\'s p50/p95/p99). Pods never bound are not in it: ' +
    D.runs.map(function (r) { var p = r.pods || {}; return esc(r.label) + ' ' + ((p.total || 0) - (r.bound || 0)) + ' of ' + (p.total || 0); }).join(', ') + '.</p>');

  /* Gantt */
  if (D.gantt) {
    html.push('<h2 id="sec-bringup">Node bring-up</h2>');
    html.push('<p class="explain">One block per node: the top bar is the node\'s allocatable GPUs from its joining on (green: some, amber: none yet ' +
      'or none any more, grey: a node without GPUs); dark spans are reboots (kernel patches), blue ticks the kernel it came back with, red ticks Xid errors. Below it, one lane per GPU Operator operand, coloured by its pod\'s status: ' +
      '<span style="color:#2e7d32">Running and ready</span>, <span style="color:#81c784">running, not ready</span>, <span style="color:#f9a825">Init / creating</span>, ' +
      '<span style="color:#c62828">CrashLoopBackOff / Error</span>, <span style="color:#8e24aa">ImagePullBackOff</span>. Hover a span for its text.</p>');
    html.push('<div class="gantt-wrap">' + gantt() + '</div>');
    if (D.gantt.shown < D.gantt.total) html.push('<p class="note">The first ' + D.gantt.shown + ' of ' + D.gantt.total + ' nodes.</p>');
  }

  /* gangs */
  html.push('<h2 id="sec-gangs">Gangs: GPUs held by incomplete PodGroups</h2>');
  html.push('<p class="explain">GPUs held by pods of PodGroups that have fewer than minMember pods Running: GPUs that are allocated but serve no complete job ' +
    '(a gang deadlock keeps this at the cluster\'s size).</p>');
  html.push('<div class="charts">' + chart({ title: 'GPUs held by incomplete PodGroups', series: overlay([{ key: 'held', label: 'held by incomplete groups', color: '#e377c2' },
    { key: 'alloc', label: 'allocated', color: '#1f77b4', dash: true }], ''), xmax: XMAX, xTime: true, yLabel: 'GPUs', width: 620 }) + '</div>');

  /* fragmentation */
  html.push('<h2 id="sec-frag">Fragmentation</h2>');
  html.push('<p class="explain"><b>Largest free block</b>: the most GPUs free on any one node, the largest GPU request that could still be placed without moving a pod ' +
    '(free GPUs scattered over nodes do not add up to a block).</p>');
  html.push('<p class="explain"><b>Fragmented GPUs (FGD)</b>: the free GPUs the scenario\'s typical pods could not use, weighted by how often each kind of pod comes, as in ' +
    'the FGD paper (Weng et al., USENIX ATC \'23); the <code>sample</code> table\'s <code>frag_gpus</code>.</p>');
  var fr = [];
  D.runs.forEach(function (r, i) {
    if (!r.free) return;
    fr.push({ label: withRun('free GPUs', i), color: runColor(i) || '#7f7f7f', dash: true, xs: r.free.t, ys: r.free.free, step: true, until: endUs(r) });
    fr.push({ label: withRun('largest free block', i), color: runColor(i) || '#ff7f0e', xs: r.free.t, ys: r.free.largest, step: true, until: endUs(r), width: 2.4 });
  });
  html.push('<div class="charts">' + chart({ title: 'Free GPUs and the largest free block on one node', series: fr, xmax: XMAX, xTime: true, yLabel: 'GPUs' }) +
    chart({ title: 'Fragmented GPUs (FGD measure)', series: overlay([{ key: 'frag', label: 'fragmented GPUs (FGD)', color: '#9467bd' }], ''), xmax: XMAX, xTime: true, yLabel: 'GPUs' }) + '</div>');
  app.innerHTML = html.join('\n');

  /* ---------------------------------------------------------------- Gantt */
  function statusColor(v) {
    if (/CrashLoopBackOff|Error|Failed|OOMKilled/.test(v)) return '#c62828';
    if (/ImagePull|ErrImage|InvalidImage/.test(v)) return '#8e24aa';
    if (/Init|Creating|Pending|PodInitializing/.test(v)) return '#f9a825';
    if (/Running|Completed/.test(v)) { var m = /^(\d+)\/(\d+)/.exec(v); return m && m[1] === m[2] ? '#2e7d32' : '#81c784'; }
    return '#9e9e9e';
  }
  function gantt() {
    var end = D.endUs || XMAX, L = 200, W = 1120, R = 30, lane = 9, gap = 6, rows = [], y = 20;
    function X(t) { return L + (W - L - R) * t / (end || 1); }
    var g = [];
    var xstep = timeStep(end, 8);
    for (var t = 0; t <= end; t += xstep) {
      g.push('<line class="grid" x1="' + X(t) + '" x2="' + X(t) + '" y1="14" y2="100%"/>');
      g.push('<text x="' + X(t) + '" y="11" text-anchor="middle">' + dur(t) + '</text>');
    }
    D.gantt.nodes.forEach(function (gn) {
      var node = D.nodes[gn.n], name = str(node[0]), marks = gn.marks, joined = -1, sched = -1, deleted = end;
      marks.forEach(function (m) {
        var k = str(m[1]);
        if (k === 'Joined' && joined < 0) joined = m[0];
        if (k === 'Schedulable' && sched < 0) sched = m[0];
        if (k === 'Deleted') deleted = m[0];
      });
      var top = y;
      g.push('<text x="4" y="' + (y + 8) + '" style="fill:#1d232b">' + esc(name) + '</text>');
      /* the top bar: allocatable GPUs over time (amber: none yet or none any more) */
      gn.gpus.forEach(function (sp) {
        var c = node[2] === 0 ? '#cfd8dc' : sp[2] > 0 ? '#a5d6a7' : '#f9a825';
        var what = node[2] === 0 ? 'no GPUs (a CPU node)' : sp[2] > 0 ? sp[2] + ' GPUs allocatable' : 'no GPU allocatable';
        g.push('<rect x="' + X(sp[0]) + '" y="' + y + '" width="' + Math.max(1, X(sp[1]) - X(sp[0])) + '" height="' + lane + '" fill="' + c + '"><title>' +
          esc(name + ': ' + what + ' from ' + dur(sp[0]) + ' for ' + dur(sp[1] - sp[0]) + (sched >= 0 && joined >= 0 ? ' (joined at ' + dur(joined) + ', first schedulable at ' + dur(sched) + ')' : '')) + '</title></rect>');
      });
      marks.forEach(function (m) {
        var k = str(m[1]);
        if (k === 'Xid' || k === 'Kernel' || k === 'Cordon') {
          var c = k === 'Xid' ? '#c62828' : k === 'Kernel' ? '#1565c0' : '#616161';
          g.push('<rect x="' + (X(m[0]) - 1) + '" y="' + (y - 1) + '" width="3" height="' + (lane + 2) + '" fill="' + c + '"><title>' + esc(dur(m[0]) + ' ' + k + ' ' + (str(m[2]) || '')) + '</title></rect>');
        }
      });
      y += lane + 2;
      Object.keys(gn.lanes).forEach(function (op) {
        var short = op.replace(/^(nvidia-|gpu-operator-)/, '').replace(/-daemonset$/, '');
        g.push('<text x="14" y="' + (y + 8) + '">' + esc(short) + '</text>');
        gn.lanes[op].forEach(function (sp) {
          var v = str(sp[2]) || '';
          g.push('<rect x="' + X(sp[0]) + '" y="' + y + '" width="' + Math.max(1, X(sp[1]) - X(sp[0])) + '" height="' + lane + '" fill="' + statusColor(v) + '"><title>' +
            esc(name + ' ' + op + ': ' + v + ' from ' + dur(sp[0]) + ' for ' + dur(sp[1] - sp[0])) + '</title></rect>');
        });
        y += lane + 1;
      });
      gn.down.forEach(function (sp) {
        g.push('<rect x="' + X(sp[0]) + '" y="' + top + '" width="' + Math.max(1, X(sp[1]) - X(sp[0])) + '" height="' + (y - top) + '" fill="#455a64" fill-opacity="0.35"><title>' +
          esc(name + ': rebooting into ' + (str(sp[2]) || '?') + ' from ' + dur(sp[0]) + ' for ' + dur(sp[1] - sp[0])) + '</title></rect>');
      });
      y += gap;
      rows.push(name);
    });
    return '<svg width="' + W + '" height="' + (y + 4) + '" viewBox="0 0 ' + W + ' ' + (y + 4) + '" role="img" aria-label="node bring-up">' + g.join('') + '</svg>';
  }

  /* ---------------------------------------------------------------- the step-through */
  if (!D.steps) return;
  var ST = D.steps, EV = ST.events, N = EV.length, NODES = D.nodes, PODS = D.pods;
  var MAPN = Math.min(NODES.length, (D.limits && D.limits.mapNodes) || NODES.length);
  var slider = document.getElementById('slider');
  slider.max = String(N);
  var note = [];
  if (ST.first > 0 || ST.first + N < ST.total)
    note.push('This page steps through events ' + (ST.first + 1) + ' to ' + (ST.first + N) + ' of the trace\'s ' + ST.total +
      ' (gpusim report --html --from T --steps N chooses others); step 0 is the cluster before event ' + (ST.first + 1) + '.');
  if (MAPN < NODES.length) note.push('The map shows the first ' + MAPN + ' of ' + NODES.length + ' nodes.');
  note.push('Open the page at a step with #step=N or at a time with #t=10m40s in its address.');
  document.getElementById('step-note').textContent = note.join(' ');

  function fresh() {
    var s = { k: 0, hold: {}, alloc: ST.initial.allocatable.slice(), present: ST.initial.present.slice(), used: ST.initial.allocated.slice() };
    ST.initial.holds.forEach(function (h) { s.hold[h[0]] = { node: h[1], slots: h[2], milli: h[3] }; });
    return s;
  }
  function copy(s) {
    var h = {};
    Object.keys(s.hold).forEach(function (p) { h[p] = s.hold[p]; });
    return { k: s.k, hold: h, alloc: s.alloc.slice(), present: s.present.slice(), used: s.used.slice() };
  }
  function apply(s, e) {
    e[8].forEach(function (c) {
      if (c[0] >= 0) {
        if (c[1] < 0) delete s.hold[c[0]];
        else s.hold[c[0]] = { node: c[1], slots: c[2], milli: c[3] };
      } else {
        var n = -1 - c[0];
        s.alloc[n] = c[1]; s.present[n] = c[2]; s.used[n] = c[3];
      }
    });
    s.k++;
  }
  var saved = [fresh()], cur = fresh();
  /* the state after k events of the window (snapshots every 256 steps keep going back cheap) */
  function seek(k) {
    k = Math.max(0, Math.min(N, k | 0));
    if (k < cur.k) {
      var b = Math.min(saved.length - 1, k >> 8);
      cur = copy(saved[b]);
    }
    while (cur.k < k) {
      apply(cur, EV[cur.k]);
      if ((cur.k & 255) === 0 && saved.length === cur.k >> 8) saved.push(copy(cur));
    }
    return cur;
  }
  function podColor(p) { return hue(p, 62, 56); }
  function groupColor(g) { return hue(g * 3 + 1, 85, 30); }
  function podName(p) { return p >= 0 && PODS[p] ? str(PODS[p][0]) : ''; }
  function nodeName(n) { return n >= 0 && NODES[n] ? str(NODES[n][0]) : ''; }

  function render(k) {
    var s = seek(k), e = k > 0 ? EV[k - 1] : null;
    slider.value = String(k);
    /* step 0 is the cluster at the window's start (--from), before its first event */
    var t = e ? e[0] : (ST.fromUs || 0);
    document.getElementById('step-info').textContent = 'step ' + k + ' of ' + N + ' · t = ' + dur(t);
    var ev = document.getElementById('event');
    if (e) {
      var reason = str(e[3]), who = e[1] >= 0 ? 'pod ' + podName(e[1]) : 'node ' + nodeName(e[2]) + (e[4] >= 0 ? ' ' + str(e[4]) : '');
      if (e[1] >= 0 && e[2] >= 0) who += ' on ' + nodeName(e[2]);
      var msg = str(e[5]);
      ev.className = /Failed|Preempted|Evicted|Backoff|Error|Rejected/.test(reason) ? 'failed' : reason === 'Scheduled' ? 'bound' : '';
      ev.innerHTML = '<span class="when">' + esc(dur(e[0])) + '</span><span class="reason">' + esc(reason) + '</span><span class="who">' + esc(who) + '</span>' +
        (e[6] > 1 ? '<span class="count">(×' + e[6] + ' until ' + esc(dur(e[7])) + ')</span>' : '') + (msg !== null ? '<span class="msg">' + esc(msg) + '</span>' : '');
      ev.setAttribute('data-reason', reason);
    } else {
      ev.className = '';
      ev.innerHTML = '<span class="when">' + esc(dur(t)) + '</span><span class="reason">start</span><span class="who">the cluster before the first event' + (ST.first > 0 ? ' of this page' : '') + '</span>';
      ev.setAttribute('data-reason', '');
    }
    /* slots per node */
    var byNode = {};
    Object.keys(s.hold).forEach(function (p) {
      var h = s.hold[p];
      (byNode[h.node] = byNode[h.node] || []).push(+p);
    });
    var rows = [], free = 0, largest = 0, allocd = 0, allocatable = 0, shown = {};
    for (var n = 0; n < NODES.length; n++) {
      var present = s.present[n], fr = present ? Math.max(0, s.alloc[n] - s.used[n]) : 0;
      free += fr; if (fr > largest) largest = fr;
      if (present) { allocd += s.used[n]; allocatable += s.alloc[n]; }
      if (n >= MAPN) continue;
      var gpus = NODES[n][2], slots = [], unplaced = [];
      for (var g = 0; g < gpus; g++) slots.push([]);
      (byNode[n] || []).forEach(function (p) {
        var h = s.hold[p];
        if (h.slots.length) h.slots.forEach(function (g) { if (g < gpus) slots[g].push([p, h.milli]); });
        else for (var i = 0; i < PODS[p][2]; i++) unplaced.push(p);
      });
      /* pods whose GPU slots the trace does not name: drawn on the first free slots, hatched */
      for (var g2 = 0; g2 < gpus && unplaced.length; g2++) if (!slots[g2].length) slots[g2].push([unplaced.shift(), 1000, true]);
      var cells = slots.map(function (hs, g) {
        if (!hs.length) return '<span class="slot' + (g >= s.alloc[n] ? ' unavail' : '') + '" data-slot="' + g + '" title="' + esc(nodeName(n) + ' GPU ' + g + (g >= s.alloc[n] ? ': not allocatable' : ': free')) + '"></span>';
        var cls = 'slot held', style, title = nodeName(n) + ' GPU ' + g + ': ' + hs.map(function (x) { return podName(x[0]) + (x[1] !== 1000 ? ' (' + x[1] + ' milli)' : ''); }).join(', ');
        if (hs.length === 1) style = 'background-color:' + podColor(hs[0][0]);
        else {
          var stops = [], acc = 0, tot = hs.reduce(function (a, x) { return a + x[1]; }, 0);
          hs.forEach(function (x) { var a = acc / tot * 100, b = (acc += x[1]) / tot * 100; stops.push(podColor(x[0]) + ' ' + a + '% ' + b + '%'); });
          style = 'background:linear-gradient(to top,' + stops.join(',') + ')';
        }
        var grp = PODS[hs[0][0]][1];
        if (grp >= 0) { cls += ' gang'; style += ';--gang:' + groupColor(grp); title += ' · PodGroup ' + str(grp); }
        if (hs[0][2]) { cls += ' unplaced'; title += ' (GPU not named in the trace)'; }
        if (e && hs.some(function (x) { return x[0] === e[1]; })) cls += ' focus';
        return '<span class="' + cls + '" data-slot="' + g + '" data-pod="' + esc(hs.map(function (x) { return podName(x[0]); }).join(',')) + '" style="' + style + '" title="' + esc(title) + '"></span>';
      });
      hs_legend(byNode[n], shown);
      rows.push('<div class="node' + (present ? '' : ' absent') + (e && e[2] === n ? ' current' : '') + '" data-node="' + esc(nodeName(n)) + '" data-allocated="' + s.used[n] +
        '" data-allocatable="' + s.alloc[n] + '"><span class="name" title="' + esc(nodeName(n) + ' (' + str(NODES[n][1]) + (NODES[n][3] >= 0 ? ', ' + str(NODES[n][3]) : '') + ')') + '">' + esc(nodeName(n)) +
        '</span><span class="count">' + (present ? s.used[n] + ' of ' + s.alloc[n] + ' GPUs' : 'not in the cluster') + '</span><span class="slots">' + cells.join('') + '</span></div>');
    }
    document.getElementById('map').innerHTML = rows.join('');
    document.getElementById('cluster-line').textContent = 'GPUs allocated ' + allocd + ' of ' + allocatable + ' allocatable · free ' + free + ' · largest free block on one node ' + largest;
    document.getElementById('pod-legend').innerHTML = Object.keys(shown).sort(function (a, b) { return a - b; }).slice(0, 40).map(function (p) {
      var grp = PODS[p][1];
      return '<span><b style="background:' + podColor(+p) + '"></b>' + esc(podName(+p)) + (grp >= 0 ? ' (' + esc(str(grp)) + ')' : '') + '</span>';
    }).join('');
    /* PodGroups: how many of each group's pods hold GPUs now */
    var holding = {};
    Object.keys(s.hold).forEach(function (p) { var g = PODS[p] ? PODS[p][1] : -1; if (g >= 0) holding[str(g)] = (holding[str(g)] || 0) + 1; });
    document.getElementById('groups-line').textContent = Object.keys(D.groups || {}).sort().map(function (g) {
      return 'PodGroup ' + g + ': ' + (holding[g] || 0) + ' of its ' + D.groups[g] + ' pods hold GPUs';
    }).join(' · ');
    var lis = [];
    for (var j = Math.max(1, k - 5); j <= Math.min(N, k + 3); j++) {
      var x = EV[j - 1];
      lis.push('<li' + (j === k ? ' class="cur"' : '') + '>' + (j === k ? '▶ ' : '') + j + '. ' + esc(dur(x[0])) + ' ' + esc(str(x[3])) + ' ' +
        esc(x[1] >= 0 ? podName(x[1]) : nodeName(x[2]) + (x[4] >= 0 ? ' ' + str(x[4]) : '')) + (str(x[5]) ? ': ' + esc(str(x[5])) : '') + '</li>');
    }
    document.getElementById('recent').innerHTML = lis.join('');
    keepAddress(k);
  }
  /* the address follows the step, once stepping pauses (browsers throttle frequent history updates) */
  var addrTimer = null;
  function keepAddress(k) {
    if (addrTimer) clearTimeout(addrTimer);
    addrTimer = setTimeout(function () {
      addrTimer = null;
      try { history.replaceState(null, '', '#step=' + k); } catch (err) { /* refused: the address keeps its fragment */ }
    }, 400);
  }
  function hs_legend(list, shown) { (list || []).forEach(function (p) { shown[p] = 1; }); }

  var step = 0;
  function go(k) { step = Math.max(0, Math.min(N, k)); render(step); }
  /* #step=N, or #t=DURATION: after every event at or before that time */
  function fromHash() {
    var h = decodeURIComponent(location.hash.replace(/^#/, '')), m;
    if ((m = /^step=(\d+)$/.exec(h))) return go(+m[1]);
    if ((m = /^t=(.+)$/.exec(h))) {
      var t = parseDur(m[1]);
      if (!isNaN(t)) { var k = 0; while (k < N && EV[k][0] <= t) k++; return go(k); }
    }
    go(step);
  }
  slider.addEventListener('input', function () { go(+slider.value); });
  document.getElementById('btn-first').addEventListener('click', function () { go(0); });
  document.getElementById('btn-prev').addEventListener('click', function () { go(step - 1); });
  document.getElementById('btn-next').addEventListener('click', function () { go(step + 1); });
  document.getElementById('btn-last').addEventListener('click', function () { go(N); });
  var timer = null, play = document.getElementById('btn-play');
  play.addEventListener('click', function () {
    if (timer) { clearInterval(timer); timer = null; play.textContent = 'play'; return; }
    if (step >= N) go(0);
    play.textContent = 'pause';
    timer = setInterval(function () { if (step >= N) { clearInterval(timer); timer = null; play.textContent = 'play'; } else go(step + 1); }, 500);
  });
  window.addEventListener('hashchange', fromHash);
  fromHash();
})();
