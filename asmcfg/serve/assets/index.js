"use strict";
// The index of `asmcfg serve`: every compilation's row from the JSON below, a window of them drawn at a time,
// filtered as the user types, sorted by any column; the analysis columns and the toplists fill in as the server
// analyses the compilations. Filter, sort and scroll live in the URL's hash, so Back comes back to them. A static
// export (`asmcfg --all --html DIR`) carries the analysis in DATA.facts and each row's page file in DATA.pages.
(() => {
  const DATA = JSON.parse(document.getElementById("data").textContent);
  const href = (row) => (DATA.pages ? DATA.pages[row] : `/c/${row}`);
  const ROWS = DATA.rows;  // [row, compiler, id, tier, osr, method, bytecode, code size, printed]
  const FACTS = new Array(ROWS.length).fill(null);  // [loops, traps by reason, fired, checks, calls, vector, heat]
  const $ = (selector) => document.querySelector(selector);
  const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
  const visible = (text) => String(text).replace(BIDI, (c) => "\\x" + c.charCodeAt(0).toString(16).padStart(2, "0"));
  const total = (traps) => Object.values(traps).reduce((a, b) => a + b, 0);
  const fact = (k) => (r) => (FACTS[r[0]] ? FACTS[r[0]][k] : undefined);
  const COLUMNS = [
    {label: "compiler", left: true, width: "5.5em", get: (r) => r[1]},
    {label: "id", width: "4.5em", get: (r) => r[2]},
    {label: "tier", width: "3em", get: (r) => r[3]},
    {label: "OSR", width: "3.5em", get: (r) => r[4]},
    {label: "method", left: true, get: (r) => r[5], show: visible},
    {label: "bytecode", width: "6em", get: (r) => r[6]},
    {label: "code size", width: "6.5em", get: (r) => r[7]},
    {label: "loops", width: "4em", get: fact(0), facts: true},
    {label: "traps", left: true, width: "12em", get: fact(1), facts: true, key: total,
     show: (t) => Object.entries(t).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${visible(k)} ${v}`).join(", ")},
    {label: "fired", width: "4em", get: fact(2), facts: true, tip: "uncommon traps that fired, from a LogCompilation log"},
    {label: "checks in loops", width: "9em", get: fact(3), facts: true},
    {label: "calls", width: "4em", get: fact(4), facts: true},
    {label: "vector loops", width: "7.5em", get: fact(5), facts: true},
    {label: "heat", width: "5em", get: fact(6), facts: true, show: (v) => v.toFixed(2) + "%"},
  ];
  const scroller = $("#scroller");
  const body = $("#index tbody");
  const state = {q: "", sort: null, down: false};
  let view = ROWS;
  let rowHeight = 23;

  function h(tag, props, ...children) {
    const node = document.createElement(tag);
    Object.assign(node, props || {});
    for (const child of children) node.append(child);
    return node;
  }

  function matches(row, words) {
    const method = row[5].toLowerCase();
    return words.every((w) => method.includes(w) || String(row[2]) === w);
  }

  function sortKey(column, row) {
    const value = column.get(row);
    if (value === null || value === undefined) return null;
    return column.key ? column.key(value) : value;
  }

  function compute() {
    const words = state.q.toLowerCase().split(/\s+/).filter(Boolean);
    view = words.length ? ROWS.filter((r) => matches(r, words)) : ROWS.slice();
    if (state.sort !== null) {
      const column = COLUMNS[state.sort];
      const sign = state.down ? -1 : 1;
      view.sort((a, b) => {
        const x = sortKey(column, a), y = sortKey(column, b);
        if (x === y) return a[0] - b[0];
        if (x === null) return 1;  // unknown values last, whichever the direction
        if (y === null) return -1;
        return (x < y ? -1 : 1) * sign;
      });
    }
    $("#count").textContent = `${view.length} of ${ROWS.length} compilations`;
    document.querySelectorAll("#index th").forEach((th, n) => {
      th.className = (COLUMNS[n].left ? "left " : "") + (n === state.sort ? (state.down ? "sorted-down" : "sorted-up") : "");
    });
  }

  function cell(column, row) {
    const value = column.get(row);
    const pending = column.facts && FACTS[row[0]] === null && row[8];
    const text = value === null || value === undefined ? (pending ? "\u2026" : "") : (column.show ? column.show(value) : String(value));
    const td = h("td", {className: (column.left ? "left" : "") + (pending ? " pending" : "")});
    if (column.label === "method") td.append(h("a", {href: href(row[0]), textContent: text}));
    else td.textContent = text;
    if (column.left) td.title = text;
    return td;
  }

  function spacer(height) {
    const td = h("td", {colSpan: COLUMNS.length});
    td.style.height = `${height}px`;
    return h("tr", {className: "spacer"}, td);
  }

  function draw() {
    const first = Math.max(0, Math.floor(scroller.scrollTop / rowHeight) - 20);
    const last = Math.min(view.length, first + Math.ceil(scroller.clientHeight / rowHeight) + 40);
    const rows = [];
    for (let i = first; i < last; i++) {
      const row = view[i];
      const tr = h("tr", {className: row[8] ? "" : "unprinted"}, ...COLUMNS.map((c) => cell(c, row)));
      tr.dataset.compileId = row[2] === null ? "" : String(row[2]);
      tr.dataset.row = String(row[0]);
      if (!row[8]) tr.title = "the log holds none of this compilation's code";
      rows.push(tr);
    }
    body.replaceChildren(spacer(first * rowHeight), ...rows, spacer((view.length - last) * rowHeight));
    const drawn = body.querySelector("tr[data-row]");
    if (drawn && drawn.offsetHeight && drawn.offsetHeight !== rowHeight) {
      rowHeight = drawn.offsetHeight;
      draw();
    }
  }

  let saving = 0;
  function save() {
    clearTimeout(saving);
    saving = setTimeout(() => {
      const params = new URLSearchParams();
      if (state.q) params.set("q", state.q);
      if (state.sort !== null) params.set("s", (state.down ? "-" : "") + state.sort);
      if (scroller.scrollTop) params.set("y", String(Math.round(scroller.scrollTop)));
      history.replaceState(null, "", params.toString() ? "#" + params.toString() : location.pathname);
    }, 100);
  }

  function restore() {
    const params = new URLSearchParams(location.hash.slice(1));
    state.q = params.get("q") || "";
    const sort = params.get("s");
    if (sort && /^-?\d+$/.test(sort) && Math.abs(parseInt(sort, 10)) < COLUMNS.length) {
      state.sort = Math.abs(parseInt(sort, 10));
      state.down = sort.startsWith("-");
    }
    $("#filter").value = state.q;
    return parseInt(params.get("y") || "0", 10) || 0;
  }

  function toplists(lists) {
    for (const [key, items] of Object.entries(lists)) {
      const box = key === "reasons" ? $("#top-reasons") : $(`#top-${key} ol`);
      if (!box) continue;
      box.replaceChildren(...items.map((item) => {
        const text = visible(item.text);
        const label = item.row === undefined ? h("span", {textContent: text}) : h("a", {href: href(item.row), textContent: text});
        label.title = text;
        return h("li", {}, label, h("span", {className: "value", textContent: item.value}));
      }));
      if (key !== "reasons") box.parentElement.classList.toggle("filled", items.length > 0);
    }
  }

  let next = 0;
  async function poll() {
    let answer;
    try {
      const response = await fetch(`/api/facts?since=${next}`, {credentials: "same-origin"});
      answer = await response.json();
    } catch (error) {
      $("#progress-text").textContent = "the server stopped";
      return;
    }
    show(answer);
    if (!answer.finished) setTimeout(poll, 400);
    else document.body.dataset.analysed = "";
  }

  function show(answer) {
    for (const [row, ...values] of answer.rows) FACTS[row] = values[0] === null ? [] : values;
    next = answer.next;
    toplists(answer.toplists);
    $("#progress").value = answer.total ? answer.done / answer.total : 1;
    $("#progress-text").textContent = answer.problem ? `analysis stopped: ${answer.problem}`
      : answer.finished ? `${answer.done} analysed` : `analysed ${answer.done} of ${answer.total}`;
    if (answer.rows.length && state.sort !== null && COLUMNS[state.sort].facts) compute();
    if (answer.rows.length) draw();
  }

  $("#source").textContent = visible(DATA.source);
  $("#index thead tr").replaceChildren(...COLUMNS.map((c, n) => {
    const th = h("th", {textContent: c.label, title: (c.tip ? c.tip + "; " : "") + `sort by ${c.label}`});
    if (c.width) th.style.width = c.width;
    th.addEventListener("click", () => {
      state.down = state.sort === n ? !state.down : false;
      state.sort = n;
      compute(); draw(); save();
    });
    return th;
  }));
  $("#filter").addEventListener("input", (event) => {
    state.q = event.target.value;
    scroller.scrollTop = 0;
    compute(); draw(); save();
  });
  body.addEventListener("click", (event) => {
    const tr = event.target.closest("tr[data-row]");
    if (tr && !event.target.closest("a")) location.href = href(tr.dataset.row);
  });
  scroller.addEventListener("scroll", () => { draw(); save(); }, {passive: true});
  window.addEventListener("resize", draw);
  const y = restore();
  compute();
  draw();
  scroller.scrollTop = y;
  draw();
  if (DATA.facts) {
    show(DATA.facts);
    document.body.dataset.analysed = "";
  }
  document.body.dataset.ready = "";
  if (!DATA.facts) poll();
})();
