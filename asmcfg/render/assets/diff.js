// asmcfg diff's side-by-side page: each side is asmcfg's report page in a frame. This script paints the diff's
// colours on each side and, when a block or a loop is clicked on one side, shows its counterpart on the other.
// What pairs with what comes from the diff (#links); the script computes nothing of its own.
"use strict";
(() => {
  const LINKS = JSON.parse(document.getElementById("links").textContent);
  // Bidirectional controls and invisible characters in names are shown as the report page shows them
  // (U+202E -> \x202e).
  const HIDDEN = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2060-\u2064\u206a-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\u{1d173}-\u{1d17a}\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]/gu;
  const visible = (text) => String(text).replace(HIDDEN, (c) => "\\x" + c.codePointAt(0).toString(16).padStart(2, "0"));
  const OTHER = {old: "new", new: "old"};
  const ready = new Set();
  const frame = (side) => document.getElementById(side);
  const send = (side, message) => frame(side).contentWindow.postMessage({asmcfg: 1, ...message}, "*");

  // The tables `asmcfg diff` prints on stderr, as the diff wrote them (#tables): text only.
  const TABLES = JSON.parse(document.getElementById("tables").textContent);
  const el = (tag, ...kids) => { const node = document.createElement(tag); node.append(...kids.map((k) => visible(k))); return node; };
  const elements = (tag, kids) => { const node = document.createElement(tag); node.append(...kids); return node; };
  const shown = [];
  for (const t of TABLES.tables) {
    shown.push(el("h3", t.title));
    shown.push(elements("table", [elements("tr", t.columns.map((c) => el("th", c))),
      ...t.rows.map((row) => elements("tr", row.map((c) => el("td", c))))]));
  }
  if (TABLES.none) shown.push(el("p", TABLES.none));
  document.getElementById("diff-tables").replaceChildren(...shown);
  const facts = TABLES.tables[0].rows.filter((r) => r[2]).map((r) => `${r[0]} ${r[1]} (${r[2]})`);
  document.getElementById("diff-summary").textContent = visible(`Compilations, loops and changes: ${facts.join(", ") || "no figure changed"}`);

  window.addEventListener("message", (e) => {
    const side = ["old", "new"].find((s) => frame(s) && frame(s).contentWindow === e.source);
    const d = e.data;
    if (!side || !d || !d.asmcfg) return;
    if (d.type === "ready") {
      send(side, {type: "paint", ...LINKS[side].paint});
      ready.add(side);
      if (ready.size === 2) document.body.dataset.ready = "1";
      return;
    }
    const loop = d.type === "loop";
    const key = loop ? d.header : d.block;
    const found = (loop ? LINKS[side].loops : LINKS[side].blocks)[String(key)];
    const status = document.getElementById("diff-status");
    const here = `${side} ${loop ? "loop " : ""}B${key}`;
    if (found && found.to !== null) {
      send(OTHER[side], loop ? {type: "loop", header: found.to} : {type: "block", block: found.to});
      status.textContent = visible(`${here} → ${OTHER[side]} ${loop ? "loop " : ""}B${found.to}: ${found.why}`);
      status.dataset.match = `${OTHER[side]}:${loop ? "loop" : "block"}:${found.to}`;
    } else {
      send(OTHER[side], {type: "clear"});
      status.textContent = visible(`${here}: ${found ? found.why : `no counterpart in the ${OTHER[side]} compilation`}`);
      status.dataset.match = "";
    }
  });
})();
