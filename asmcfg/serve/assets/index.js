// The index of `asmcfg serve FILE`: every compilation's row from the JSON below in the table (table.js); the
// analysis columns and the toplists fill in as the server analyses the compilations. DATA.pages has each row's
// page: the server's address naming its compilation (/c/475), or in a static export (`asmcfg --all --html DIR`),
// which carries the analysis in DATA.facts, its page file (id-475.html).
(() => {
  const DATA = JSON.parse(document.getElementById("data").textContent);
  const href = (row) => DATA.pages[row];
  const ROWS = DATA.rows;  // [row, compiler, id, tier, osr, method, bytecode, main code bytes, printed, short name]
  const FACTS = new Array(ROWS.length).fill(null);  // [loops, traps by reason, fired, checks, calls, vector, heat]
  const total = (traps) => Object.values(traps).reduce((a, b) => a + b, 0);
  const fact = (k) => (r) => (FACTS[r[0]] ? FACTS[r[0]][k] : undefined);
  const COLUMNS = [
    {label: "compiler", left: true, width: "5.5em", get: (r) => r[1]},
    {label: "id", width: "4.5em", get: (r) => r[2]},
    {label: "tier", width: "3em", get: (r) => r[3]},
    {label: "OSR", width: "3.5em", get: (r) => r[4]},
    {label: "method", left: true, get: (r) => r[5], show: (v, r) => visible(r[9] ?? v), full: (r) => r[5], link: true},
    {label: "bytecode", width: "6em", get: (r) => r[6]},
    {label: "main code B", width: "7em", get: (r) => r[7], tip: "bytes of HotSpot's main code section"},
    {label: "loops", width: "4em", get: fact(0), facts: true},
    {label: "traps", left: true, width: "12em", get: fact(1), facts: true, key: total,
     show: (t) => Object.entries(t).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${visible(k)} ${v}`).join(", ")},
    {label: "fired", width: "4em", needs: "fired", get: fact(2), facts: true, tip: "uncommon traps that fired, from a LogCompilation log"},
    {label: "checks in loops", width: "9em", get: fact(3), facts: true},
    {label: "calls", width: "4em", get: fact(4), facts: true},
    {label: "vector loops", width: "7.5em", get: fact(5), facts: true},
    {label: "heat", width: "5em", needs: "heat", get: fact(6), facts: true, show: (v) => v.toFixed(2) + "%"},
  ];
  // whether the input can fill the columns that need a log's trap records or measured samples: the server knows
  // from the input and options; a folder export's index, from the analysis it carries
  const given = (k) => DATA.facts.rows.some((u) => u[k] !== null && u[k] !== undefined);
  const KNOWN = DATA.known || {fired: DATA.facts ? given(3) : true, heat: DATA.facts ? given(7) : true};
  const SHOWN = COLUMNS.filter((c) => !c.needs || KNOWN[c.needs]);
  // what an empty toplist says: that the input cannot tell (no log, no samples), that the analysis has not found
  // it yet, or that there is none; the largest and the most compiled come from the headers, known at once
  const UNKNOWN = {
    hottest: KNOWN.heat ? null : "No measured heat: give --profile, a perfasm input or a record folder.",
    fired: KNOWN.fired ? null : "No log given: fired traps unknown (--log gives them).",
  };
  const NONE = {hottest: "No measured heat.", largest: "No main code sizes in the headers.",
    most: "No method compiled twice.", fired: "None fired.", calls: "None.", checks: "None.", findings: "None."};
  function empties(finished, problem) {
    for (const [key, none] of Object.entries(NONE)) {
      const known = finished || key === "largest" || key === "most";
      $(`#top-${key} .empty`).textContent = UNKNOWN[key]
        || (known && !problem ? none : problem ? "not known: the analysis stopped" : "not known yet");
    }
  }

  function toplists(lists) {
    for (const [key, items] of Object.entries(lists)) {
      const box = key === "reasons" ? $("#top-reasons") : $(`#top-${key} ol`);
      if (!box) continue;
      box.replaceChildren(...items.map((item) => {
        const text = visible(item.text);
        const label = item.row === undefined ? h("span", {textContent: text}) : h("a", {href: href(item.row), textContent: text});
        label.className = "name";
        label.title = visible(item.full ?? item.text);
        return h("li", {}, h("span", {className: "line"}, label, h("span", {className: "value", textContent: item.value})));
      }));
      if (key !== "reasons") box.parentElement.classList.toggle("filled", items.length > 0);
    }
  }

  let next = 0;
  async function poll() {
    let answer;
    try {
      const range = DATA.range ? "&" + DATA.range.query.slice(1) : "";
      const response = await fetch(`/api/facts?since=${next}${range}`, {credentials: "same-origin"});
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
    empties(answer.finished, answer.problem);
    $("#progress").value = answer.total ? answer.done / answer.total : 1;
    // rows of compilations the log names without their code are listed but never analysed: say so, so that the
    // count beside the table (every row) and this one agree
    const codeless = ROWS.length - answer.total;
    const without = codeless > 0 ? ` (${codeless} without code in the log)` : "";
    $("#progress-text").textContent = answer.problem ? `analysis stopped: ${answer.problem}`
      : answer.finished ? `${answer.done} analysed${without}` : `analysed ${answer.done} of ${answer.total}${without}`;
    if (answer.rows.length) table.refresh((column) => column.facts);
  }

  $("#source").textContent = visible(DATA.source);
  // the server's run over time, and the time range whose samples this index counts (`/?from=MS&to=MS`)
  if (DATA.timeline) $("#source").after(h("a", {id: "timeline", href: DATA.timeline, textContent: "the run over time"}));
  if (DATA.range) {
    $("#source").after(h("span", {id: "range", textContent: `${DATA.range.said}: the heat and the hottest list count these alone `},
      h("a", {href: "/", textContent: "(the whole run)"})));
    $("#top-hottest h2").textContent = `Hottest (${DATA.range.said})`;
  }
  empties(false, null);
  const table = indexTable({
    rows: ROWS, columns: SHOWN, noun: "compilations", href,
    number: (r) => r[0],
    matches: (row, words) => {
      const method = row[5].toLowerCase();
      return words.every((w) => method.includes(w) || String(row[2]) === w);
    },
    pending: (column, row) => column.facts && FACTS[row[0]] === null && row[8],
    decorate: (tr, row) => {
      if (!row[8]) {
        tr.className = "unprinted";
        tr.title = "the log holds none of this compilation's code";
      }
      tr.dataset.compileId = row[2] === null ? "" : String(row[2]);
    },
  });
  if (DATA.facts) {
    show(DATA.facts);
    document.body.dataset.analysed = "";
  }
  document.body.dataset.ready = "";
  if (!DATA.facts) poll();
})();
