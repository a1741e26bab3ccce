"""`asmcfg.diff`: two compilations of two opened inputs compared, as `asmcfg diff` compares them."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from asmcfg.compare.match import Diff
    from asmcfg.model import Compiler
    from asmcfg.run.log import Log


def diff(old: Log, new: Log, *, method: str | None = None, compiler: Compiler | None = None,
         old_compile_id: int | None = None, new_compile_id: int | None = None) -> Diff:
    """The compilation `old.choose` picks compared with the one `new.choose` picks, both analysed as every mode
    analyses them: what `asmcfg diff` reports, as records."""
    from asmcfg.compare import items
    from asmcfg.compare.match import diff as compare

    sides = [log.analyse(log.choose(method, compile_id, compiler)).analysis
             for log, compile_id in ((old, old_compile_id), (new, new_compile_id))]
    return compare(items.side(sides[0]), items.side(sides[1]))
