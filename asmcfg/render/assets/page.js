// asmcfg's report page: pan/zoom over Graphviz's SVG, a minimap, search, the block panel, folds, source.
// Everything it shows comes from the JSON model in #model; it computes no facts of its own.
"use strict";
(() => {
  const MODEL = JSON.parse(document.getElementById("model").textContent);
  const V = MODEL.vocabulary;
  const MIN_READABLE = 1.0; // 10-unit text is 10 px tall at zoom 1
  const $ = (sel, root = document) => root.querySelector(sel);

  // Text shown with each bidirectional control or invisible character written as the DOT writer writes it
  // (U+202E -> \x202e, U+200B -> \x200b): a name holding one cannot read as another. Only what is shown
  // changes; the model's text stays as read.
  const HIDDEN = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2060-\u2064\u206a-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\u{1d173}-\u{1d17a}\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]/gu;
  const visible = (text) => String(text).replace(HIDDEN, (c) => "\\x" + c.codePointAt(0).toString(16).padStart(2, "0"));

  // h("td", {class: "x", onclick: f}, "text", child) -> element; text is always set as text, never as HTML.
  function h(tag, props, ...kids) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (key === "class") node.className = value;
      else node.setAttribute(key, value === true ? "" : key === "title" ? visible(value) : value);
    }
    for (const kid of kids.flat(Infinity)) {
      if (kid === null || kid === undefined || kid === false) continue;
      node.append(kid instanceof Node ? kid : visible(kid));
    }
    return node;
  }
  // href: a keyboard reaches the link with Tab and follows it with Enter, as a mouse does with a click
  const link = (text, onclick, title) => h("a", {href: "#", onclick: (e) => { e.preventDefault(); onclick(); }, title}, text);
  const short = (addr) => addr.replace(/^0x/, "");
  const pct = (v) => (v === undefined || v === null ? "" : v.toFixed(2) + "%");
  const count = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`; // "1 block", "2 blocks" (describe.count)
  const fileBase = (path) => path.split("/").pop();
  // Inside `asmcfg diff --html`, each side is this page in a frame: it tells the frame's parent what the user
  // selects and takes from it the diff's colours and which block or loop to show.
  const EMBEDDED = window.parent !== window;
  const tell = (message) => { if (EMBEDDED) window.parent.postMessage({asmcfg: 1, ...message}, "*"); };

  // ---------------------------------------------------------------- one compilation's view
  class View {
    constructor(n) {
      this.n = n;
      this.m = MODEL.methods[n];
      this.page = this.m.page;
      this.events = this.m.profile ? this.m.profile.events : [];
      // Graphviz could not draw it: its blocks are listed, one box each, and every block stands for itself.
      const drawing = this.page.drawing || {how: "drawn", note: null};
      this.drawn = drawing.how !== "not_drawn";
      this.index();
      if (!this.drawn) this.foldOf = new Map();
      const canvas = $("#canvas");
      canvas.replaceChildren(this.drawn ? document.getElementById("svg" + n).content.cloneNode(true) : listing(this));
      this.canvas = canvas;
      const note = $("#draw-note");
      note.hidden = !drawing.note;
      $("#draw-note-text").textContent = visible(drawing.note || "");
      if (this.drawn) {
        this.svg = canvas.querySelector("svg");
        this.width = this.svg.viewBox.baseVal.width;
        this.height = this.svg.viewBox.baseVal.height;
        const shift = /translate\(([-\d.]+)[ ,]([-\d.]+)\)/.exec($("g.graph", this.svg).getAttribute("transform") || "");
        this.origin = shift ? [parseFloat(shift[1]), parseFloat(shift[2])] : [0, 0];
      } else {
        this.svg = canvas.querySelector(".listing");
        this.width = this.svg.offsetWidth;
        this.height = this.svg.offsetHeight;
        this.origin = [0, 0];
      }
      this.nodes = new Map();
      for (const g of this.svg.querySelectorAll("g[data-block], div.listed[data-block]")) this.nodes.set(g.dataset.block, g);
      for (const g of this.svg.querySelectorAll("g[data-fold]")) this.nodes.set(g.dataset.fold, g);
      this.scale = 1; this.tx = 0; this.ty = 0;
      this.selected = null; this.matches = []; this.current = -1; this.open = new Map();
      this.pane = $("#graph-pane");
      $("#title").textContent = visible(this.page.title);
      $("#title").title = visible(this.page.title) + flagsText(this.m.flags).map((t) => "\n" + t).join("");
      this.minimap = new Minimap(this);
      this.source = new SourcePane(this);
      this.bytecode = new BytecodePane(this);
      fillTables(this);
      fillLegend(this);
      fillFindings(this);
      fillInlining(this);
      $("#details").replaceChildren(h("p", {class: "hint"}, "Click a block to see its instructions, debug info, checks and trap."));
      showTab("tables"); // the summary until a block is clicked
      // the source, the bytecode and the panel together leave the graph a sliver (1280 px): the panel then waits
      // for a click on a block, a line or a bytecode (or its button), as in a diff's frame
      if (this.pane.clientWidth < GRAPH_LEAST) setPane("toggle-side", false);
      this.paneSize = [this.pane.clientWidth, this.pane.clientHeight];
      this.focusHot();
      if (this.coveredByMap()) setPane("toggle-map", false); // shown again with the "overview" button
    }

    // Lookups the panel and the search need, built once from the model.
    index() {
      const m = this.m;
      this.blocks = m.blocks;
      this.preds = new Map(); this.succs = new Map();
      for (const e of m.edges) {
        if (!this.succs.has(e.from)) this.succs.set(e.from, []);
        this.succs.get(e.from).push(e);
        if (typeof e.to === "number") {
          if (!this.preds.has(e.to)) this.preds.set(e.to, []);
          this.preds.get(e.to).push(e);
        }
      }
      this.foldOf = new Map();
      for (const f of this.page.folds) for (const b of f.blocks) this.foldOf.set(b, f);
      this.checksFrom = new Map(); this.checksInto = new Map();
      for (const c of this.page.checks) {
        if (!this.checksFrom.has(c.from)) this.checksFrom.set(c.from, []);
        this.checksFrom.get(c.from).push(c);
        const last = c.trap_block === null ? c.to : c.trap_block;
        for (let b = c.to; b <= last; b++) {
          if (!this.checksInto.has(b)) this.checksInto.set(b, []);
          this.checksInto.get(b).push(c);
        }
      }
      this.loopsOf = new Map();
      for (const loop of m.loops) for (const b of loop.blocks) {
        if (!this.loopsOf.has(b)) this.loopsOf.set(b, []);
        this.loopsOf.get(b).push(loop);
      }
      this.siteAddress = (block, site) => {
        const offset = site - this.firstIndex(block);
        const ins = this.blocks[block].instructions[offset];
        return ins ? ins.address : "";
      };
    }

    firstIndex(block) { // index of the block's first instruction in the method
      let count = 0;
      for (let b = 0; b < block; b++) count += this.blocks[b].instructions.length;
      return count;
    }

    nodeOf(block) { // the drawn node of a block: its own, or its folded chain's
      const fold = this.foldOf.get(block);
      return this.nodes.get(fold ? fold.name : "B" + block);
    }

    box(el) { // an element's box in canvas pixels (zoom 1)
      if (!(el instanceof SVGElement)) return this.htmlBox(el);
      const b = el.getBBox();
      return {x: b.x + this.origin[0], y: b.y + this.origin[1], w: b.width, h: b.height};
    }

    apply() {
      this.canvas.style.transform = `translate(${this.tx}px, ${this.ty}px) scale(${this.scale})`;
      this.minimap.drawView();
    }

    zoomAt(factor, px, py) {
      const next = Math.min(4, Math.max(0.02, this.scale * factor));
      this.tx = px - (px - this.tx) * (next / this.scale);
      this.ty = py - (py - this.ty) * (next / this.scale);
      this.scale = next;
      this.apply();
    }

    fit() {
      const w = this.pane.clientWidth, hgt = this.pane.clientHeight;
      this.scale = Math.min(w / this.width, hgt / this.height, 1.5);
      this.tx = (w - this.width * this.scale) / 2;
      this.ty = (hgt - this.height * this.scale) / 2;
      this.apply();
    }

    // Show `rect` (canvas pixels) whole if it fits at a readable zoom, else its top centred at that zoom.
    // Left of the overview when the rect fits there, so the overview covers none of it.
    show(rect, maxScale = 1.5, top = false) {
      const full = this.pane.clientWidth, hgt = this.pane.clientHeight, pad = 24;
      const map = $("#minimap").classList.contains("collapsed") ? 0 : $("#minimap").width + 20;
      const w = map && (full - map - pad) >= rect.w * MIN_READABLE ? full - map : full;
      const fit = Math.min((w - pad) / rect.w, (hgt - pad) / rect.h);
      this.scale = Math.max(MIN_READABLE, Math.min(fit, maxScale));
      this.tx = w / 2 - (rect.x + rect.w / 2) * this.scale;
      const tall = top || rect.h * this.scale > hgt - pad;
      const note = $("#draw-note").hidden ? 0 : $("#draw-note").offsetHeight; // the top it covers
      this.ty = tall ? 4 + note - rect.y * this.scale : hgt / 2 - (rect.y + rect.h / 2) * this.scale;
      this.apply();
    }

    centreOn(el) {
      const r = el instanceof SVGElement ? this.box(el) : this.htmlBox(el);
      const w = this.pane.clientWidth, hgt = this.pane.clientHeight;
      if (this.scale < MIN_READABLE) this.scale = MIN_READABLE;
      this.tx = w / 2 - (r.x + r.w / 2) * this.scale;
      this.ty = Math.min(hgt / 2 - (r.y + r.h / 2) * this.scale, 24 - r.y * this.scale);
      this.apply();
    }

    coveredByMap() { // whether the overview lies over a drawn block
      const map = $("#minimap").getBoundingClientRect();
      return [...this.nodes.values()].some((n) => {
        const r = n.getBoundingClientRect();
        return r.right > map.left && r.left < map.right && r.bottom > map.top && r.top < map.bottom;
      });
    }

    htmlBox(el) {
      const r = el.getBoundingClientRect(), c = this.canvas.getBoundingClientRect();
      return {x: (r.left - c.left) / this.scale, y: (r.top - c.top) / this.scale, w: r.width / this.scale, h: r.height / this.scale};
    }

    // Whether `rect` (canvas pixels) fits in the pane at the readable zoom.
    fits(rect) {
      const pad = 24;
      return rect.w * MIN_READABLE <= this.pane.clientWidth - pad && rect.h * MIN_READABLE <= this.pane.clientHeight - pad;
    }

    // The hot loop (the model's focus_loop) whole when it fits at a readable zoom, else its hottest blocks
    // (focus_blocks, measured), else the hottest one of them; without a profile the loop whole, else its header
    // block whole at the top (also when the loops were drawn without clusters), else the hot path's start.
    focusHot() {
      if (!this.drawn) return this.focusListed();
      const header = this.page.focus_loop;
      const cluster = header === null ? null : this.svg.querySelector(`g#loop${header}`);
      const hot = (this.page.focus_blocks || []).map((b) => this.nodeOf(b)).filter(Boolean);
      if (cluster && this.fits(this.box(cluster))) return this.show(this.box(cluster));
      if (hot.length) {
        const boxes = hot.map((n) => this.box(n));
        const union = boxes.reduce((a, b) => {
          const x = Math.min(a.x, b.x), y = Math.min(a.y, b.y);
          return {x, y, w: Math.max(a.x + a.w, b.x + b.w) - x, h: Math.max(a.y + a.h, b.y + b.h) - y};
        });
        return this.show(this.fits(union) ? union : boxes[0], 1.5, !this.fits(union) && !this.fits(boxes[0]));
      }
      const head = header === null ? null : this.nodeOf(header);
      if (head) return this.showHeader(cluster ? this.box(cluster) : null, this.box(head));
      const first = this.page.bold_path.length ? this.nodeOf(this.page.bold_path[0]) : this.nodes.values().next().value;
      if (first) this.show(this.box(first), 1.0, true); else this.fit();
    }

    // A loop too large for the pane at a readable zoom: its top with its header block whole, the view centred on
    // the loop's middle as far as that keeps the header in (its left edge first when it is wider than the pane).
    showHeader(loop, head) {
      const w = this.pane.clientWidth, pad = 12;
      const note = $("#draw-note").hidden ? 0 : $("#draw-note").offsetHeight;
      this.scale = MIN_READABLE;
      const middle = loop ? loop.x + loop.w / 2 : head.x + head.w / 2;
      let tx = w / 2 - middle * this.scale;
      tx = Math.min(tx, w - pad - (head.x + head.w) * this.scale);  // its right edge in
      tx = Math.max(tx, pad - head.x * this.scale);  // its left edge in, first
      this.tx = tx;
      // the loop's top (its label) at the top when its header still shows whole below it, else the header's
      const hgt = this.pane.clientHeight - note - 2 * pad;
      const top = loop && (head.y + head.h - loop.y) * this.scale <= hgt ? loop.y : head.y;
      this.ty = pad + note - top * this.scale;
      this.apply();
    }

    // The listing at zoom 1: its hottest block (or the hot loop's header) near the top, else its first lines.
    focusListed() {
      const pick = (this.page.focus_blocks || [])[0] ?? this.page.focus_loop;
      const node = pick === null || pick === undefined ? null : this.nodeOf(pick);
      const top = $("#draw-note").offsetHeight + 16;
      this.scale = 1;
      this.tx = 12;
      this.ty = node ? Math.min(top, top - this.box(node).y) : top;
      this.apply();
    }

    // ------------------------------------------------------------ selection and the block panel
    select(block, move, quiet) {
      for (const el of this.svg.querySelectorAll(".selected, .linked, .peer")) el.classList.remove("selected", "linked", "peer");
      for (const el of this.canvas.querySelectorAll(".mini.selected")) el.classList.remove("selected");
      this.selected = block;
      const fold = this.foldOf.get(block);
      let target = this.nodeOf(block);
      if (fold) {
        const box = this.expand(fold);
        target = box.querySelector(`[data-block="B${block}"]`);
      }
      if (target) target.classList.add("selected");
      for (const c of this.checksFrom.get(block) || []) {
        const last = c.trap_block === null ? c.to : c.trap_block;
        for (let b = c.to; b <= last; b++) { const n = this.nodeOf(b); if (n) n.classList.add("linked"); }
      }
      if (!quiet && setPane("toggle-side", true)) { // the panel opened: the block stays in view
        this.paneSize = [this.pane.clientWidth, this.pane.clientHeight];
        move = true;
      }
      if (move && target) this.centreOn(target);
      showTab("details");
      $("#details").replaceChildren(...blockPanel(this, block));
      this.source.markBlock(block);
      this.bytecode.markBlock(block);
      if (!quiet) tell({type: "block", block});
      return target;
    }

    // A loop cluster clicked here (`quiet`: shown for the other side of a diff): outline it and centre on it.
    selectLoop(header, quiet) {
      const cluster = this.svg.querySelector(`g#loop${header}`);
      if (!cluster) return;
      for (const el of this.svg.querySelectorAll(".selected, .linked, .peer")) el.classList.remove("selected", "linked", "peer");
      cluster.classList.add(quiet ? "peer" : "selected");
      this.show(this.box(cluster));
      if (!quiet) tell({type: "loop", header});
    }

    // The diff's colours: blocks holding an added, removed or changed item, and loops by their status.
    paintDiff(marks) {
      for (const [block, state] of Object.entries(marks.blocks)) {
        const node = this.nodeOf(+block);
        if (!node) continue;
        node.classList.add("diff-" + state);
        for (const shape of node.querySelectorAll(":scope > path, :scope > polygon")) {
          shape.setAttribute("fill", marks.fills[state]);
          shape.setAttribute("stroke", marks.colours[state]);
          shape.setAttribute("stroke-width", "3");
        }
      }
      for (const [header, state] of Object.entries(marks.loops)) {
        const cluster = this.svg.querySelector(`g#loop${header}`);
        if (!cluster || state === "same") continue;
        cluster.classList.add("diff-" + state);
        for (const shape of cluster.querySelectorAll(":scope > path, :scope > polygon")) {
          shape.setAttribute("stroke", marks.colours[state]);
          shape.setAttribute("stroke-width", "4");
        }
      }
      this.minimap = new Minimap(this);
      this.apply();
    }

    selectFold(fold) {
      if (this.open.has(fold.name)) this.collapse(fold); else this.centreOn(this.expand(fold));
      $("#details").replaceChildren(...foldPanel(this, fold));
      showTab("details");
    }

    // The expansion goes in a column right of the drawn graph, level with its folded node (below any box already
    // open there), so it covers no other block; the folded node stays outlined while it is open.
    expand(fold) {
      if (this.open.has(fold.name)) return this.open.get(fold.name);
      const node = this.nodes.get(fold.name);
      const r = this.box(node);
      let top = r.y;
      for (const other of this.open.values()) {
        const o = this.htmlBox(other);
        if (o.y + o.h + 12 > top && o.y < top + 40) top = o.y + o.h + 12;
      }
      node.classList.add("unfolded");
      const box = h("div", {class: "fold-box", "data-fold": fold.name, style: `left:${this.width + 24}px;top:${top}px`},
        h("div", {class: "fold-head"}, `${fold.name}: ${fold.blocks.length} blocks `, link("[collapse]", () => this.collapse(fold))));
      for (const b of fold.blocks) {
        const blk = this.blocks[b];
        const lines = [`B${b}  ${short(blk.start)}  ${blk.tags.join(", ")}`];
        for (const ins of blk.instructions) lines.push(`${short(ins.address)}  ${ins.mnemonic} ${ins.operands}`);
        if (blk.trap) lines.push(`trap: ${blk.trap.reason} / ${blk.trap.action} at ${blk.trap.bytecode}@${blk.trap.bci} line ${blk.trap.line}`);
        const colour = fillOf(blk.tags);
        box.append(h("div", {class: "mini", "data-block": "B" + b, style: `background:${colour}`, onclick: (e) => { e.stopPropagation(); this.select(b); }}, lines.join("\n")));
      }
      box.addEventListener("mousedown", (e) => e.stopPropagation());
      this.canvas.append(box);
      this.open.set(fold.name, box);
      this.markMatches();
      return box;
    }

    collapse(fold) {
      const box = this.open.get(fold.name);
      if (box) box.remove();
      this.nodes.get(fold.name).classList.remove("unfolded");
      this.open.delete(fold.name);
    }

    // ------------------------------------------------------------ search
    search(query) {
      const found = searchBlocks(this, query.trim());
      this.matches = found.blocks;
      this.matchedAddresses = found.addresses;
      this.current = -1;
      this.markMatches();
      $("#search-status").textContent = query.trim() ? count(found.blocks.length, "block") : "";
    }

    markMatches() {
      for (const el of this.canvas.querySelectorAll(".match, .current")) el.classList.remove("match", "current");
      for (const b of this.matches || []) {
        const node = this.nodeOf(b);
        if (node) node.classList.add("match");
        const mini = this.canvas.querySelector(`.mini[data-block="B${b}"]`);
        if (mini) mini.classList.add("match");
      }
    }

    step(back) {
      if (!this.matches.length) return;
      this.current = (this.current + (back ? -1 : 1) + this.matches.length) % this.matches.length;
      const block = this.matches[this.current];
      this.select(block, true);
      const node = this.nodeOf(block);
      if (node) node.classList.add("current");
      $("#search-status").textContent = `${this.current + 1} / ${this.matches.length} blocks`;
    }
  }

  // The blocks of a compilation Graphviz could not draw, in address order: what a node of the graph would say
  // (block, start, tags, instructions, trap) and where it goes.
  function listing(view) {
    const list = h("div", {class: "listing"});
    for (const blk of view.blocks) {
      const lines = [`B${blk.id}  ${short(blk.start)}${blk.tags.length ? "  [" + blk.tags.join(", ") + "]" : ""}`];
      for (const ins of blk.instructions) lines.push(`  ${short(ins.address)}  ${ins.mnemonic} ${ins.operands}`.trimEnd());
      if (blk.trap) lines.push(`  trap: ${blk.trap.reason} / ${blk.trap.action}`);
      const out = (view.succs.get(blk.id) || []).map((e) => (typeof e.to === "number" ? `B${e.to}` : e.to) + ` (${e.kind})`);
      if (out.length) lines.push(`  -> ${out.join(", ")}`);
      const colour = fillOf(blk.tags);
      list.append(h("div", {class: "listed", "data-block": "B" + blk.id, "data-fill": colour, style: `background:${colour}`}, lines.join("\n")));
    }
    return list;
  }

  function fillOf(tags) {
    const order = ["uncommon_trap", "range_check", "null_check", "exception_handler", "deopt_handler", "stub", "ic_miss"];
    for (const t of order) if (tags.includes(t)) return V.tags.find((x) => x.tag === t).colour;
    return "#ffffff";
  }

  // ---------------------------------------------------------------- search: addresses, mnemonics, methods, @bci, line N
  function searchBlocks(view, q) {
    const blocks = new Set(), addresses = new Set();
    if (!q) return {blocks: [], addresses};
    const lower = q.toLowerCase();
    const add = (b, ins) => { blocks.add(b); if (ins) addresses.add(ins.address); };
    let test;
    let m;
    if ((m = /^line\s+(\d+)$/i.exec(q))) {
      const line = +m[1];
      test = (ins) => (ins.frames || []).some((f) => f.line === line);
      for (const b of view.blocks) if (b.source && b.source.line === line) blocks.add(b.id);
    } else if ((m = /^@(\d+)$/.exec(q))) {
      const bci = +m[1];
      test = (ins) => (ins.frames || []).some((f) => f.bci === bci);
    } else if ((m = /^B(\d+)$/i.exec(q)) && +m[1] < view.blocks.length) { // a block by its name (before addresses: B9 is hex)
      return {blocks: [+m[1]], addresses};
    } else if (/^(0x)?0*[0-9a-f]+$/i.test(q) && (/^0x/i.test(q) || /\d/.test(q)) && q.replace(/^0x0*/i, "").length >= 2) {
      const hex = lower.replace(/^0x/, "").replace(/^0+/, "");
      const callee = (ins) => /^call/.test(ins.mnemonic) && ins.operands.toLowerCase().replace(/0x0*/, "") === hex; // a call's target
      test = (ins) => { const a = ins.address.slice(2); return a === hex || a.endsWith(hex) || callee(ins); };
    } else {
      const mnemonics = (ins) => ins.mnemonic.toLowerCase().split(/\s+/);
      const any = view.blocks.some((b) => b.instructions.some((ins) => mnemonics(ins).includes(lower)));
      if (any) test = (ins) => mnemonics(ins).includes(lower);
      else {
        // Names as the summary and the panel print them: methods, callees, trap reasons and actions, tags.
        const words = lower.replace(/[_\s]+/g, " ");
        const has = (text) => text !== null && text !== undefined && String(text).toLowerCase().replace(/[_\s]+/g, " ").includes(words);
        const call = (ins) => /^call/.test(ins.mnemonic);
        test = (ins) => (ins.frames || []).some((f) => has(f.method)) || (ins.relocs || []).some(has) || (call(ins) && has(ins.operands));
        for (const b of view.blocks) {
          const t = b.trap;
          if ((t && [t.reason, t.action, t.kind, t.request, t.method].some(has)) || b.tags.some(has)) blocks.add(b.id);
        }
      }
    }
    for (const b of view.blocks) for (const ins of b.instructions) if (test(ins)) add(b.id, ins);
    return {blocks: [...blocks].sort((a, b) => a - b), addresses};
  }

  // ---------------------------------------------------------------- the block panel
  function blockRef(view, b, text) {
    return link(text || `B${b}`, () => view.select(b, true), view.foldOf.has(b) ? `folded in ${view.foldOf.get(b).name}` : undefined);
  }

  function trapWhere(trap) {
    const at = trap.bci === null ? "" : `${trap.bytecode || "?"}@${trap.bci}`;
    return [at, trap.line === null ? "" : `line ${trap.line}`].filter(Boolean).join(", ");
  }

  function fileLine(view, method, line) {
    const file = view.page.files[method];
    const text = view.source.text(file, line);
    return h("span", {}, `${file ? fileBase(file) : method}:${line}`, text ? h("span", {class: "src-line"}, text) : null);
  }

  function blockPanel(view, b) {
    const blk = view.blocks[b];
    const out = [];
    const head = h("h2", {}, `B${b}  `, h("span", {class: "mono"}, `${blk.start} – ${blk.end}`), `  (${blk.instructions.length} instructions)`);
    out.push(head);
    const chips = h("div", {}, blk.tags.map((t) => h("span", {class: "chip", style: `background:${(V.tags.find((x) => x.tag === t) || {}).colour || "#fff"}`}, (V.tags.find((x) => x.tag === t) || {}).label || t)));
    for (const loop of view.loopsOf.get(b) || []) chips.append(h("span", {class: "chip"}, `loop B${loop.header} depth ${loop.depth}`));
    if (view.foldOf.has(b)) chips.append(h("span", {class: "chip"}, `folded in ${view.foldOf.get(b).name}`));
    if (blk.heat) chips.append(h("span", {class: "chip"}, Object.entries(blk.heat).map(([e, v]) => `${e} ${pct(v)}`).join(" / ")));
    out.push(chips);
    if (blk.source) {
      const via = blk.source.via === "check" ? ` (${V.via_check}: B${blk.source.trap_block})` : " (from its debug info)";
      out.push(h("div", {}, "source: ", blk.source.method, " ", fileLine(view, blk.source.method, blk.source.line), via));
    }
    const bare = blk.instructions.filter((ins) => !ins.frames).length;
    if (bare) {
      let where = V.no_debug_info;
      if (blk.source && blk.source.via === "check") where += ` This block's line ${blk.source.line} comes from the trap its check leads to (B${blk.source.trap_block}).`;
      else if (blk.source) where += ` This block's line ${blk.source.line} comes from the debug info of its other instructions.`;
      out.push(h("div", {class: "note"}, `${bare} of ${blk.instructions.length} instructions carry no debug info. ${where}`));
    }
    out.push(h("h3", {}, "Instructions"), instructionTable(view, blk));
    const checks = view.checksFrom.get(b) || [];
    if (checks.length) {
      out.push(h("h3", {}, "Checks leaving this block"));
      const list = h("ul", {class: "checks"});
      for (const c of checks) {
        const trap = c.trap_block === null ? null : view.blocks[c.trap_block].trap;
        list.append(h("li", {},
          h("b", {}, c.check.replace("_", " ")), ` at ${short(view.siteAddress(b, c.site))} → failure path `, blockRef(view, c.to),
          c.trap_block !== null && c.trap_block !== c.to ? [" … ", blockRef(view, c.trap_block)] : null,
          trap ? [`: trap ${trap.reason} / ${trap.action}, guards `, h("b", {}, trapWhere(trap)), trap.method ? ` in ${trap.method}` : ""] : ""));
      }
      out.push(list);
    }
    const into = view.checksInto.get(b) || [];
    if (into.length) {
      out.push(h("h3", {}, "Failure path of"));
      out.push(h("ul", {}, into.map((c) => h("li", {}, `the ${c.check.replace("_", " ")} in `, blockRef(view, c.from), ` (branch at ${short(view.siteAddress(c.from, c.site))})`))));
    }
    out.push(...branchProfilePanel(view, blk.id));
    if (blk.trap) out.push(...trapPanel(blk.trap));
    out.push(h("h3", {}, "Predecessors"), edgeList(view, view.preds.get(b) || [], "from"));
    out.push(h("h3", {}, "Successors"), edgeList(view, view.succs.get(b) || [], "to"));
    return out;
  }

  function instructionTable(view, blk) {
    const table = h("table", {class: "ins"});
    table.append(h("tr", {}, h("th", {}, "address"), view.events.map((e) => h("th", {}, e)), h("th", {}, "instruction"), h("th", {}, "debug info")));
    for (const ins of blk.instructions) {
      const frames = (ins.frames || []).map((f, i) => h("span", {class: i ? "frame inl" : "frame"},
        i ? "inlined into " : (ins.bytecode ? h("b", {}, ins.bytecode + " ") : ""), `${f.method}@${f.bci}`,
        f.line === null ? "" : [" ", fileLine(view, f.method, f.line)]));
      const extra = [];
      if (ins.relocs) extra.push(h("span", {class: "frame"}, ins.relocs.map((r) => `{${r}}`).join(" ")));
      if (ins.implicit_exception) extra.push(h("span", {class: "frame"}, `implicit exception → ${short(ins.implicit_exception)}`));
      const row = h("tr", {"data-address": ins.address},
        h("td", {class: "mono"}, short(ins.address)),
        view.events.map((e) => h("td", {class: "heat mono"}, ins.heat && ins.heat[e] ? pct(ins.heat[e]) : "")),
        h("td", {class: "mono"}, `${ins.mnemonic} ${ins.operands}`),
        h("td", {class: "dbg"}, frames.length ? frames : "—", extra));
      if (view.matchedAddresses && view.matchedAddresses.has(ins.address)) row.classList.add("match");
      if (view.source.lit && view.source.lit.has(ins.address)) row.classList.add("from-line");
      table.append(row);
    }
    return table;
  }

  function trapPanel(trap) {
    const rows = [["kind", trap.kind], ["reason", trap.reason], ["action", trap.action], ["trap request", trap.request],
      ["bytecode", trapWhere(trap)], ["method", trap.method]];
    if (trap.log) {
      rows.push(["LogCompilation", trap.log.verdict + (trap.log.logged.length ? `: ${trap.log.logged.map((r) => `${r.reason} / ${r.action} (log line ${r.line})`).join(", ")}` : "")]);
      rows.push(["fired at run time", String(trap.log.fired)]);
    }
    return [h("h3", {}, "Trap"), h("table", {class: "summary"}, rows.map(([k, v]) => h("tr", {}, h("th", {}, k), h("td", {class: "mono"}, v === null ? "?" : v))))];
  }

  function edgeList(view, edges, end) {
    if (!edges.length) return h("p", {class: "hint"}, "none");
    return h("ul", {}, edges.map((e) => {
      const other = e[end];
      const kind = e.check ? `${e.kind}, ${e.check.replace("_", " ")}` : e.kind;
      return h("li", {}, typeof other === "number" ? blockRef(view, other) : other, ` (${kind})`);
    }));
  }

  function foldPanel(view, fold) {
    return [h("h2", {}, `${fold.name}: folded chain`), h("p", {}, fold.label),
      h("p", {class: "hint"}, "Click the folded node again to collapse it; click a block in the expansion for its panel."),
      h("ul", {}, fold.blocks.map((b) => h("li", {}, blockRef(view, b), " ", view.blocks[b].tags.join(", "),
        view.blocks[b].trap ? ` — trap ${view.blocks[b].trap.reason} at ${trapWhere(view.blocks[b].trap)}` : "")))];
  }

  // ---------------------------------------------------------------- summary tables and legend
  function table(head, rows, cls = "") {
    return h("table", {class: `summary ${cls}`}, h("tr", {}, head.map((c) => h("th", {}, c))), rows.map((r) => h("tr", {}, r.map((c) => h("td", {}, c)))));
  }

  function fillTables(view) {
    const m = view.m, out = [];
    const c = m.counts;
    out.push(h("h2", {}, view.page.title));
    for (const text of flagsText(m.flags)) out.push(h("p", {class: "hint flag"}, text));
    out.push(h("p", {}, `${c.instructions} instructions, ${c.blocks} blocks, ${m.loops.length} loops; ${m.isa} ${m.syntax}; JDK ${m.jdk} (${m.jdk_assumption}); read from ${m.source}:${m.line}`));
    if (m.loops.length) {
      out.push(h("h3", {}, "Loops"));
      out.push(table(["header", "depth", "blocks", "ins/iter", "polls", "range chk", "null chk", "calls"], m.loops.map((l) => [
        blockRef(view, l.header, `B${l.header}${l.strip_mined_outer ? " (strip-mined outer)" : ""}`), l.depth, l.blocks.length,
        l.instructions, l.polls, l.range_checks, l.null_checks, [...new Set(l.calls)].join(", ") || "-"]), "loops"));
    }
    if (m.hot_paths && m.hot_paths.length) {
      out.push(h("h3", {}, "Hot paths (measured)"));
      out.push(table(["#", "share", "blocks", "ins/iter"], m.hot_paths.map((p, i) => [i + 1,
        Object.values(p.share).map(pct).join(" / "), h("span", {}, p.blocks.map((b) => [blockRef(view, b), " "])), p.instructions])));
    } else if (m.hot_path.length && view.page.unmeasured) {  // the run was measured, this compilation took none
      out.push(h("h3", {}, "Static hot path (entry → innermost loop along likely successors)"));
      out.push(h("p", {class: "note unmeasured"}, `profile: ${view.page.unmeasured}`));
      out.push(h("p", {}, m.hot_path.map((b) => [blockRef(view, b), " "])));
    } else if (m.hot_path.length) {
      out.push(h("h3", {}, "Static hot path (no profile: entry → innermost loop along likely successors)"));
      out.push(h("p", {}, m.hot_path.map((b) => [blockRef(view, b), " "])));
    }
    if (m.profile) {
      const hot = m.blocks.filter((b) => b.heat && Object.values(b.heat)[0] > 0)
        .sort((a, b) => Object.values(b.heat)[0] - Object.values(a.heat)[0]).slice(0, 10);
      out.push(h("h3", {}, `Hottest blocks (${view.events.join(" / ")})`));
      out.push(table(["block", "share", "ins", "source"], hot.map((b) => [blockRef(view, b.id),
        Object.values(b.heat).map(pct).join(" / "), b.instructions.length, b.source ? `${b.source.method} line ${b.source.line}` : ""])));
      const of = m.profile.share_of || "the run";
      out.push(h("p", {}, `cold code (traps, stubs, handlers, check failures, out-of-line): ${Object.values(m.profile.cold_share).map(pct).join(" / ")} of ${of}; this compilation holds ${Object.values(m.profile.method_share).map(pct).join(" / ")}` + (m.profile.samples ? ` (${m.profile.samples.toLocaleString("en")} samples)` : "")));
      if (m.profile.skid_note) out.push(h("p", { class: "skid" }, m.profile.skid_note));
    }
    const groups = new Map();
    for (const b of m.blocks) if (b.trap) {
      const key = `${b.trap.reason} / ${b.trap.action}`;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(b);
    }
    if (groups.size) {
      out.push(h("h3", {}, "Traps"));
      const rows = [...groups.entries()].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
      out.push(table(["reason / action", "count", "where (click: the trap's block)"], rows.map(([key, list]) => [key, list.length,
        h("span", {}, list.map((b) => [blockRef(view, b.id, trapWhere(b.trap) || `B${b.id}`), " "]))])));
    }
    if (m.trap_log) out.push(h("p", {}, `LogCompilation: ${m.trap_log.records} trap records; of the decoded traps ${m.trap_log.agrees} agree, ${m.trap_log.differs} differ, ${m.trap_log.unlogged} unlogged; ${m.trap_log.fired} fired at run time`));
    if (m.skipped_lines_total) out.push(h("p", {class: "hint"}, `${count(m.skipped_lines_total, "line")} inside the method ${m.skipped_lines_total === 1 ? "was" : "were"} not understood and skipped.`));
    $("#tables").replaceChildren(...out);
  }

  // The title's bracketed flags ([!], [%]) in words, as HotSpot means them.
  function flagsText(flags) {
    return [...(flags || "")].filter((f) => V.flags[f]).map((f) => `[${f}] ${V.flags[f]}`);
  }

  // What costs the most in this compilation and why (--findings, docs/findings.md), ranked.
  function fillFindings(view) {
    const found = view.page.findings || [];
    const tab = document.querySelector('#tabs button[data-tab="findings"]');
    tab.textContent = `findings (${found.length})`;
    const out = [h("h3", {}, found.length ? (found.some((f) => f.share !== null) ? "Ranked by share of the run's samples"
      : "No measured heat: ranked by a static estimate, loop depth × the loop's instructions") : "No finding in this compilation")];
    found.forEach((f, i) => {
      const cost = f.share !== null ? pct(f.share) : f.estimate !== null ? `est. ${f.estimate}` : "";
      const place = f.block === null ? "" : blockRef(view, f.block, f.kind.endsWith("-in-loop") || f.kind === "not-vectorized" ? `loop B${f.block}` : `B${f.block}`);
      const at = f.scope && f.bci !== null ? (f.bytecode ? `${f.scope} ${f.bytecode}` : `${f.scope}@${f.bci}`) + (f.line !== null ? ` line ${f.line}` : "") : "";
      out.push(h("div", {class: "finding"},
        h("div", {class: "finding-head"}, `${i + 1}. `, h("b", {}, cost), ` ${f.kind} `, place, ` ${at}`),
        h("p", {}, f.cause),
        h("ul", {}, f.evidence.map((e) => h("li", {}, e))),
        h("p", {}, h("b", {}, "try: "), f.suggestion),
        f.whatif ? h("p", {}, h("b", {}, "test: "), h("code", {}, f.whatif)) : null));
    });
    $("#findings").replaceChildren(...out);
  }

  // ---------------------------------------------------------------- compile-time profile (docs/findings.md)
  // The inlining tree: each call site under the inlined call it is in, with the samples under it; a click lights
  // up the blocks whose debug info names the call (its inlined frame, or the call left in the code).
  function fillInlining(view) {
    const tree = view.m.inlining_tree;
    const tab = document.querySelector('#tabs button[data-tab="inlining"]');
    tab.hidden = !tree;
    if (!tree) { $("#inlining").replaceChildren(); return; }
    const share = (s) => s === null || s === undefined ? "" : ` ${pct(s)}`;
    const out = [h("h3", {}, "Inlining"),
      h("p", {class: "hint"}, "share: the run's samples on the instructions whose debug info names each inlined frame (code of a tiny inlined method often carries the call site's instead). Click a call to light up its blocks."),
      h("div", {class: "inl-root"}, tree.method, h("b", {}, share(tree.share)))];
    const node = (n) => {
      const seen = n.receivers.length ? ` receivers: ${n.receivers.map((r) => `${r.type} ${r.count.toLocaleString("en")}`).join(", ")}` : "";
      const size = n.callee_bytes !== null ? ` ${n.callee_bytes} byte${n.callee_bytes === 1 ? "" : "s"}` : "";
      const why = inlineReason(n.inlined, n.reason);
      const head = h("span", {class: n.inlined ? "inl-call" : "inl-call inl-not"},
        link(`@${n.bci} ${n.callee}`, () => lightCall(view, n), "light up the blocks of this call"),
        ` ${n.inlined ? "inlined" : "NOT inlined"}${why ? ` (${why})` : ""}${size}`, h("b", {}, share(n.share)), seen);
      if (!n.children.length) return h("div", {class: "inl-leaf"}, head);
      return h("details", {open: ""}, h("summary", {}, head), ...n.children.map(node));
    };
    out.push(...tree.calls.map(node));
    if (!tree.calls.length) out.push(h("p", {}, "No call site in this compilation's parse."));
    $("#inlining").replaceChildren(...out);
  }

  // The log's reason as said after "inlined" (describe.inline_reason): C2's "inline (hot)" is "hot", its plain
  // "inline" says nothing more.
  function inlineReason(inlined, reason) {
    if (inlined && reason.startsWith("inline (") && reason.endsWith(")")) return reason.slice(8, -1);
    return inlined && reason === "inline" ? "" : reason;
  }

  // The blocks whose instructions' debug info names the call: inside the inlined callee at this site, or the call
  // itself when it was not inlined.
  function lightCall(view, n) {
    const chain = callChain(view, n);
    const blocks = [];
    for (const b of view.blocks) {
      const named = b.instructions.some((ins) => {
        const f = (ins.frames || []).map((x) => `${x.method}@${x.bci}`);
        const k = chain.length;
        if (f.length < k || f.slice(f.length - k).join(" ") !== chain.join(" ")) return false;
        return n.inlined ? f.length > k && (ins.frames[f.length - k - 1].method === n.callee) : f.length === k;
      });
      if (named) blocks.push(b.id);
    }
    for (const el of view.canvas.querySelectorAll(".from-line")) el.classList.remove("from-line");
    for (const b of blocks) { const g = view.nodeOf(b); if (g) g.classList.add("from-line"); }
    $("#search-status").textContent = `@${n.bci} ${n.callee}: ${count(blocks.length, "block")}`;
    if (blocks.length) view.select(blocks[0], true, true);
    showTab("inlining");
  }

  function callChain(view, n) {
    // the decision's chain is innermost first; an instruction's frames are too
    const found = (view.m.inlining || []).find((d) => d.line === n.line);
    return found ? found.chain.map((c) => `${c.method}@${c.bci}`) : [`${n.caller}@${n.bci}`];
  }

  // The branch records C2 read for the conditional jump that ends this block, and the trap edges it planted.
  function branchProfilePanel(view, block) {
    const out = [];
    for (const r of view.m.branch_profile || []) {
      const jump = r.blocks.includes(block);
      const traps = r.trap_edges.filter((e) => e.from === block);
      if (!jump && !traps.length) continue;
      const prob = r.prob === null ? "unknown" : r.prob === 0 ? "never" : r.prob === 1 ? "always" : r.prob;
      const times = (v) => v === null || v === undefined ? "unknown" : v.toLocaleString("en");  // as the findings
      out.push(h("div", {}, `profile (C2's <branch>, log line ${r.line}): ${r.method}@${r.bci} → ${r.target_bci}: taken ${times(r.taken)}, not taken ${times(r.not_taken)}, p=${prob}`
        + (traps.length ? `; the edge to B${traps.map((e) => e.to).join(", B")} leads to the unstable_if trap C2 planted for the side it never saw` : "")));
    }
    if (out.length) out.unshift(h("h3", {}, "Compile-time profile"));
    return out;
  }

  function fillLegend(view) {
    const out = [h("h3", {}, "Flags in the title, in brackets")];
    for (const [flag, label] of Object.entries(V.flags)) {
      out.push(h("div", {class: (view.m.flags || "").includes(flag) ? "flag on" : "flag"}, h("code", {}, `[${flag}]`), ` ${label}`));
    }
    out.push(h("h3", {}, "Blocks (fill by their most important tag)"));
    for (const t of V.tags) out.push(h("div", {}, h("span", {class: "swatch", style: `background:${t.colour}`}), t.label));
    out.push(h("div", {}, h("span", {class: "swatch", style: `background:${V.fold_colour};border-style:dashed`}), V.fold_label));
    out.push(h("h3", {}, "Edges"));
    for (const e of V.edges) out.push(h("div", {}, h("span", {class: "edge-sample", style: `border-top-style:${e.style};border-top-color:${e.color}`}), e.label));
    out.push(h("div", {}, h("span", {class: "edge-sample", style: `border-top-color:${V.check_colour};border-top-style:solid`}), V.check_label));
    out.push(h("div", {}, h("span", {class: "edge-sample", style: `border-top-color:${V.hot_colour};border-top-style:solid;border-top-width:4px`}), V.hot_label));
    out.push(h("h3", {}, "Loops (clusters, darker when nested deeper)"));
    V.loop_fills.forEach((fill, i) => out.push(h("div", {}, h("span", {class: "swatch", style: `background:${fill};border-color:${V.loop_colour}`}), `depth ${i + 1}${i === V.loop_fills.length - 1 ? "+" : ""}`)));
    if (view.page.heat_scale.length) {
      out.push(h("h3", {}, view.page.heat_label || V.heat_label));
      for (const s of view.page.heat_scale) out.push(h("div", {}, h("span", {class: "swatch", style: `background:${s.colour}`}), `${view.events[0]} ${pct(s.share)}`));
    }
    out.push(h("h3", {}, "Keys"), h("p", {}, "drag: pan · wheel/pinch: zoom · + − : zoom · 0: fit · h: hot loop · arrows: pan · / : search · Enter / Shift+Enter: next / previous match · Esc: clear"));
    $("#legend").replaceChildren(...out);
  }

  // ---------------------------------------------------------------- source pane
  class SourcePane {
    constructor(view) {
      this.view = view;
      this.lit = null;
      const files = [...new Set(Object.values(view.page.files))].filter((f) => MODEL.sources && MODEL.sources[f]);
      this.files = files;
      for (const id of ["source-pane", "split-source", "toggle-source"]) $("#" + id).hidden = !files.length;
      this.lines = new Map(); // "file:line" -> {blocks:Set, addresses:Set}
      for (const b of view.blocks) {
        for (const ins of b.instructions) for (const f of ins.frames || []) {
          if (f.line !== null) this.note(view.page.files[f.method], f.line, b.id, ins.address);
        }
        if (b.source && b.source.via === "check") this.note(view.page.files[b.source.method], b.source.line, b.id, null);
      }
      if (!files.length) return;
      const main = view.page.files[view.m.name];
      $("#source-files").replaceChildren(...files.map((f) => h("button", {"data-file": f, onclick: () => this.show(f)}, fileBase(f))));
      this.show(files.includes(main) ? main : files[0]);
    }

    note(file, line, block, address) {
      if (!file) return;
      const key = `${file}:${line}`;
      if (!this.lines.has(key)) this.lines.set(key, {blocks: new Set(), addresses: new Set()});
      const entry = this.lines.get(key);
      entry.blocks.add(block);
      if (address) entry.addresses.add(address);
    }

    text(file, line) {
      const lines = file && MODEL.sources ? MODEL.sources[file] : null;
      return lines && line > 0 && line <= lines.length ? lines[line - 1].trim() : "";
    }

    show(file) {
      this.file = file;
      for (const b of $("#source-files").children) b.classList.toggle("on", b.dataset.file === file);
      const pre = $("#source");
      const heated = !!this.view.page.line_heat; // measured: each line's share (lineheat.by_file)
      const heat = (this.view.page.line_heat || {})[file] || {};
      pre.replaceChildren(...MODEL.sources[file].map((text, i) => {
        const entry = this.lines.get(`${file}:${i + 1}`);
        const share = heat[i + 1];
        return h("span", {class: entry ? "ln has-code" : "ln", "data-line": i + 1, title: entry ? `${count(entry.blocks.size, "block")}, ${count(entry.addresses.size, "instruction")} with debug info` : undefined,
          onclick: () => this.pick(i + 1)}, heated ? h("span", {class: "heat-cell", style: share ? heatBar(share) : undefined}, share ? pct(share) : "") : "",
          h("span", {class: "no"}, i + 1), text || " ");
      }));
    }

    pick(line) {
      const view = this.view;
      const entry = this.lines.get(`${this.file}:${line}`);
      for (const el of view.canvas.querySelectorAll(".from-line")) el.classList.remove("from-line");
      for (const el of $("#source").querySelectorAll(".on")) el.classList.remove("on");
      $(`#source [data-line="${line}"]`).classList.add("on");
      if (!entry) { this.lit = null; $("#search-status").textContent = `no code came from line ${line}`; return; }
      this.lit = entry.addresses;
      const blocks = [...entry.blocks].sort((a, b) => a - b);
      for (const b of blocks) { const node = view.nodeOf(b); if (node) node.classList.add("from-line"); }
      $("#search-status").textContent = `line ${line}: ${count(blocks.length, "block")}`;
      const withCode = blocks.filter((b) => view.blocks[b].instructions.some((i) => entry.addresses.has(i.address)))
        .sort((a, b) => view.foldOf.has(a) - view.foldOf.has(b));
      const pick = blocks.includes(view.selected) ? view.selected : (withCode[0] ?? blocks[0]);
      if (pick !== undefined) view.select(pick, true);
    }

    markBlock(block) {
      if (!this.files.length) return;
      for (const el of $("#source").querySelectorAll(".mark")) el.classList.remove("mark");
      for (const [key, entry] of this.lines) {
        const [file, line] = [key.slice(0, key.lastIndexOf(":")), key.slice(key.lastIndexOf(":") + 1)];
        if (file === this.file && entry.blocks.has(block)) {
          const el = $(`#source [data-line="${line}"]`);
          if (el) { el.classList.add("mark"); el.scrollIntoView({block: "nearest"}); }
        }
      }
    }
  }

  // ---------------------------------------------------------------- bytecode pane
  // Each method's bytecode from its class file (the model's page.bytecode), tied to the code by the debug info: a
  // bytecode lights the instructions any of whose frames names its method and bci (inlined code included), a
  // block marks the bytecodes its instructions name. The share beside a bytecode is heat_by_bci's, inclusive.
  class BytecodePane {
    constructor(view) {
      this.view = view;
      this.code = view.page.bytecode || null;
      this.methods = this.code ? Object.keys(this.code) : [];
      for (const id of ["bytecode-pane", "split-bytecode", "toggle-bytecode"]) $("#" + id).hidden = !this.methods.length;
      if (!this.methods.length) return;
      this.sites = new Map(); // "method@bci" -> {blocks:Set, addresses:Set}
      for (const b of view.blocks) for (const ins of b.instructions) for (const f of ins.frames || []) {
        const key = `${f.method}@${f.bci}`;
        if (!this.sites.has(key)) this.sites.set(key, {blocks: new Set(), addresses: new Set()});
        this.sites.get(key).blocks.add(b.id);
        this.sites.get(key).addresses.add(ins.address);
      }
      this.heat = view.m.heat_by_bci || {};
      $("#bytecode-methods").replaceChildren(...this.methods.map((name) => h("button", {"data-method": name,
        title: name + (this.code[name].descriptor || ""), onclick: () => this.show(name)}, name.split(".").pop())));
      this.show(this.methods[0]);
    }

    share(method, bci) { // the first event's inclusive share at a bci, or null
      const at = (this.heat[method] || {})[bci];
      return at ? Object.values(at.share)[0] : null;
    }

    show(method) {
      this.method = method;
      for (const b of $("#bytecode-methods").children) b.classList.toggle("on", b.dataset.method === method);
      const entry = this.code[method];
      const from = entry.read_from ? entry.read_from.split("!").map(fileBase).join("!") : "";
      $("#bytecode-note").textContent = visible(entry.why_not ? `${method}: no bytecode: ${entry.why_not}.`
        : `${method}${entry.descriptor}` + (from ? ` from ${from}` : ""));
      const unplaced = this.view.m.heat_without_debug_info ? Object.values(this.view.m.heat_without_debug_info)[0] : 0;
      if (unplaced) $("#bytecode-note").textContent += ` · ${pct(unplaced)} of the run on instructions without debug info, counted for no bci or line`;
      $("#bytecode-note").title = visible(entry.read_from || "");
      let last = null;
      $("#bytecode").replaceChildren(...entry.codes.map((c) => {
        const site = this.sites.get(`${method}@${c.bci}`);
        const share = this.share(method, c.bci);
        const line = c.line !== null && c.line !== last ? `  // line ${c.line}` : "";
        last = c.line;
        return h("span", {class: site ? "bc has-code" : "bc", "data-bci": c.bci,
          title: site ? `${count(site.blocks.size, "block")}, ${count(site.addresses.size, "instruction")} ${site.addresses.size === 1 ? "names" : "name"} ${method}@${c.bci}` : undefined,
          onclick: () => this.pick(c.bci)},
          h("span", {class: "heat-cell", style: share ? heatBar(share) : undefined}, share ? pct(share) : ""),
          h("span", {class: "no"}, c.bci), c.name, c.operands ? h("span", {class: "ops"}, " " + c.operands) : "",
          h("span", {class: "line"}, line));
      }));
      if (this.view.selected !== null) this.markBlock(this.view.selected, true);
    }

    pick(bci) {
      const view = this.view;
      const site = this.sites.get(`${this.method}@${bci}`);
      for (const el of view.canvas.querySelectorAll(".from-line")) el.classList.remove("from-line");
      for (const el of $("#bytecode").querySelectorAll(".on")) el.classList.remove("on");
      $(`#bytecode [data-bci="${bci}"]`).classList.add("on");
      if (!site) { view.source.lit = null; $("#search-status").textContent = `no code came from @${bci}`; return; }
      view.source.lit = site.addresses;
      const blocks = [...site.blocks].sort((a, b) => a - b);
      for (const b of blocks) { const node = view.nodeOf(b); if (node) node.classList.add("from-line"); }
      $("#search-status").textContent = `@${bci}: ${count(blocks.length, "block")}`;
      const pick = blocks.includes(view.selected) ? view.selected
        : ([...blocks].sort((a, b) => view.foldOf.has(a) - view.foldOf.has(b))[0]);
      if (pick !== undefined) view.select(pick, true);
    }

    markBlock(block, still) {
      if (!this.methods.length) return;
      for (const el of $("#bytecode").querySelectorAll(".mark")) el.classList.remove("mark");
      let first = null;
      for (const el of $("#bytecode").children) {
        const site = this.sites.get(`${this.method}@${el.dataset.bci}`);
        if (site && site.blocks.has(block)) { el.classList.add("mark"); first = first || el; }
      }
      if (first && !still) first.scrollIntoView({block: "nearest"});
    }
  }

  // A heat cell's fill: a bar as long as the share of the hottest step (the graph's heat scale), never wider.
  function heatBar(share) {
    const width = Math.max(4, Math.min(100, share * 4));
    return `background:linear-gradient(to left, #ffb27a ${width}%, transparent ${width}%)`;
  }

  // ---------------------------------------------------------------- minimap
  class Minimap {
    constructor(view) {
      this.view = view;
      this.el = $("#minimap");
      const ratio = view.height / view.width;
      const side = Math.max(100, Math.min(200, view.pane.clientWidth / 5));
      this.el.width = ratio > 1 ? Math.max(40, side / ratio) : side;
      this.el.height = ratio > 1 ? side : Math.max(40, side * ratio);
      this.k = this.el.width / view.width;
      this.base = document.createElement("canvas");
      this.base.width = this.el.width; this.base.height = this.el.height;
      const ctx = this.base.getContext("2d");
      ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, this.el.width, this.el.height);
      for (const g of view.svg.querySelectorAll("g.cluster")) this.rect(ctx, view.box(g), null, view.svg && "#7f9fcf");
      for (const g of view.nodes.values()) {
        const shape = g.querySelector("path, polygon");
        this.rect(ctx, view.box(g), (shape && shape.getAttribute("fill")) || g.dataset.fill || "#ddd", "#555");
      }
      const move = (e) => {
        const r = this.el.getBoundingClientRect();
        const x = (e.clientX - r.left) / this.k, y = (e.clientY - r.top) / this.k;
        view.tx = view.pane.clientWidth / 2 - x * view.scale;
        view.ty = view.pane.clientHeight / 2 - y * view.scale;
        view.apply();
      };
      this.el.onmousedown = (e) => { e.stopPropagation(); move(e); this.el.onmousemove = (ev) => (ev.buttons ? move(ev) : null); };
      this.el.onmouseup = () => { this.el.onmousemove = null; };
    }

    rect(ctx, b, fill, stroke) {
      const k = this.k;
      if (fill) { ctx.fillStyle = fill === "#ffffff" ? "#f0f0f0" : fill; ctx.fillRect(b.x * k, b.y * k, Math.max(1, b.w * k), Math.max(1, b.h * k)); }
      ctx.strokeStyle = stroke; ctx.lineWidth = 0.5;
      ctx.strokeRect(b.x * k, b.y * k, Math.max(1, b.w * k), Math.max(1, b.h * k));
    }

    drawView() {
      const v = this.view, ctx = this.el.getContext("2d"), k = this.k;
      ctx.drawImage(this.base, 0, 0);
      ctx.strokeStyle = "#c00000"; ctx.lineWidth = 1.5;
      ctx.strokeRect(-v.tx / v.scale * k, -v.ty / v.scale * k, v.pane.clientWidth / v.scale * k, v.pane.clientHeight / v.scale * k);
    }
  }

  // ---------------------------------------------------------------- index of compilations
  const COLUMNS = [
    ["compiler", (m) => m.compiler, 7], ["id", (m) => m.compile_id, 4], ["tier", (m) => m.level, 4],
    ["OSR", (m) => m.osr_bci, 4], ["method", (m) => m.name, 28], ["bytes", (m) => m.bytecode_size, 6],
    ["instructions", (m) => m.counts.instructions, 9], ["blocks", (m) => m.counts.blocks, 6], ["loops", (m) => m.loops.length, 5],
    ["traps by reason", (m) => Object.entries(m.counts.trap_reasons).map(([r, n]) => `${r} ${n}`).join(", "), 22],
    ["checks (range / null)", (m) => m.counts.range_check_branches + m.counts.null_check_branches, 9, (m) => `${m.counts.range_check_branches} / ${m.counts.null_check_branches}`],
  ];
  if (MODEL.methods.some((m) => m.profile)) COLUMNS.push(["heat share", (m) => (m.profile ? Object.values(m.profile.method_share)[0] : null), 7, (m) => (m.profile ? Object.values(m.profile.method_share).map(pct).join(" / ") : "")]);

  function buildIndex() {
    $("#index-title").textContent = `${MODEL.methods.length} compilations`;
    const total = COLUMNS.reduce((s, c) => s + c[2], 0);
    for (const t of ["#index-head", "#index"]) $(`${t} colgroup`).replaceChildren(...COLUMNS.map((c) => h("col", {style: `width:${(100 * c[2]) / total}%`})));
    const head = h("tr", {}, COLUMNS.map((c, i) => h("th", {onclick: () => sortIndex(i), title: `${c[0]} (click to sort)`}, c[0])));
    $("#index-head thead").replaceChildren(head);
    const rows = MODEL.methods.map((m, n) => h("tr", {"data-n": n, onclick: () => { location.hash = "#c" + n; }},
      COLUMNS.map((c) => h("td", {title: String(c[3] ? c[3](m) : c[1](m) ?? "")}, (c[3] ? c[3](m) : c[1](m)) ?? ""))));
    const body = h("tbody", {}, rows);
    $("#index").append(body);
  }

  function sortIndex(col) {
    const th = $("#index-head thead tr").children[col];
    const desc = th.classList.contains("sorted") && !th.classList.contains("desc");
    for (const x of $("#index-head thead tr").children) x.classList.remove("sorted", "desc");
    th.classList.add("sorted"); if (desc) th.classList.add("desc");
    const body = $("#index tbody");
    const key = (tr) => COLUMNS[col][1](MODEL.methods[+tr.dataset.n]);
    const rows = [...body.children].sort((a, b) => {
      const x = key(a), y = key(b);
      const r = x === null || y === null ? (x === null) - (y === null) : typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
      return desc ? -r : r;
    });
    body.replaceChildren(...rows);
  }

  // ---------------------------------------------------------------- panes: drag a splitter to resize, a button to hide
  const PANES = {"toggle-source": ["source-pane", "split-source"], "toggle-bytecode": ["bytecode-pane", "split-bytecode"], "toggle-side": ["side", "split-side"], "toggle-map": ["minimap"]};
  const chosen = new Set(); // panes the user showed or hid: the page no longer opens or closes them itself
  const GRAPH_LEAST = 400; // px of the graph's pane under which the panel starts closed

  function setPane(id, on, byUser) {
    if (byUser) chosen.add(id);
    else if (chosen.has(id)) return false;
    const changed = $("#" + id).classList.contains("on") !== on;
    $("#" + id).classList.toggle("on", on);
    for (const part of PANES[id]) $("#" + part).classList.toggle("collapsed", !on);
    return changed;
  }

  function wirePanes() {
    for (const id of Object.keys(PANES)) $("#" + id).onclick = () => setPane(id, !$("#" + id).classList.contains("on"), true);
    for (const [id, paneId, sign] of [["split-source", "source-pane", 1], ["split-bytecode", "bytecode-pane", 1], ["split-side", "side", -1]]) {
      const bar = $("#" + id);
      bar.addEventListener("mousedown", (e) => {
        if (e.button !== 0) return;
        e.preventDefault();
        const pane = $("#" + paneId), graph = $("#graph-pane"), start = e.clientX;
        const width = pane.getBoundingClientRect().width, most = width + graph.clientWidth - 160; // the graph keeps 160 px
        bar.classList.add("dragging");
        const move = (ev) => { pane.style.width = `${Math.max(120, Math.min(most, width + sign * (ev.clientX - start)))}px`; };
        const up = () => { bar.classList.remove("dragging"); window.removeEventListener("mousemove", move); window.removeEventListener("mouseup", up); };
        window.addEventListener("mousemove", move);
        window.addEventListener("mouseup", up);
      });
    }
    // In a diff's frame the graph gets the frame's width until a block is clicked: the panel opens then.
    if (EMBEDDED) setPane("toggle-side", false);
  }

  // ---------------------------------------------------------------- wiring
  let view = null;

  function showTab(name) {
    for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("on", b.dataset.tab === name);
    for (const id of ["details", "tables", "legend", "findings", "inlining"]) $("#" + id).hidden = id !== name;
  }

  function route() {
    const many = MODEL.methods.length > 1;
    const m = /^#c(\d+)$/.exec(location.hash);
    const n = m && +m[1] < MODEL.methods.length ? +m[1] : many ? null : 0;
    $("#index-view").hidden = n !== null;
    $("#view").hidden = n === null;
    $("#to-index").hidden = !many || n === null;
    for (const id of ["search", "fit", "hot", "zoom-in", "zoom-out", "panes"]) document.getElementById(id).hidden = n === null;
    if (n === null) { view = null; $("#title").textContent = "asmcfg"; return; }
    if (!view || view.n !== n) { view = new View(n); $("#search").value = ""; $("#search-status").textContent = ""; }
  }

  function wire() {
    const pane = $("#graph-pane");
    let drag = null;
    pane.addEventListener("mousedown", (e) => { if (view && e.button === 0) { drag = {x: e.clientX, y: e.clientY, tx: view.tx, ty: view.ty, moved: false}; } });
    window.addEventListener("mousemove", (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; pane.classList.add("dragging"); }
      view.tx = drag.tx + dx; view.ty = drag.ty + dy; view.apply();
    });
    window.addEventListener("mouseup", () => { pane.classList.remove("dragging"); setTimeout(() => { drag = null; }, 0); });
    pane.addEventListener("click", (e) => {
      if (!view || (drag && drag.moved)) return;
      const node = e.target.closest("g[data-block], g[data-fold], div.listed[data-block]");
      const cluster = node ? null : e.target.closest("g.cluster[id^=loop]");
      if (cluster) view.selectLoop(+cluster.id.slice(4));
      if (!node) return;
      if (node.dataset.block) view.select(+node.dataset.block.slice(1));
      else view.selectFold(view.page.folds.find((f) => f.name === node.dataset.fold));
    });
    pane.addEventListener("wheel", (e) => {
      if (!view) return;
      e.preventDefault();
      if (!view.drawn && !e.ctrlKey) { view.tx -= e.deltaX; view.ty -= e.deltaY; view.apply(); return; } // a listing scrolls
      const r = pane.getBoundingClientRect();
      view.zoomAt(Math.exp(-e.deltaY * (e.ctrlKey ? 0.01 : 0.002)), e.clientX - r.left, e.clientY - r.top);
    }, {passive: false});
    const centre = (f) => view && view.zoomAt(f, pane.clientWidth / 2, pane.clientHeight / 2);
    $("#fit").onclick = () => view && view.fit();
    $("#hot").onclick = () => view && view.focusHot();
    $("#zoom-in").onclick = () => centre(1.25);
    $("#zoom-out").onclick = () => centre(0.8);
    const search = $("#search");
    search.addEventListener("input", () => view && view.search(search.value));
    search.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && view) { e.preventDefault(); view.step(e.shiftKey); }
      if (e.key === "Escape") { search.value = ""; if (view) view.search(""); search.blur(); }
    });
    for (const b of document.querySelectorAll("#tabs button")) b.onclick = () => showTab(b.dataset.tab);
    document.addEventListener("keydown", (e) => {
      if (!view || e.target instanceof HTMLInputElement || e.ctrlKey || e.metaKey || e.altKey) return;
      const step = 80;
      const keys = {"+": () => centre(1.25), "=": () => centre(1.25), "-": () => centre(0.8), "0": () => view.fit(), "h": () => view.focusHot(),
        "ArrowLeft": () => { view.tx += step; view.apply(); }, "ArrowRight": () => { view.tx -= step; view.apply(); },
        "ArrowUp": () => { view.ty += step; view.apply(); }, "ArrowDown": () => { view.ty -= step; view.apply(); },
        "/": () => search.focus(), "Escape": () => { view.search(""); search.value = ""; }};
      if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
    });
    window.addEventListener("hashchange", route);
    window.addEventListener("message", (e) => {
      const d = e.data;
      if (!view || e.source !== window.parent || !d || !d.asmcfg) return;
      if (d.type === "paint") view.paintDiff(d);
      else if (d.type === "block") { const node = view.select(d.block, true, true); if (node) node.classList.add("peer"); }
      else if (d.type === "loop") view.selectLoop(d.header, true);
      else if (d.type === "clear") for (const el of view.svg.querySelectorAll(".peer")) el.classList.remove("peer");
    });
    // A pane resized, hidden or shown (or the window resized): the graph keeps its centre where it was.
    new ResizeObserver(() => {
      if (!view) return;
      const w = pane.clientWidth, hgt = pane.clientHeight;
      view.tx += (w - view.paneSize[0]) / 2; view.ty += (hgt - view.paneSize[1]) / 2;
      view.paneSize = [w, hgt];
      view.apply();
    }).observe(pane);
    wirePanes();
    $("#draw-note-close").onclick = () => { $("#draw-note").hidden = true; };
  }

  if (MODEL.methods.length > 1) buildIndex();
  wire();
  route();
  requestAnimationFrame(() => requestAnimationFrame(() => { document.body.dataset.ready = "1"; tell({type: "ready"}); }));
})();
