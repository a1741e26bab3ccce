"""The index of a large plain file one compilation of which the opening reads (`opening`).

A text file's index finds its headers only, and the opening then needs the file's newline counts (the numbers of
its lines) and, for a choice, whether a line of it is sampled: both are looked for in the index's own pass, in each
window while its pages are in memory, and kept in the cache as the opening's own passes would keep them
(`passes.counted`, `opening._surveyed`), so that no second pass reads the file. A LogCompilation log, or a file
whose counts the cache keeps, is indexed alone.
"""

from __future__ import annotations

import mmap
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from asmcfg.dialects.base import Dialect, IndexRecord
    from asmcfg.sources.lines import Meter

SURVEY = "survey"
"""What the cache calls its answers to "does the file hold a sampled line, and how many compilations does it
print" (`opening._surveyed`)."""


def index_whole(
    view: mmap.mmap, path: str, dialect: Dialect, meter: Meter | None, choosing: bool
) -> list[IndexRecord]:
    """Every compilation of the mapped file at `path`, from its index; for a text file whose counts the cache does
    not keep, its newline counts found and kept in the same pass, and when `choosing` (no compile id is asked
    for: heat may decide the choice) whether a line is sampled too."""
    from asmcfg.dialects import passes
    from asmcfg.dialects.index import index_file, index_looking
    from asmcfg.dialects.perfasm.saved import sampled_in
    from asmcfg.sources import cache

    if dialect.by_record or passes.all_kept(view, path):
        return list(index_file(path, meter, dialect.name))
    asking = choosing and cache.load(SURVEY, path) is None
    records, looked = index_looking(view, meter, dialect.name, [passes.newlines, *([sampled_in] if asking else [])])
    if passes.keep_windows(view, path, looked) and asking:
        cache.store(SURVEY, path, {"sampled": any(found[1] for _, _, found in looked), "printed": None})
    return records
