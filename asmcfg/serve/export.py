"""`asmcfg FILE --all --html DIR`: the explorer written to a folder, for a CI artifact to keep.

`DIR/index.html` is the `serve` index (its columns, toplists, filter and sort) with the analysis the server would
fill in already in it, so it works opened from the disk; each row links to its compilation's page, the page
`asmcfg FILE --compile-id N --html` writes. The compilations are read, enriched, analysed and drawn on all cores by
the run every whole-log mode uses (`run.parallel`, each through `enrich`); the worker that draws a page writes it
and sends back only the row's record, which waits in a file of the folder until the index is written: memory
stays bounded by the compilations in flight, whatever their count. The folder is filled beside DIR and renamed to
DIR at the end (`files.atomic_folder`): a run that fails leaves DIR as it was.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import itertools
import json
import os
from collections import Counter
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from asmcfg import describe
from asmcfg.errors import SelectionError
from asmcfg.processes import start
from asmcfg.render import html
from asmcfg.render.files import atomic_bytes, atomic_folder, write_to
from asmcfg.render.svg import Renderer
from asmcfg.run import app, drawings, memory, outputs, parallel
from asmcfg.run.pipeline import no_methods_error
from asmcfg.run.progress import Progress
from asmcfg.serve import board, links, pages, top
from asmcfg.serve.opening import Row
from asmcfg.serve.rows import Entry, Index
from asmcfg.sources.lines import display_name
from asmcfg.terminal import visible

if TYPE_CHECKING:
    from multiprocessing.sharedctypes import Synchronized
    from multiprocessing.synchronize import Condition

    from asmcfg.model import Analysis
    from asmcfg.run.log import Log
    from asmcfg.run.options import Options

GRAPHVIZ_MB = 96
"""Graphviz memory (estimated, MB) the processes may have in flight at once: a drawing that would go over waits
until the others are done (one alone always runs)."""
GRAPHVIZ_BASE_MB = 16
"""Graphviz's memory on the smallest graph."""
GRAPHVIZ_DOT_PER_MB = 6_000
"""Bytes of DOT text per MB Graphviz takes beyond its base, erring high: system `dot` 2.43 took 30, 37, 42, 58-72
and 100 MB on 192, 251, 324, 334 and 884 KB of DOT (the last a C1 `JavaTokenizer::readToken` of 65 KB of code,
19 s)."""
INDEX = "index.html"
"""The folder's index page."""
RECORDS = ".records.jsonl"
"""The rows' records, in input order, kept in the folder while it is filled (removed before it is renamed)."""

_pages = itertools.count()


def run(options: Options) -> int:
    """Write the folder `options.html`; returns the exit status (errors are raised as AsmcfgError)."""
    outputs.check_run(options)
    log = app.opened(options)
    options = dataclasses.replace(options, input=log.path, profile=log.profile)
    with Progress(options.input, options.quiet) as progress:
        log.watch(progress)
        return _run(options, log, progress)


def _run(options: Options, log: Log, progress: Progress) -> int:
    assert options.html is not None
    how = log.enrichment_for_each
    drawings.renderers(options.renderer, options.render_timeout)  # one not installed fails before any reading
    select: parallel.Select | None = options.selector.matches if options.selector.any else None
    if options.top is not None:
        select = top.kept(top.top(options, how, select))
    source = display_name(options.input)
    context = start.context()  # the workers' (`processes.pool`): their shared budget is made for them
    budget = _Budget(context.Condition(), context.Value("i", 0), options.render_timeout)
    with atomic_folder(options.html) as folder:
        records = os.path.join(folder, RECORDS)
        with open(records, "w", encoding="utf-8") as spool:
            stats = parallel.RunStats()
            pages_made = log.records(functools.partial(_page, folder, options, budget), select, text=True,
                                     large=True, stats=stats)  # small batches, the heap trimmed now and then
            parallel.write_lines(pages_made, spool)
        progress.close()
        if stats.analysed == 0:
            raise no_methods_error(source) if stats.methods == 0 else SelectionError(
                "no compilation matches the selection (see --list)", source)
        written, notes = _index(folder, records, source)
        os.unlink(records)
    _say(options, written, stats.analysed, notes)
    return 0


def _page(folder: str, options: Options, budget: _Budget, result: Analysis) -> dict[str, Any]:
    """In a worker: write the compilation's page as `--html FILE` writes it; its row's record (the `serve` index's
    cells, the toplists' facts, the page's file and how its graph was drawn when not as asked)."""
    told = drawings.Told("--html")
    page = app.page_options([result], options, told)
    page = dataclasses.replace(page, render=budget.within(page.render),
                               others=tuple(Renderer(r.name, budget.within(r.render)) for r in page.others))
    name = f".page-{os.getpid()}-{next(_pages)}.html"
    write_to(os.path.join(folder, name), lambda out: html.write_html([result], out, page))
    method = result.cfg.method
    header = method.header
    record = board.reduce(result)
    record["cells"] = [header.compiler.value, header.compile_id, header.level, header.osr_bci, header.name,
                       header.bytecode_size, method.main_code_size]
    record["page"] = name
    record["drawn"] = [[drawing.how.value, f"--html: {describe.compilation(header)}: {drawing.note}"]
                       for _, drawing in told.seen]
    memory.trim()  # the page's text and drawing, MBs for a large compilation, go back to the system
    return record


@dataclasses.dataclass(frozen=True, slots=True)
class _Budget:
    """The Graphviz memory the processes of one export have in flight, shared between them."""

    changed: Condition
    """Held to read or change `used`; notified when a drawing ends."""
    used: Synchronized[int]
    """Estimated MB of the drawings running now (in memory the processes share)."""
    patience: float
    """Seconds a drawing waits for room at most (`--render-timeout`: a process that died drawing frees none)."""

    def within(self, render: Callable[[str], bytes]) -> Callable[[str], bytes]:
        """`render`, started once the drawings running leave room for this one."""
        def drawn(dot: str) -> bytes:
            need = GRAPHVIZ_BASE_MB + len(dot) // GRAPHVIZ_DOT_PER_MB

            def room() -> bool:
                return self.used.value == 0 or self.used.value + need <= GRAPHVIZ_MB

            with self.changed:
                if need > GRAPHVIZ_MB // 2 or not room():
                    _shrink()  # this process's free memory back to the system while a large drawing runs
                self.changed.wait_for(room, self.patience)
                self.used.value += need
            try:
                return render(dot)
            finally:
                with self.changed:
                    self.used.value -= need
                    self.changed.notify_all()

        return drawn


def _shrink() -> None:
    """Collect this process's garbage and give the heap's free pages back."""
    gc.collect()
    memory.trim()


def _index(folder: str, records: str, source: str) -> tuple[int, list[str]]:
    """Give each page its name (`id-12.html` by compile id, `id-12-2.html` for the second compilation of a log that
    repeats the id, `row-7.html` by row where the input prints none: `links.page_file`) and write the index; the
    pages written, and what to say of those not drawn as asked, of those whose analysis failed."""
    entries: list[Entry] = []
    written: list[str] = []
    notes: list[str] = []
    drawn: Counter[str] = Counter()
    ordinals: Counter[tuple[int | None, str]] = Counter()
    for record in _read(records):
        if "error" in record:
            notes.append(f"asmcfg: {record.get('name')} (compile id {record.get('compile_id')}): not written: "
                         f"{record['error']}")
            continue
        n = len(entries)
        compile_id, name = record["cells"][1], record["cells"][4]
        entries.append(Entry(Row(compile_id, name, ordinals[(compile_id, name)]), (n, *record["cells"], True)))
        ordinals[(compile_id, name)] += 1
        written.append(record["page"])
        for how, line in record["drawn"]:
            notes.append(line)
            drawn[how] += 1
    ids = [e.row.compile_id for e in entries]
    names = [links.page_file(i, place, n) for n, (i, place) in enumerate(zip(ids, links.places(ids), strict=True))]
    for page_name, final in zip(written, names, strict=True):
        os.rename(os.path.join(folder, page_name), os.path.join(folder, final))
    index = Index(entries)
    found = board.Board(index)
    for record in _read(records):
        if "error" not in record:
            found.add(record)
    found.stop()
    page = pages.index_page(index, source, names, found.since(0))
    atomic_bytes(os.path.join(folder, INDEX), page.body)
    if sum(drawn.values()) > 1:
        counts = ", ".join(f"{n} {describe.DRAWN_COUNTS[how]}" for how, n in _drawn(drawn))
        notes.append(f"--html: {describe.count(sum(drawn.values()), 'compilation')} not drawn as asked: {counts}")
    return len(entries), notes


def _drawn(drawn: Counter[str]) -> Iterator[tuple[Any, int]]:
    from asmcfg.model import Drawn

    return ((how, drawn[how.value]) for how in Drawn if drawn[how.value])


def _read(records: str) -> Iterator[dict[str, Any]]:
    with open(records, encoding="utf-8") as lines:
        for line in lines:
            yield json.loads(line)


def _say(options: Options, written: int, analysed: int, notes: list[str]) -> None:
    """What was not drawn as asked or not written (shown with --quiet too), then what was written."""
    from asmcfg.render.summary import stderr_console

    err = stderr_console()
    for note in notes:
        err.print(visible(note), highlight=False, markup=False, soft_wrap=True)
    if not options.quiet:
        assert options.html is not None
        failed = analysed - written
        err.print(visible(f"wrote {os.path.join(os.path.normpath(options.html), INDEX)}: "
                          f"{describe.count(written, 'compilation')}, a page each"
                          + (f"; {failed} failed" if failed else "")), highlight=False, markup=False, soft_wrap=True)
