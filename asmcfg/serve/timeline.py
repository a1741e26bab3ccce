"""The run over time in `asmcfg serve`: the timeline page of a record folder (of a LogCompilation log, its JIT events
alone), and the time ranges it chooses. `?from=MS&to=MS` on the index, its analysis and a compilation's page keeps
the samples of that stretch of the run alone, read as `--from`/`--to` read them (a `Log` opened with that window):
the heat column, the hottest list and the heat on each compilation's page count those samples only."""

from __future__ import annotations

import re
import shlex
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

from asmcfg.errors import AsmcfgError
from asmcfg.serve import pages

if TYPE_CHECKING:
    from collections.abc import Callable

    from asmcfg.model.timeline import Window
    from asmcfg.run.enrich import Enrichment
    from asmcfg.run.log import Log
    from asmcfg.serve.opening import Reading
    from asmcfg.serve.rows import Index

WHOLE: Window = (None, None)
"""No range: every sample."""
RANGES = 4
"""Time ranges whose samples are kept read (least recently used first out): each is one read of the samples."""
NO_SAMPLES = ("a time range (`from`, `to`) keeps a record folder's samples of a stretch of the run: this input has "
              "no samples")
_MS = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,3})?")
"""A time as a request may give it: ms, at most 9 digits and 3 decimals (a request's text is not trusted)."""


class RangeError(AsmcfgError):
    """A `from` or `to` a request gives that is no time range of the run."""


def window_of(query: dict[str, list[str]]) -> Window:
    """The time range `?from=MS&to=MS` names (either may be left out); WHOLE when neither is given."""
    found: list[float | None] = []
    for key in ("from", "to"):
        given = query.get(key)
        if not given or given == [""]:
            found.append(None)
            continue
        if len(given) > 1 or _MS.fullmatch(given[0]) is None:
            raise RangeError(f"`{key}` is a time in ms from the JVM's start, as `{key}=1500` (digits, at most 3 "
                             "decimals)")
        found.append(float(given[0]))
    low, high = found
    if low is not None and high is not None and high <= low:
        raise RangeError(f"`to` ({high:g} ms) must come after `from` ({low:g} ms)")
    return low, high


def asked(timeline: Timeline | None, query: dict[str, list[str]]) -> Window:
    """The time range `?from=MS&to=MS` asks for (WHOLE when neither is given); a RangeError when it is none of
    the samples of the input `timeline` is of (None: an input without JIT events)."""
    if "from" not in query and "to" not in query:
        return WHOLE
    if timeline is None or not timeline.sampled:
        raise RangeError(NO_SAMPLES)
    return window_of(query)


def query_of(window: Window) -> str:
    """The query that names `window` (`?from=1500&to=3000`), empty for WHOLE."""
    parts = [f"{key}={value:g}" for key, value in zip(("from", "to"), window, strict=True) if value is not None]
    return "?" + "&".join(parts) if parts else ""


def words(window: Window) -> str:
    """`samples from 1,500 ms to 3,000 ms`, as the pages say it."""
    low, high = window
    if low is None:
        return f"samples before {high:,g} ms" if high is not None else "every sample"
    return f"samples from {low:,g} ms" + (f" to {high:,g} ms" if high is not None else " on")


class Timeline:
    """The served input's run over time: its page (made on first request) and, of a record folder with samples,
    the enrichment and the shares of each time range asked for."""

    def __init__(self, log: Log, given: str, links: dict[int, str], opened: Callable[[Window], Log]) -> None:
        self._log = log
        self._given = given
        self._links = links
        """Each compile id's page (its first place in the index)."""
        self._opened = opened
        self._page: pages.Page | None = None
        self._problem: str | None = None
        self._ranges: OrderedDict[Window, tuple[Enrichment, dict[int, float]]] = OrderedDict()
        self._lock = threading.Lock()
        self._reading = threading.Lock()
        """Held while the timeline or a range's samples are read: one read at a time."""

    @property
    def sampled(self) -> bool:
        """True when the input has samples a time range can restrict (a record folder's)."""
        return self._log.samples is not None

    def page(self) -> pages.Page:
        """The timeline page, made the first time (an input error: a page saying why)."""
        with self._reading:
            if self._page is None and self._problem is None:
                try:
                    self._page = self._make()
                except AsmcfgError as error:
                    self._problem = str(error)
        if self._page is None:
            return pages.problem_page("the run over time", self._problem or "no timeline")
        return self._page

    def _make(self) -> pages.Page:
        from asmcfg.facts.story import storms
        from asmcfg.facts.timeline import build
        from asmcfg.run.timeline import as_document, read

        jit, binned = read(self._log, WHOLE)
        timeline = build(jit, binned)
        document = as_document(timeline, [], storms(timeline, binned))
        return pages.timeline_page(document, f"{self._log.source}: the run over time", self._given,
                                   {"pages": {str(k): v for k, v in self._links.items()}, "served": True})

    def enrichment(self, window: Window) -> Enrichment:
        """The enrichment of the samples of `window` alone (read on first use, kept for the last RANGES)."""
        return self._range(window)[0]

    def shares(self, window: Window) -> dict[int, float]:
        """Each sampled compile id's share of the JVM's samples in `window`."""
        return self._range(window)[1]

    def _range(self, window: Window) -> tuple[Enrichment, dict[int, float]]:
        with self._lock:
            kept = self._ranges.get(window)
            if kept is not None:
                self._ranges.move_to_end(window)
                return kept
        with self._reading:
            with self._lock:
                kept = self._ranges.get(window)
            if kept is None:
                how = self._opened(window).enrichment_for_each
                kept = (how, how.perf.shares() if how.perf is not None else {})
        with self._lock:
            self._ranges[window] = kept
            self._ranges.move_to_end(window)
            while len(self._ranges) > RANGES:
                self._ranges.popitem(last=False)
        return kept


def offered(log: Log, reading: Reading, index: Index, addresses: list[str], extra: tuple[str | None, str | None],
            jdk: int | None) -> Timeline | None:
    """The run over time of a record folder or of a LogCompilation log (its JIT events), else None. A time range
    opens the input again as `--from`/`--to` do, with that window (`reading` as given, `extra` its `--log` and
    `--profile`)."""
    from asmcfg.dialects.heatfiles import is_compile_log
    from asmcfg.model import Syntax
    from asmcfg.run.log import Log
    from asmcfg.sources.lines import STDIN

    if log.folder is None and (log.path == STDIN or not is_compile_log(log.path)):
        return None
    pages: dict[int, str] = {}
    for entry, address in zip(index.entries, addresses, strict=True):
        if entry.row.compile_id is not None:
            pages.setdefault(entry.row.compile_id, address)

    def opened(window: Window) -> Log:
        return Log(log.folder or log.path, log=extra[0], profile=extra[1], pid=log.pid, input_format=reading.dialect,
                   syntax=reading.syntax or Syntax.ATT, jdk=jdk, window=window)

    return Timeline(log, shlex.quote(reading.path), pages, opened)
