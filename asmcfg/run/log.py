"""The one way in: `asmcfg.open(path)` gives a `Log`, the object between an input and its analysed compilations.

A `Log` resolves an `asmcfg record` folder to its JVM's log and samples, loads the enrichment (`log=`, `profile=`,
the recording's samples) once, opens a large plain file (or the cache's plain copy of a large compressed one)
through the header index, and applies the one choice rule (`choose`). Every mode consumes one: the one-compilation
run, `asmcfg diff`, the explorer. What a user should be told is kept in `Log.notes`, as values: the library never
prints.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from asmcfg import dialects
from asmcfg.model import Compiler, DialectName, NoteKind, Syntax
from asmcfg.run.compilations import Compilation
from asmcfg.run.logtimes import RunOverTime
from asmcfg.run.progress import Progress
from asmcfg.sources.lines import display_name

if TYPE_CHECKING:  # the rest loads on first use: `--list` of a large file needs none of it
    from asmcfg.model import Analysis, Method, Unprinted
    from asmcfg.run import enrich
    from asmcfg.run.choosing import Checked
    from asmcfg.run.matching import Listing
    from asmcfg.run.parallel import RunStats, Select
    from asmcfg.run.pipeline import Picked, Selector, Stream


@dataclass(frozen=True, slots=True)
class Note:
    """Something a `Log` tells its user."""

    kind: NoteKind
    """What it is about."""
    text: str
    """One sentence, as the command line prints it."""


class Log(RunOverTime):
    """One input opened: an `asmcfg record` folder, a PrintAssembly or perfasm dump, a LogCompilation log (plain or
    compressed). Made by `asmcfg.open`."""

    def __init__(self, path: str, *, log: str | None = None, profile: str | None = None, pid: int | None = None,
                 input_format: DialectName | None = None, syntax: Syntax = Syntax.ATT, jdk: int | None = None,
                 paths: int = 3, skid: bool = False, strict: bool = False, progress: Progress | None = None,
                 window: tuple[float | None, float | None] = (None, None)) -> None:
        from asmcfg.run.recorded import resolve

        self.notes: list[Note] = []
        """What the user should be told, in the order it happened."""
        self.folder: str | None = None
        """The record folder given, None for a file."""
        self.pid: int | None = None
        """The recorded JVM read, of a record folder."""
        self.samples: str | None = None
        """A record folder's `perf script` text (every JVM's samples), None for a file or a folder without it."""
        found = resolve(path, pid)
        if found is not None:
            self.folder, self.pid, self.samples = found.folder, found.pid, found.perf_script
            path, profile = found.log, profile or found.perf_script
            if found.note is not None:
                self.notes.append(Note(NoteKind.JVM_CHOSEN, found.note))
        self.path = path
        """The input read: the given file, or a record folder's log of the JVM chosen."""
        self.source = display_name(path)
        """The input as messages name it."""
        self.log, self.profile = log, profile
        self.input_format, self.strict = input_format, strict
        self.options = dialects.ReadOptions(syntax)
        """How its dialect reads it."""
        self.unprinted: list[Unprinted] | None = None
        """Of perfasm output, once a choice has read it: the compilations perfasm measured but did not print."""
        self._progress = progress or Progress()
        self._analysing = (jdk, paths, skid, window)  # window: of a recording, the samples of that stretch alone
        self._how: enrich.Enrichment | None = None
        self._taken = 0

    @property
    def enrichment(self) -> enrich.Enrichment:
        """The log's records, the profile's heat and the analysis options every compilation gets, loaded on first
        use (a bad log or profile raises then)."""
        from asmcfg.run import enrich

        if self._how is None:
            jdk, paths, skid, when = self._analysing
            self._how = enrich.load(self.log, self.profile, jdk, paths, True, source=self.path, skid=skid, window=when)
        return self._how

    @property
    def enrichment_for_each(self) -> enrich.Enrichment:
        """`enrichment` for a compilation read among all of the input's: one whose compile id the log gives to
        another method is left without the log's records, rather than an error."""
        return dataclasses.replace(self.enrichment, strict_log=False)

    def compilations(self) -> list[Compilation]:
        """The input's compilations in input order, fast and without analysing them: found by the header index
        where the input's dialect has one (a large compressed input through the cache's plain copy), else read."""
        return list(self.iter_compilations())

    def iter_compilations(self) -> Iterator[Compilation]:
        """`compilations()` one at a time, as they are found."""
        from asmcfg.run.compilations import rows

        return rows(self.path, self.input_format, self.enrichment, self._plain_of, self.options, self._meter())

    def indexed(self) -> Iterator[Compilation]:
        """The compilations the header index finds, one at a time, whatever the input's dialect: nothing is read
        but their headers (no heat, and perfasm's unprinted compilations are not among them)."""
        from asmcfg.run.compilations import index_rows

        return index_rows(self.plain() or self.path, self.input_format, self._meter())

    def _plain_of(self, path: str) -> str | None:
        from asmcfg.run.plain import plain_copy

        return plain_copy(path, self._decompressed)

    def plain(self) -> str | None:
        """The input as a large plain file: itself, or the cache's plain copy of a large compressed one (made now,
        and noted, the first time); None for standard input and small files, which are read whole."""
        return self._plain_of(self.path)

    def read(self, row: Compilation) -> Method:
        """The compilation a row of `compilations` stands for, read from the input (complete, not analysed)."""
        from asmcfg.run.compilations import read_compilation

        return read_compilation(self.path, self.input_format, self.options, row.compile_id, row.method, row.ordinal,
                                row.printed)

    def choose(self, method: str | None = None, compile_id: int | None = None,
               compiler: Compiler | None = None) -> Picked:
        """The compilation the one rule picks among those matching: the one the profile's samples land on (a perfasm
        `profile=` and no criterion), else the hottest when the input carries heat, else the last C2, else the last;
        `Picked.rule` says which. A method pattern no compilation is named by matches those that inline it."""
        from asmcfg.run.pipeline import Selector

        return self.choose_by(Selector(method, compile_id, compiler))

    def choose_by(self, selector: Selector, *, counted: bool = True) -> Picked:
        """`choose` with the criteria as a `Selector`; `counted` asks for the count of all compilations (`total`),
        which the opening of a large file through the index otherwise skips."""
        how = self.enrichment
        if not self.strict and how.profile is None and (how.perf is None or selector.compile_id is not None):
            from asmcfg.run import opening

            opened = opening.open_one(self.path, selector, self.options, forced=self.input_format, meter=self._meter(),
                                      counted=counted, say=self._decompressed)
            if opened is not None:  # read from its own bytes, found through the index
                self.unprinted = None
                return opened
        return self.choose_each((selector,))[0]

    def choose_each(self, selectors: Sequence[Selector]) -> list[Picked]:
        """`choose` of each selector, reading the input once (the two sides of a diff of one input)."""
        from asmcfg.run import enrich
        from asmcfg.run.choosing import Checked, nothing_selected, unprinted_of
        from asmcfg.run.pipeline import open_input, pick_each, pick_one, pick_profiled

        how = self.enrichment
        stream = open_input(self.path, self.input_format, self.options, meter=self._meter())
        methods = Checked(stream, self.strict, self._progress)
        if how.profile is not None and len(selectors) == 1 and not selectors[0].any:
            picks: list[Picked | None] = [pick_profiled(methods, how.profile.profiles, how.profile.hottest_unprinted())]
        elif len(selectors) == 1:
            picks = [pick_one(enrich.measured(methods, how), selectors[0])]
        else:
            picks = pick_each(enrich.measured(methods, how), selectors)
        self.unprinted = how.profile.unprinted if how.profile is not None else unprinted_of(stream)
        chosen = []
        for picked, selector in zip(picks, selectors, strict=True):
            if picked is None:
                raise nothing_selected(stream, methods, selector)
            chosen.append(dataclasses.replace(picked, method=stream.complete(picked.method)))
        return chosen

    def analyse(self, compilation: Picked | Compilation | Method | int, *, alone: bool = True) -> enrich.Enriched:
        """A compilation (chosen, listed, read, or named by its compile id) with the log's records and the profile's
        heat, analysed: the model every renderer takes, and how the profile landed on it. A compile id the log
        gives to another method is an error for a compilation analysed `alone`; one of many (`alone=False`, as
        `each` reads them) is left without the log's records."""
        from asmcfg.run import enrich
        from asmcfg.run.pipeline import Picked

        if isinstance(compilation, int):
            compilation = self.choose(compile_id=compilation)
        elif isinstance(compilation, Compilation):
            compilation = self.read(compilation)
        method = compilation.method if isinstance(compilation, Picked) else compilation
        how = self.enrichment if alone else self.enrichment_for_each
        return enrich.enrich(method, how)

    def stream(self, selector: Selector | None = None, *, workers: int | None = 1) -> Iterator[Analysis]:
        """Every compilation (or those `selector` matches) enriched and analysed, in input order, one at a time:
        memory holds a batch of compilations, not the input. `workers` processes share the work (this one
        included); `None` takes every core."""
        return self.records(_analysis, selector, workers=workers)

    def records(self, serialize: Callable[[Analysis], Any], selector: Selector | Select | None = None, *,
                workers: int | None = None, text: bool = False, large: bool = False,
                stats: RunStats | None = None) -> Iterator[Any]:
        """`serialize` of each compilation `stream` gives (`selector` may also be a test of a read compilation),
        made where the compilation was analysed (in a worker process when `workers` is not 1; `None` takes every
        core); a compilation whose analysis fails gives an error record instead. `text` sends JSON text instead
        of what `serialize` gives when that is not text; `large` says the records are larger than their input
        (fewer kept in flight); `stats` is filled in as the records come."""
        from asmcfg.run import parallel
        from asmcfg.run.pipeline import Selector

        how = self.enrichment_for_each
        select = (selector.matches if selector.any else None) if isinstance(selector, Selector) else selector
        job = parallel.Job(self.source, None, serialize, text, how, select, self.options, self.strict, large)
        return parallel.analysed(self.path, job, workers, self.input_format, stats or parallel.RunStats(),
                                 self._progress)

    def each(self, selector: Selector) -> Iterator[Method]:
        """Every compilation the selector matches by its own name (else those that inline a matching method), read
        whole and complete but not analysed, in input order; none raises the error that says what the input holds."""
        from asmcfg.run.choosing import nothing_selected
        from asmcfg.run.matching import matching, whole

        stream, methods = self._reading()
        found = matching(methods, selector, whole)
        if not found:
            raise nothing_selected(stream, methods, selector)
        return (stream.complete(method) for method, _ in found)

    def listing(self, selector: Selector) -> Listing:
        """The rows `--list` shows of a read of the whole input: the compilations the selector matches by their own
        name (else those that inline a matching method) with a recording's shares, and perfasm's unprinted ones."""
        from asmcfg.render import listing
        from asmcfg.run import enrich
        from asmcfg.run.choosing import nothing_selected, unprinted_of
        from asmcfg.run.matching import Listing, matching, run_labels

        stream, methods = self._reading()
        found = matching(enrich.measured(methods, self.enrichment), selector, listing.listed)
        unprinted = [u for u in unprinted_of(stream) or () if selector.matches_header(u.header)]
        return Listing([row for row, _ in found], unprinted, run_labels(stream, found),
                       lambda: nothing_selected(stream, methods, selector))

    def reading(self) -> Stream:
        """The input opened for one read of all of it: its compilations stream by one at a time, read but not
        completed or analysed (`Stream.complete` adds what the input says after all the code)."""
        from asmcfg.run.pipeline import open_input

        return open_input(self.path, self.input_format, self.options, meter=self._meter())

    def _reading(self) -> tuple[Stream, Checked]:
        """`reading`, its methods checked (`strict`) and counted as they pass."""
        from asmcfg.run.choosing import Checked

        stream = self.reading()
        return stream, Checked(stream, self.strict, self._progress)

    def news(self) -> list[Note]:
        """The notes added since the last call (all of them the first time): what a mode says at each point."""
        fresh = self.notes[self._taken:]
        self._taken = len(self.notes)
        return fresh

    def watch(self, progress: Progress) -> None:
        """Tell `progress` of the bytes read and the compilations found from now on."""
        self._progress = progress

    def _meter(self) -> Any:
        return self._progress.read if self._progress.shown else None

    def _decompressed(self, text: str) -> None:
        self.notes.append(Note(NoteKind.DECOMPRESSED, text))


def _analysis(result: Analysis) -> Any:
    """The analysis itself, as `Log.stream` yields it (the parallel engine's serializer)."""
    return result


def open(path: str, *, log: str | None = None, profile: str | None = None, pid: int | None = None,
         input_format: DialectName | str | None = None, syntax: Syntax | str = Syntax.ATT, jdk: int | None = None,
         strict: bool = False) -> Log:
    """Open an input: a HotSpot output file (plain, `.gz`, `.xz`, `.bz2`), `-` for standard input, or an `asmcfg
    record` folder (`pid` chooses among its JVMs). `log` is a LogCompilation log of the same run, `profile` JMH
    perfasm output or `perf script` text of it; `input_format` forces a dialect instead of sniffing; `jdk` the JDK
    whose tables decode the traps; `strict` makes a line not understood inside a method an error."""
    forced = DialectName(input_format) if input_format is not None else None
    return Log(path, log=log, profile=profile, pid=pid, input_format=forced, syntax=Syntax(syntax), jdk=jdk,
               strict=strict)

