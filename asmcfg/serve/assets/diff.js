// The index of `asmcfg serve OLD NEW`: the whole-log diff's pairs, ranked as `asmcfg diff OLD NEW` ranks them,
// then the methods only one log compiled, in the table (table.js); a row opens the pair's side-by-side diff, or
// the one compilation's report, at its address in DATA.pages (/pair/10/11, /old/7, /new/12).
(() => {
  const DATA = JSON.parse(document.getElementById("data").textContent);
  const ROWS = DATA.rows;
  const ONLY = {old: `only in ${DATA.names[0]}`, new: `only in ${DATA.names[1]}`};
  const either = (r) => (r.code[0] === null ? r.code[1] : r.code[0]);
  const growth = (r) => (r.code[0] && r.code[1] !== null ? (r.code[1] - r.code[0]) / r.code[0] : null);
  // a count that did not change shows nothing: the cells that differ stand out
  const moved = (a, b) => (a || b ? `+${a} \u2212${b}` : "");
  const COLUMNS = [
    {label: "#", width: "2.5em", fit: true, get: (r) => r.rank, tip: "the rank of `asmcfg diff OLD NEW`: " +
      (DATA.heat ? "hottest first" : "largest first")},
    {label: "method", left: true, fit: true, most: "36vw", get: (r) => r.method, show: (v, r) => visible(r.short ?? v), full: (r) => r.method,
     link: true},
    {label: "compiler", left: true, width: "5.5em", get: (r) => r.compiler},
    {label: "OSR", width: "3em", fit: true, get: (r) => r.osr},
    {label: "old id", width: "3em", fit: true, get: (r) => r.old_id},
    {label: "new id", width: "3em", fit: true, get: (r) => r.new_id},
    ...(DATA.heat ? [{label: "heat", width: "3em", fit: true, get: (r) => r.heat, show: (v) => v.toFixed(2) + "%"}] : []),
    {label: "traps", width: "3.5em", fit: true, get: (r) => r.traps, key: (t) => t[0] * 1e6 + t[1],
     show: (t) => moved(t[0], t[1]), tip: "uncommon traps added and removed (sorted by those added)"},
    {label: "checks in loops", width: "4em", fit: true, get: (r) => r.checks, key: (c) => c[0] * 1e6 + c[1],
     show: (c) => moved(c[0], c[1]), tip: "range and null checks that entered and left the loops"},
    {label: "vector loops", width: "4em", fit: true, get: (r) => r.vectors, key: (v) => v[1] - v[0] - v[2],
     show: (v) => (v[0] === v[1] && !v[2] ? "" : `${v[0]} \u2192 ${v[1]}` + (v[2] ? ` (${v[2]} narrower)` : "")),
     tip: "vectorized loops, old and new"},
    {label: "not inlined", width: "4em", fit: true, get: (r) => r.not_inlined,
     show: (n, r) => (n || r.inlined ? String(n) + (r.inlined ? ` (+${r.inlined} inlined)` : "") : ""),
     tip: "calls compiled inline before and real calls now (and the other way)"},
    {label: "main code B", width: "5em", fit: true, get: (r) => r.code, key: (c, r) => growth(r),
     show: (c, r) => (r.kind !== "pair" || c[0] === c[1] ? String(either(r) ?? "") : `${c[0] ?? "-"} \u2192 ${c[1] ?? "-"}` +
       (growth(r) === null ? "" : ` (${growth(r) >= 0 ? "+" : ""}${(100 * growth(r)).toFixed(1)}%)`)),
     tip: "bytes of HotSpot's main code section, old and new (sorted by growth)"},
    {label: "changes", left: true, get: (r) => (r.kind === "pair" ? r.summary : ONLY[r.kind]), show: visible},
  ];

  const c = DATA.counts;
  $("#source").textContent = visible(`${DATA.names[0]} \u2192 ${DATA.names[1]}`);
  $("#summary").textContent = `${c.pairs} pairs (${c.changed} changed), ${c.old} only in the old log, ` +
    `${c.new} only in the new log`;
  indexTable({
    rows: ROWS, columns: COLUMNS, noun: "rows",
    href: (n) => DATA.pages[n],
    number: (r) => r.row,
    matches: (row, words) => {
      const method = row.method.toLowerCase();
      return words.every((w) => method.includes(w) || String(row.old_id) === w || String(row.new_id) === w);
    },
    decorate: (tr, row) => {
      tr.className = row.kind === "pair" ? (row.changed ? "changed" : "same") : "only";
      tr.dataset.kind = row.kind;
      if (row.old_id !== null) tr.dataset.oldId = String(row.old_id);
      if (row.new_id !== null) tr.dataset.newId = String(row.new_id);
      if (row.new_id !== null) tr.dataset.compileId = String(row.new_id);
      if (row.kind !== "pair") tr.title = `${ONLY[row.kind]}: opens its compilation`;
    },
  });
  document.body.dataset.ready = "";
})();
