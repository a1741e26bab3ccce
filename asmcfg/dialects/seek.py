"""One compilation read from its own bytes of a plain file, found through the header index (`TextSeek`, a
`base.Seek`).

PrintAssembly text (hsdis or `[MachCode]` hex) is read as the parallel path reads it: a `Piece` that starts and ends
where a method starts after a finished one (`[/Disassembly]` before it, as `split.next_cut` cuts), with the JDK the
last `# VM version` line before it named. Line numbers count from the file's start, so the method is the one the
whole-input reader gives. A text file's index finds its headers only, and the opening then needs the file's newline
counts (the numbers of its lines) and, for a choice, whether a line of it is sampled: both are looked for in the
index's own pass, in each window while its pages are in memory, and kept in the cache as the survey would keep them
(`passes.counted`, `TextSeek.surveyed`), so that no second pass reads the file. A dialect read otherwise (a
LogCompilation log, `logcompilation.seek`) is a subclass.
"""

from __future__ import annotations

import mmap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from asmcfg.dialects.base import IndexRecord, ReadOptions
from asmcfg.dialects.dialect import Dialect
from asmcfg.dialects.passes import before
from asmcfg.model import Method
from asmcfg.sources.split import ENDS, Piece, method_start

if TYPE_CHECKING:
    from asmcfg.dialects.passes import Look
    from asmcfg.sources.lines import Meter

REACH = 256
"""Records looked at before and after the compilation for a clean cut; past them the input is read whole."""
_CLEAN = 256
"""Bytes before a method start in which a finished method's end is looked for (as `split.next_cut` does)."""
SURVEY = "survey"
"""What the cache calls its answers to "does the file hold a sampled line, and how many compilations does it
print" (`TextSeek.surveyed`)."""


@dataclass(slots=True)
class Counts:
    """The lines a piece read apart holds outside any method (not needed here)."""

    outside: int = 0


PIECE_BYTES = 16 << 20
"""Text around the chosen method beyond which it is not read as one piece (a method followed by tens of MB of a
program's output, say): the whole-input read streams it in bounded memory instead."""


def read_text(
    view: mmap.mmap, offsets: Sequence[int], chosen: int, dialect: Dialect, source: str, options: ReadOptions,
    path: str | None = None,
) -> Method | None:
    """The method whose `Compiled method` header line starts at `offsets[chosen]` (the index's offsets of every
    header, in order), read from a piece of whole methods around it; None when no clean cut is near."""
    bounds = _bounds(view, offsets, chosen)
    if bounds is None:
        return None
    start, end = bounds
    if end - start > PIECE_BYTES:  # read as one piece, its lines would all be held at once: stream the input
        return None
    first, jdk = before(view, start, path)
    header_line = first + view[start : offsets[chosen]].count(b"\n")
    piece = Piece(first, view[start:end], start, jdk)
    for method in dialect.read_piece(piece, source, options, Counts()):
        if method.header.line == header_line:
            return method
    return None


def _bounds(view: mmap.mmap, offsets: Sequence[int], chosen: int) -> tuple[int, int] | None:
    """Where the piece holding the chosen method starts and ends: method starts after a finished method (or the
    input's ends)."""
    start = end = None
    for j in range(chosen, max(chosen - REACH, -1), -1):
        cut = method_start(view, offsets[j], offsets[j - 1] if j else 0)
        if j == 0 or _clean(view, cut):
            start = 0 if j == 0 else cut
            break
    for k in range(chosen + 1, min(chosen + 1 + REACH, len(offsets) + 1)):
        if k == len(offsets):
            end = len(view)
            break
        cut = method_start(view, offsets[k], offsets[k - 1])
        if _clean(view, cut):
            end = cut
            break
    return None if start is None or end is None else (start, end)


def _clean(view: mmap.mmap, cut: int) -> bool:
    return view[max(0, cut - _CLEAN) : cut].rstrip().endswith(ENDS)


class TextSeek:
    """A mapped PrintAssembly text file: its `Compiled method` headers indexed, a compilation read as the text between
    method starts around its header."""

    def __init__(self, dialect: Dialect, view: mmap.mmap, path: str, source: str, options: ReadOptions) -> None:
        self.dialect, self.view, self.path, self.source, self.options = dialect, view, path, source, options
        self._named: tuple[int, list[tuple[int, int]]] | None = None
        """The compile id last searched for, and (start, number) of the lines that name it."""
        self._answer: dict[str, Any] | None = None
        """The survey's answers (`surveyed`), once known."""

    def last_c2(self, tails: Sequence[int]) -> IndexRecord | None:
        return None  # the index of a text file's tail would find its headers alone: the whole one costs little more

    def direct(self, compile_id: int) -> list[IndexRecord] | None:
        return None

    def index(self, meter: Meter | None, choosing: bool) -> list[IndexRecord]:
        """Every compilation, from the index; where the cache does not keep the file's newline counts, they are found
        and kept in the same pass, and when `choosing` (no compile id is asked for: heat may decide the choice)
        whether a line is sampled too."""
        from asmcfg.dialects import passes
        from asmcfg.dialects.index import index_file, index_looking
        from asmcfg.dialects.perfasm.saved import sampled_in
        from asmcfg.sources import cache

        view, path = self.view, self.path
        if passes.all_kept(view, path):
            return list(index_file(path, meter, self.dialect.name))
        asking = choosing and cache.load(SURVEY, path) is None
        looks = [passes.newlines, *([sampled_in] if asking else [])]
        records, looked = index_looking(view, meter, self.dialect.name, looks)
        if passes.keep_windows(view, path, looked) and asking:
            cache.store(SURVEY, path, {"sampled": any(found[1] for _, _, found in looked), "printed": None})
        return records

    def heat_decides(self) -> bool:
        return self._answer is not None and self._answer["sampled"] and (self._answer["printed"] or 0) > 1

    def surveyed(self, compile_id: int | None = None) -> tuple[bool, int]:
        """Whether a line of the input is sampled, and how many compilations it prints where the index does not
        count them (`_printed`), from one pass that also counts the lines and finds those naming `compile_id`
        (`_naming`); kept in the cache with the counts, so a next run makes no pass but the search for a compile id."""
        from asmcfg.dialects import passes
        from asmcfg.dialects.perfasm.saved import sampled_in
        from asmcfg.sources import cache

        printed = self._printed()
        answer = self._answer or cache.load(SURVEY, self.path)
        known = (isinstance(answer, dict) and type(answer.get("sampled")) is bool
                 and (type(answer.get("printed")) is int or printed is None))
        if known and (compile_id is None or (answer["sampled"] and answer["printed"] > 1)):  # heat: read whole
            self._answer = answer
            return answer["sampled"], answer["printed"] or 0
        counting = not known and printed is not None
        looks: list[Look] = ([] if known else [sampled_in]) + ([printed] if printed is not None and counting else [])
        naming = None if compile_id is None else self._naming(compile_id)
        if naming is not None:
            looks.append(passes.holding(naming))
        counts, found = passes.counted(self.view, self.path, looks)
        if compile_id is not None and naming is not None:
            self._named = (compile_id, passes.numbered(counts, [chunk[-1] for chunk in found]))
        if not known:
            answer = {"sampled": any(chunk[0] for chunk in found),
                      "printed": sum(chunk[1] for chunk in found) if counting else None}
            cache.store(SURVEY, self.path, answer)
        self._answer = answer
        assert answer is not None
        return answer["sampled"], answer["printed"] or 0

    def _printed(self) -> Look | None:
        """The look that counts the compilations the file prints where its index does not; None: it does."""
        return None

    def _naming(self, compile_id: int) -> bytes | None:
        """The text every line naming `compile_id` holds, where the dialect searches for them; else None."""
        return None

    def read(self, records: Sequence[IndexRecord], chosen: IndexRecord) -> Method | None:
        offsets = [r.offset for r in records]
        at = next(i for i, r in enumerate(records) if r is chosen)
        return read_text(self.view, offsets, at, self.dialect, self.source, self.options, self.path)
