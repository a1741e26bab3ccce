"""A whole input read for a choice: its methods counted and checked as they pass, and what is said when nothing
matches."""

from __future__ import annotations

from collections.abc import Iterator

from asmcfg import describe
from asmcfg.errors import AsmcfgError, InputError, SelectionError, StrictError
from asmcfg.model import Method, Unprinted
from asmcfg.run import selection
from asmcfg.run.pipeline import Selector, Stream, no_methods_error
from asmcfg.run.progress import Progress

_MAX_NAMES = 10_000


class Checked(Iterator[Method]):
    """The stream's methods as they pass: stopped at the first skipped line under --strict, counted and named."""

    def __init__(self, stream: Stream, strict: bool, progress: Progress) -> None:
        self._methods = stream.methods
        self._source = stream.source
        self._strict = strict
        self._progress = progress
        self.count = 0
        """Methods read so far."""
        self.names: set[str] = set()
        """Their names (at most _MAX_NAMES), for did-you-mean hints."""

    def __next__(self) -> Method:
        method = next(self._methods)
        if self._strict and method.skipped:
            number, text = method.skipped[0]
            raise StrictError.at(text, self._source, number)
        self.count += 1
        self._progress.found()
        if len(self.names) < _MAX_NAMES:
            self.names.add(method.header.name)
        return method


def unprinted_of(stream: Stream) -> list[Unprinted] | None:
    """The compilations perfasm measured but did not print, when the input is perfasm output (None otherwise)."""
    found = getattr(stream.reader, "unprinted", None)
    return list(found) if found is not None else None


def nothing_selected(stream: Stream, seen: Checked, selector: Selector) -> AsmcfgError:
    """No method at all (say what the input looks like), or none that matches (say how many there are)."""
    missing = [u for u in unprinted_of(stream) or () if selector.matches_header(u.header)]
    if missing:
        hottest = max(missing, key=lambda u: u.share)
        header = hottest.header
        text = describe.unprinted(header.name, hottest.share, hottest.lines, hottest.threshold, header.compile_id)
        return InputError(f"{describe.compilation(header)}: {text}", stream.source)
    if not selector.any or seen.count == 0:
        return no_methods_error(stream.source, stream.head)
    what = selection.wanted(selector.pattern, selector.compile_id, selector.compiler)
    return SelectionError(selection.not_found(what, seen.count, seen.names, selector.pattern), stream.source)
