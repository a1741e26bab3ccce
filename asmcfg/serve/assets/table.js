"use strict";
// The table of an `asmcfg serve` index (every compilation of a log, or every pair of two): a window of its rows
// drawn at a time, filtered as the user types, sorted by any column; filter, sort and scroll live in the URL's
// hash, so Back comes back to them. A row opens its page, spec.href(row number): an address naming its compilation.
const $ = (selector) => document.querySelector(selector);
const HIDDEN = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2060-\u2064\u206a-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\u{1d173}-\u{1d17a}\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]/gu;
const visible = (text) => String(text).replace(HIDDEN, (c) => "\\x" + c.codePointAt(0).toString(16).padStart(2, "0"));

function h(tag, props, ...children) {
  const node = document.createElement(tag);
  Object.assign(node, props || {});
  for (const child of children) node.append(child);
  return node;
}

// spec: rows; columns ({label, get, left, width, key, show, full, tip, link, fit}: full(row) the whole text of a
// cell that shows it shortened, for its tooltip; fit: as wide as its longest text, `most` at most); number(row): its page's number;
// matches(row, words); noun (what the count counts); pending(column, row): a value still being computed;
// decorate(tr, row): its class and data attributes; href(number): a row's page.
function indexTable(spec) {
  const {rows, columns} = spec;
  const link = spec.href;
  const scroller = $("#scroller");
  const body = $("#index tbody");
  const state = {q: "", sort: null, down: false};
  let view = rows;
  let rowHeight = 23;

  function sortKey(column, row) {
    const value = column.get(row);
    if (value === null || value === undefined) return null;
    return column.key ? column.key(value, row) : value;
  }

  function compute() {
    const words = state.q.toLowerCase().split(/\s+/).filter(Boolean);
    view = words.length ? rows.filter((r) => spec.matches(r, words)) : rows.slice();
    if (state.sort !== null) {
      const column = columns[state.sort];
      const sign = state.down ? -1 : 1;
      view.sort((a, b) => {
        const x = sortKey(column, a), y = sortKey(column, b);
        if (x === y) return spec.number(a) - spec.number(b);
        if (x === null) return 1;  // unknown values last, whichever the direction
        if (y === null) return -1;
        return (x < y ? -1 : 1) * sign;
      });
    }
    $("#count").textContent = `${view.length} of ${rows.length} ${spec.noun}`;
    document.querySelectorAll("#index th").forEach((th, n) => {
      th.className = (columns[n].left ? "left " : "") + (n === state.sort ? (state.down ? "sorted-down" : "sorted-up") : "");
    });
  }

  function cell(column, row) {
    const value = column.get(row);
    const pending = spec.pending ? spec.pending(column, row) : false;
    const text = value === null || value === undefined ? (pending ? "\u2026" : "") : (column.show ? column.show(value, row) : String(value));
    const td = h("td", {className: (column.left ? "left" : "") + (pending ? " pending" : "")});
    if (column.link) td.append(h("a", {href: link(spec.number(row)), textContent: text}));
    else td.textContent = text;
    if (column.left) td.title = column.full ? visible(column.full(row)) : text;
    return td;
  }

  function spacer(height) {
    const td = h("td", {colSpan: columns.length});
    td.style.height = `${height}px`;
    return h("tr", {className: "spacer"}, td);
  }

  function draw() {
    const first = Math.max(0, Math.floor(scroller.scrollTop / rowHeight) - 20);
    const last = Math.min(view.length, first + Math.ceil(scroller.clientHeight / rowHeight) + 40);
    const drawn = [];
    for (let i = first; i < last; i++) {
      const row = view[i];
      const tr = h("tr", {}, ...columns.map((c) => cell(c, row)));
      spec.decorate(tr, row);
      tr.dataset.row = String(spec.number(row));
      drawn.push(tr);
    }
    body.replaceChildren(spacer(first * rowHeight), ...drawn, spacer((view.length - last) * rowHeight));
    const one = body.querySelector("tr[data-row]");
    if (one && one.offsetHeight && one.offsetHeight !== rowHeight) {
      rowHeight = one.offsetHeight;
      draw();
    }
  }

  let saving = 0;
  function saveNow() {
    clearTimeout(saving);
    saving = 0;
    const params = new URLSearchParams();
    if (state.q) params.set("q", state.q);
    if (state.sort !== null) params.set("s", (state.down ? "-" : "") + state.sort);
    if (scroller.scrollTop) params.set("y", String(Math.round(scroller.scrollTop)));
    history.replaceState(null, "", params.toString() ? "#" + params.toString() : location.pathname);
  }
  function save() {
    clearTimeout(saving);
    saving = setTimeout(saveNow, 100);
  }
  // leaving the page (a row, a link) within the 100 ms: the state is written first, so back finds it
  function flush() { if (saving) saveNow(); }

  function restore() {
    const params = new URLSearchParams(location.hash.slice(1));
    state.q = params.get("q") || "";
    const sort = params.get("s");
    if (sort && /^-?\d+$/.test(sort) && Math.abs(parseInt(sort, 10)) < columns.length) {
      state.sort = Math.abs(parseInt(sort, 10));
      state.down = sort.startsWith("-");
    }
    $("#filter").value = state.q;
    return parseInt(params.get("y") || "0", 10) || 0;
  }

  // a column marked `fit` is as wide as its longest text (its values are all known at load), so none is cut; the
  // texts are measured as the table sets them
  const ruler = h("span", {});
  ruler.style.cssText = "position:absolute; visibility:hidden; white-space:nowrap";
  const pad = parseFloat(getComputedStyle(document.body).fontSize);  // the cells' padding: 0.5em a side
  function measure(text, bold) {
    ruler.style.fontWeight = bold ? "bold" : "normal";
    ruler.textContent = text;
    return ruler.getBoundingClientRect().width;
  }
  function fitted(column) {
    const texts = new Set();
    for (const row of rows) {
      const value = column.get(row);
      if (value !== null && value !== undefined) texts.add(column.show ? column.show(value, row) : String(value));
    }
    document.body.append(ruler);
    let widest = 0;
    for (const text of texts) widest = Math.max(widest, measure(text, false));
    for (const word of column.label.split(" ")) widest = Math.max(widest, measure(word, true));  // headers wrap
    ruler.remove();
    const width = `max(${column.width || "0px"}, ${Math.ceil(widest + pad + 2)}px)`;
    return column.most ? `min(${width}, ${column.most})` : width;
  }
  $("#index thead tr").replaceChildren(...columns.map((c, n) => {
    const th = h("th", {textContent: c.label, title: (c.tip ? c.tip + "; " : "") + `sort by ${c.label}`});
    if (c.fit) th.style.width = fitted(c);
    else if (c.width) th.style.width = c.width;
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
    if (tr && !event.target.closest("a")) { flush(); location.href = link(tr.dataset.row); }
  });
  document.addEventListener("click", (event) => { if (event.target.closest("a[href]")) flush(); }, true);
  window.addEventListener("pagehide", flush);
  scroller.addEventListener("scroll", () => { draw(); save(); }, {passive: true});
  window.addEventListener("resize", draw);
  const y = restore();
  compute();
  draw();
  scroller.scrollTop = y;
  draw();
  // new values arrived: sort again when the sorted column is among them, then draw
  return {refresh(sorted) { if (state.sort !== null && sorted(columns[state.sort])) compute(); draw(); }};
}
