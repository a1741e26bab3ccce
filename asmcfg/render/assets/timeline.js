"use strict";
(function () {
  const data = JSON.parse(document.getElementById("timeline").textContent);
  const t = data.timeline;
  const CATS = ["interpreter", "c1", "c2", "jvmci", "compiler_threads", "gc", "jvm_other", "kernel", "other"];
  const COLOURS = {interpreter: "#f2c94c", c1: "#6fa8dc", c2: "#cc4125", jvmci: "#8e7cc3", compiler_threads: "#93c47d",
    gc: "#76a5af", jvm_other: "#b7b7b7", kernel: "#666666", other: "#d5a6bd"};
  const BAR = {c1: "#6fa8dc", c2: "#cc4125", jvmci: "#8e7cc3"};
  const MARK = {uncommon_trap: "#c00000", make_not_entrant: "#555555", deoptimized: "#e69138", osr_migration: "#38761d"};
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.getElementById("chart");
  const LEFT = 230, RIGHT = 16, STACK = 170, ROW = 16, MOST_ROWS = 30;
  let view = [0, Math.max(1, t.end_ms)];
  let chosen = null;

  document.getElementById("title").textContent = data.title;
  const total = t.buckets.reduce((n, b) => n + CATS.reduce((m, c) => m + b[c], 0), 0);
  document.getElementById("summary").textContent = t.end_ms.toLocaleString("en") + " ms, " +
    total.toLocaleString("en") + " samples, " + t.bucket_ms + " ms buckets; " + t.warm_up;
  const legend = document.getElementById("legend");
  for (const c of CATS) {
    const span = document.createElement("span");
    const box = document.createElement("i");
    box.style.background = COLOURS[c];
    span.append(box, c);
    legend.append(span);
  }

  const methods = rows();

  function rows() {
    const by = new Map();
    for (const c of t.compilations) {
      if (c.start_ms === null || c.kind === "c2n") continue;
      const key = c.method + (c.osr_bci === null ? "" : " (OSR)");
      const row = by.get(key) || {method: c.method, name: key, samples: 0, versions: []};
      row.samples += c.samples;
      row.versions.push(c);
      by.set(key, row);
    }
    const story = t.story ? t.story.method : null;
    return [...by.values()].sort((a, b) => (b.method === story) - (a.method === story) || b.samples - a.samples ||
      b.versions.length - a.versions.length).slice(0, MOST_ROWS);
  }

  function el(name, attrs, parent) {
    const node = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    (parent || svg).append(node);
    return node;
  }

  function draw() {
    const width = Math.max(600, document.body.clientWidth);
    const plot = width - LEFT - RIGHT;
    const height = STACK + 40 + methods.length * ROW + 24;
    svg.setAttribute("width", width);
    svg.setAttribute("height", height);
    svg.replaceChildren();
    const x = (ms) => LEFT + (ms - view[0]) / (view[1] - view[0]) * plot;
    el("rect", {x: LEFT, y: 0, width: plot, height: height, fill: "#fff", id: "plot"});
    axis(x, height);
    stack(x, plot);
    events(x);
    bars(x);
    if (t.steady_state_ms !== null && t.steady_state_ms >= view[0] && t.steady_state_ms <= view[1]) {
      el("line", {x1: x(t.steady_state_ms), x2: x(t.steady_state_ms), y1: 0, y2: height - 20, stroke: "#000",
        "stroke-dasharray": "4 3", id: "warm"});
      const label = el("text", {x: x(t.steady_state_ms) + 3, y: 10});
      label.textContent = "warm-up";
    }
    el("rect", {x: 0, y: 0, width: 0, height: height, fill: "rgba(40,90,200,0.15)", id: "brush", visibility: "hidden"});
  }

  function stack(x, plot) {
    const shown = t.buckets.filter((b) => b.t_ms + t.bucket_ms > view[0] && b.t_ms < view[1]);
    const most = Math.max(1, ...shown.map((b) => CATS.reduce((m, c) => m + b[c], 0)));
    const label = el("text", {x: 4, y: 14});
    label.textContent = "samples per " + t.bucket_ms + " ms";
    for (const b of shown) {
      let y = STACK;
      const left = Math.max(LEFT, x(b.t_ms)), right = Math.min(LEFT + plot, x(b.t_ms + t.bucket_ms));
      for (const c of CATS) {
        if (!b[c]) continue;
        const h = b[c] / most * (STACK - 20);
        y -= h;
        const r = el("rect", {x: left, y: y, width: Math.max(0.5, right - left), height: h, fill: COLOURS[c],
          class: "sample"});
        el("title", {}, r).textContent = b.t_ms + " ms: " + b[c] + " " + c;
      }
    }
  }

  function events(x) {
    const y = STACK + 14;
    const label = el("text", {x: 4, y: y + 4});
    label.textContent = "events";
    for (const e of t.events) {
      if (e.t_ms < view[0] || e.t_ms > view[1]) continue;
      const m = el("line", {x1: x(e.t_ms), x2: x(e.t_ms), y1: y - 6, y2: y + 6, stroke: MARK[e.kind],
        "stroke-width": e.kind === "uncommon_trap" ? 2 : 1, class: "event " + e.kind});
      el("title", {}, m).textContent = e.t_ms + " ms " + e.kind + (e.reason ? " " + e.reason : "") +
        (e.method ? " " + e.method : "") + (e.bci !== null ? "@" + e.bci : "") +
        (e.line !== null ? " (line " + e.line + ")" : "") + (e.compile_id !== null ? " id " + e.compile_id : "");
    }
  }

  function bars(x) {
    methods.forEach((row, n) => {
      const y = STACK + 32 + n * ROW;
      const name = el("text", {x: 4, y: y + 11});
      name.textContent = row.name.length > 34 ? "…" + row.name.slice(-33) : row.name;
      for (const c of row.versions) {
        const end = c.end_ms === null ? t.end_ms : c.end_ms;
        if (end < view[0] || c.start_ms > view[1]) continue;
        const left = Math.max(LEFT, x(c.start_ms)), right = Math.min(x(view[1]), x(end));
        const bar = el("rect", {x: left, y: y + 2, width: Math.max(2, right - left), height: ROW - 4,
          fill: BAR[c.compiler] || "#999", "fill-opacity": c.osr_bci === null ? 0.9 : 0.45,
          class: "bar" + (chosen === c.compile_id ? " chosen" : ""), "data-id": c.compile_id});
        el("title", {}, bar).textContent = "id " + c.compile_id + " " + c.compiler + " tier " + c.level;
        bar.addEventListener("click", (event) => { event.stopPropagation(); choose(c); });
      }
    });
  }

  function axis(x, height) {
    const y = height - 8;
    const step = nice((view[1] - view[0]) / 8);
    for (let ms = Math.ceil(view[0] / step) * step; ms <= view[1]; ms += step) {
      el("line", {x1: x(ms), x2: x(ms), y1: STACK, y2: y - 10, stroke: "#eee"});
      const label = el("text", {x: x(ms) - 10, y: y});
      label.textContent = ms.toLocaleString("en") + " ms";
    }
  }

  function nice(raw) {
    const scale = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1))));
    for (const f of [1, 2, 5, 10]) if (f * scale >= raw) return f * scale;
    return 10 * scale;
  }

  function choose(c) {
    if (data.served && data.pages[c.compile_id]) {  // asmcfg serve: the bar opens that compilation's page
      window.location.assign(data.pages[c.compile_id]);
      return;
    }
    chosen = c.compile_id;
    // as the text's story says it: "212 to 1,642 ms, 554 samples; ended: uncommon trap … at Phases::hot@15 (line 8)"
    const ms = (v) => v === null ? "?" : v.toLocaleString("en");
    const ended = c.trap ? "uncommon trap " + c.trap.reason + " (" + c.trap.action + ") at " + c.trap.method + "@" +
      c.trap.bci + (c.trap.line !== null ? " (line " + c.trap.line + ")" : "") : c.end_reason;
    const detail = document.getElementById("detail");
    detail.textContent = "id " + c.compile_id + " " + c.compiler + " tier " + c.level +
      (c.osr_bci !== null ? " OSR at bci " + c.osr_bci : "") + " " + c.method + "\n" + ms(c.start_ms) + " to " +
      ms(c.end_ms) + " ms, " + c.samples.toLocaleString("en") + (c.samples === 1 ? " sample" : " samples") +
      "; ended: " + ended + "\n";
    const command = document.createElement("code");
    command.textContent = "  asmcfg " + data.input + " --compile-id " + c.compile_id + " --html id-" + c.compile_id +
      ".html";
    if (!data.served) {  // the server links only the compilations its index has
      const link = document.createElement("a");
      link.href = "id-" + c.compile_id + ".html";
      link.id = "open";
      link.textContent = "open its page (id-" + c.compile_id + ".html, beside an --all --html export)";
      detail.append(link);
    }
    detail.append(command);
    draw();
  }

  let start = null;
  svg.addEventListener("mousedown", (event) => {
    if (event.target.classList.contains("bar")) return;
    start = event.offsetX;
  });
  svg.addEventListener("mousemove", (event) => {
    if (start === null) return;
    const brush = document.getElementById("brush");
    brush.setAttribute("visibility", "visible");
    brush.setAttribute("x", Math.min(start, event.offsetX));
    brush.setAttribute("width", Math.abs(event.offsetX - start));
  });
  svg.addEventListener("mouseup", (event) => {
    if (start === null) return;
    const a = Math.max(LEFT, Math.min(start, event.offsetX)), b = Math.max(start, event.offsetX);
    start = null;
    if (b - a < 4) { document.getElementById("brush").setAttribute("visibility", "hidden"); return; }
    const plot = svg.clientWidth - LEFT - RIGHT;
    const ms = (px) => view[0] + (px - LEFT) / plot * (view[1] - view[0]);
    zoom(Math.round(ms(a)), Math.round(Math.min(ms(b), view[1])));
  });
  svg.addEventListener("dblclick", () => zoom(0, Math.max(1, t.end_ms)));

  function zoom(from, to) {
    view = [from, Math.max(to, from + 1)];
    const range = document.getElementById("range");
    const whole = from === 0 && to >= t.end_ms;
    range.textContent = whole ? "the whole run" :
      "from " + from.toLocaleString("en") + " to " + to.toLocaleString("en") + " ms: asmcfg " + data.input +
      " --from " + from + " --to " + to + " keeps these samples alone";
    if (data.served && !whole && total) range.append(" ", index("?from=" + from + "&to=" + to,
      "the index of these samples alone", "apply"));
    document.body.dataset.view = view.join("-");
    draw();
  }

  // asmcfg serve: the index of the whole run, of the warm-up alone or of the steady state alone
  function index(query, text, id) {
    const link = document.createElement("a");
    link.href = "/" + query;
    link.textContent = text;
    if (id) link.id = id;
    return link;
  }
  if (data.served) {
    const line = document.createElement("div");
    line.id = "ranges";
    line.append(index("", "\u2190 all compilations (the whole run)"));
    if (t.steady_state_ms !== null && total) {
      line.append(" \u00b7 ", index("?to=" + t.steady_state_ms, "the warm-up alone (before " +
        t.steady_state_ms.toLocaleString("en") + " ms)", "warm-up"), " \u00b7 ",
        index("?from=" + t.steady_state_ms, "the steady state alone", "steady"));
    }
    document.getElementById("summary").before(line);
    document.getElementById("detail").textContent = "Click a compilation's bar to open its page.";
  }

  window.addEventListener("resize", draw);
  draw();
  document.body.dataset.ready = "1";
})();
