"""The analysis columns and toplists of the index, filled in the background from each compilation's facts record
(`--jsonl --facts`), analysed on all cores with the pool every whole-log run uses."""

from __future__ import annotations

import contextlib
import functools
import heapq
import os
import threading
from collections import Counter
from typing import TYPE_CHECKING, Any

from asmcfg import describe
from asmcfg.model import CallKind

if TYPE_CHECKING:
    from asmcfg.model import Analysis
    from asmcfg.model.findings import Finding
    from asmcfg.processes.child import Child, Send
    from asmcfg.run.enrich import Enrichment
    from asmcfg.serve.opening import Reading
    from asmcfg.serve.rows import Index

TOP = 10
"""Entries per toplist."""
BACKGROUND_NICE = 10
"""How much lower the background analysis runs than the server, whose pages are asked for by a person waiting."""
_CALLS_KEPT = 64
"""Calls not inlined a record carries at most (a compilation of thousands of calls stays a small record)."""
_CHECKS = ("range_check", "null_check")
_FINDINGS_KEPT = 16
"""Findings a record carries at most (ranked: the first are the costliest)."""
_SENT = 32
"""Records sent from the analysis to the server at a time."""


def reduce(result: Analysis) -> dict[str, Any]:
    """What the index shows of one analysed compilation: its facts record cut to counts (runs in the workers)."""
    from asmcfg.facts.findings import findings
    from asmcfg.render.facts import facts_record

    record = facts_record(result)
    found = findings(result, result.cfg.method.source)[:_FINDINGS_KEPT]
    loops = record["loops"]
    inside = {b for loop in loops for b in loop["blocks"]}
    checks = {(c["address"], c["kind"]) for c in record["checks"] if c["block"] in inside and c["kind"] in _CHECKS}
    fired: Counter[str] = Counter()
    for trap in record["traps"]:
        if isinstance(trap.get("fired"), int) and trap["fired"] > 0:
            fired[trap["reason"]] += trap["fired"]
    log = record["trap_log"]
    calls = [(c["callee"], c.get("not_inlined", "")) for c in record["calls"] if CallKind(c["kind"]).java]
    profile = result.cfg.method.profile
    share = profile.run_share if profile is not None else ()
    return {
        "compile_id": record["compile_id"], "name": record["name"],
        "loops": len(loops), "traps": dict(Counter(t["reason"] for t in record["traps"])),
        "fired": None if log is None else log["fired"], "fired_by": dict(fired),
        "checks": len(checks), "range": sum(1 for _, kind in checks if kind == "range_check"),
        "calls": len(calls), "not_inlined": calls[:_CALLS_KEPT],
        "vector": sum(1 for loop in loops if loop.get("vector_bits")),
        "heat": share[0] if share else None,
        "findings": [[f.share, f.estimate, _finding_text(f)] for f in found],
    }


def _finding_text(found: Finding) -> str:
    """`check-in-loop HotLoop::run@21 line 17`."""
    at = f" {found.scope}@{found.bci}" if found.scope and found.bci is not None else ""
    return f"{found.kind}{at}" + (f" line {found.line}" if found.line is not None else "")


class Board:
    """The analysis of every compilation as it comes: the rows' new cells and what the toplists rank."""

    def __init__(self, index: Index) -> None:
        self._index = index
        self._lock = threading.Lock()
        self._seen: Counter[tuple[int | None, str]] = Counter()
        self.updates: list[list[Any]] = []
        """[row, loops, traps by reason, fired, checks in loops, calls, vectorized loops, heat], in arrival order."""
        self.total = sum(1 for e in index.entries if e.row.printed)
        """Compilations to analyse: those whose code is in the log."""
        self.finished = False
        """True once every compilation was analysed (or the analysis stopped)."""
        self.problem: str | None = None
        """Why the analysis stopped early, if it did."""
        self._heat: list[tuple[float, int]] = []
        self._fired: list[tuple[int, int, str]] = []
        self._checks: list[tuple[int, int, int]] = []
        self._calls: dict[tuple[str, str], list[int]] = {}
        self._reasons: Counter[str] = Counter()
        self._findings: list[tuple[bool, float, int, str]] = []
        self._static = _static_lists(index)
        self._cached: tuple[int, dict[str, Any]] | None = None

    def add(self, record: dict[str, Any]) -> None:
        """Take one reduced record (or an error record) from the analysis."""
        key = (record.get("compile_id"), str(record.get("name")))
        with self._lock:
            n = self._index.find(key[0], key[1], self._seen[key])
            self._seen[key] += 1
            if n is None:
                return
            if "error" in record:
                self.updates.append([n, None, None, None, None, None, None, None])
                return
            self.updates.append([n, record["loops"], record["traps"], record["fired"], record["checks"],
                                 record["calls"], record["vector"], record["heat"]])
            self._rank(n, record)

    def _rank(self, n: int, record: dict[str, Any]) -> None:
        if record["heat"] is not None:
            self._heat.append((record["heat"], n))
        self._fired.extend((count, n, reason) for reason, count in record["fired_by"].items())
        if record["checks"]:
            self._checks.append((record["checks"], record["range"], n))
        for share, estimate, text in record.get("findings", ()):
            cost = share if share is not None else float(estimate or 0)
            self._findings.append((share is not None, cost, n, text))
        for callee, reason in record["not_inlined"]:
            entry = self._calls.setdefault((callee, reason), [0, n])
            entry[0] += 1
            self._reasons[reason] += 1

    def stop(self, problem: str | None = None) -> None:
        """The analysis is over: done, or stopped for `problem`."""
        with self._lock:
            self.finished = True
            self.problem = problem

    def since(self, start: int) -> dict[str, Any]:
        """The rows' cells analysed from update `start` on, the progress, and the toplists."""
        with self._lock:
            start = max(0, min(start, len(self.updates)))
            return {"rows": self.updates[start:], "next": len(self.updates), "done": len(self.updates),
                    "total": self.total, "finished": self.finished, "problem": self.problem,
                    "toplists": self._toplists()}

    def since_in(self, start: int, shares: dict[int, float]) -> dict[str, Any]:
        """`since` with the heat of a time range (`shares`: each compile id's share of its samples): each row's heat
        cell that share, the hottest list ranked by them (known at once: no analysis needed)."""
        answer = self.since(start)
        ids = [e.row.compile_id for e in self._index.entries]
        rows = [[*u[:-1], u[-1] if u[-1] is None or ids[u[0]] is None else shares.get(ids[u[0]], 0.0)]
                for u in answer["rows"]]
        first: dict[int, int] = {}
        for n, compile_id in enumerate(ids):
            if compile_id is not None:
                first.setdefault(compile_id, n)
        ranked = heapq.nlargest(TOP, ((share, first[c]) for c, share in shares.items() if c in first and share > 0))
        hottest = [_item(n, self._index.name(n), describe.percent((share,))) for share, n in ranked]
        return {**answer, "rows": rows, "toplists": {**answer["toplists"], "hottest": hottest}}

    def _toplists(self) -> dict[str, Any]:
        if self._cached is not None and self._cached[0] == len(self.updates):
            return self._cached[1]
        name = self._index.name
        which = functools.partial(_which, self._index)
        lists = {
            **self._static,
            "hottest": [_item(n, name(n), describe.percent((share,)), which=which(n))
                        for share, n in heapq.nlargest(TOP, self._heat)],
            "fired": [_item(n, name(n), f"{count}×", before=f"{reason} in ", which=which(n))
                      for count, n, reason in heapq.nlargest(TOP, self._fired)],
            "checks": [_item(n, name(n), f"{checks} ({ranges} range)", which=which(n))
                       for checks, ranges, n in heapq.nlargest(TOP, self._checks)],
            "calls": [_item(n, name(n), f"{count}×", callee=callee, after=f": {reason}" if reason else "")
                      for (callee, reason), (count, n) in heapq.nlargest(TOP, self._calls.items(),
                                                                          key=lambda kv: kv[1][0])],
            "reasons": [{"text": reason or "(no log reason)", "value": f"{count}×"}
                        for reason, count in self._reasons.most_common(TOP)],
            "findings": [_item(n, name(n), f"{cost:.2f}%" if measured else f"est. {cost:.0f}", which=which(n),
                               before=text.partition(" ")[0] + " ", callee=text.partition(" ")[2] or None)
                         for measured, cost, n, text in heapq.nlargest(TOP, self._findings)],
        }
        self._cached = (len(self.updates), lists)
        return lists


def _which(index: Index, n: int) -> str:
    """Which compilation row `n` is (`c2 id 14`): a method's compilations are told apart in a toplist."""
    cells = index.entries[n].cells
    return f"{cells[1]} id {cells[2]}" if cells[2] is not None else str(cells[1])


def _item(n: int, method: str, value: str, *, before: str = "", callee: str | None = None,
          after: str = "", which: str = "") -> dict[str, Any]:
    """A toplist's entry for row `n`: `before`, the callee `in` the row's method, `after`, `(which)` compilation,
    as the page shows it, the names short (`describe.short_name`), and whole for its tooltip (`full`); `value` the
    figure beside it."""
    after += f" ({which})" if which else ""
    text = [before, describe.short_name(method), after]
    full = [before, method, after]
    if callee is not None:
        text[0] += describe.short_name(callee) + " in "
        full[0] += callee + " in "
    return {"row": n, "text": "".join(text), "full": "".join(full), "value": value}


def _static_lists(index: Index) -> dict[str, Any]:
    """The toplists the headers alone give: the largest compilations (bytes of `main code`), the methods compiled
    most often."""
    sized = ((e.cells[7], n) for n, e in enumerate(index.entries) if e.cells[7] is not None)
    counts: Counter[str] = Counter(e.row.method for e in index.entries)
    last = {e.row.method: n for n, e in enumerate(index.entries)}
    return {
        "largest": [_item(n, index.name(n), f"{size} B", which=_which(index, n))
                    for size, n in heapq.nlargest(TOP, sized)],
        "most": [_item(last[method], method, f"{count} compilations")
                 for method, count in counts.most_common(TOP) if count > 1],
    }


class Stopper:
    """Ends the background analysis's process from any thread, whatever its own thread is doing then (starting the
    process, or reading a message the process, starved by a busy machine, has half written): the process is not
    left for the interpreter's exit to wait for."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._child: Child[None] | None = None
        self._stopped = False

    def started(self, child: Child[None]) -> None:
        """The analysis's process has started: killed at once if stopping came first."""
        with self._lock:
            self._child = child
            if self._stopped:
                child.kill()

    def stop(self) -> None:
        """Kill the process, now if it runs, else as soon as it starts. Any number of times."""
        with self._lock:
            self._stopped = True
            if self._child is not None:
                self._child.kill()


def fill(board: Board, reading: Reading, how: Enrichment, stop: threading.Event, stopper: Stopper) -> None:
    """Analyse every compilation of the input into `board` until done or `stop` is set (a thread's body);
    `stopper` kills the analysis from the thread that stops the server.

    The analysis runs in a process of its own (and the workers it forks): the server's threads never wait for the
    GIL behind it, and stopping it is one kill, whatever it is computing. The server runs threads, so that process
    starts from the forkserver (`processes.start`), not as a fork of the server."""
    from asmcfg.processes.child import Child

    child: Child[None] = Child(functools.partial(_analyse, reading, how), "asmcfg-facts")
    stopper.started(child)
    problem = None
    try:
        while not stop.is_set():
            if not child.ready(0.2):
                continue
            batch = child.receive()
            if isinstance(batch, str):  # why the analysis stopped
                problem = batch
                break
            for record in batch:
                board.add(record)
    except EOFError:  # the analysis ended
        if not child.ended():
            problem = "the analysis process stopped before it finished (killed, or out of memory)"
    finally:
        child.cancel()  # its workers die with it
        board.stop(problem)


PRELOAD = ("asmcfg.run.parallel", "asmcfg.render.facts", "asmcfg.analyses", "asmcfg.cfg.build", "asmcfg.serve.board")
"""What the background analysis imports, imported once by the forkserver it starts from."""


def _analyse(reading: Reading, how: Enrichment, send: Send) -> None:
    """In the analysis's process: analyse every compilation on all cores and send the reduced records, a few at a
    time; the last message, if any, says why it stopped. Ctrl-C goes to the server, which ends this process."""
    from asmcfg import dialects
    from asmcfg.run import parallel

    with contextlib.suppress(OSError):
        os.nice(BACKGROUND_NICE)  # a page asked for goes first: its process keeps its priority
    options = dialects.ReadOptions(reading.syntax) if reading.syntax is not None else None
    batch: list[dict[str, Any]] = []
    try:
        for record in parallel.analyse_file(reading.path, reduce, dialect=reading.dialect, how=how,
                                            options=options):
            batch.append(record)
            if len(batch) >= _SENT:
                send(batch)
                batch = []
        send(batch)
    except Exception as exc:  # the index and the pages stay usable: the page shows why the columns stopped
        send(batch)
        send(f"{type(exc).__name__}: {exc}")
