"""`<branch>` records of a C2 task's parse: the profile of each conditional bytecode as C2 read it
(`<branch target_bci='26' taken='4' not_taken='66558' cnt='66562.000000' prob='never'/>`, after the `<bc>` of the
`if` bytecode)."""

from __future__ import annotations

import re

from asmcfg.dialects.logcompilation.logxml import to_int
from asmcfg.model import LogBranch

_PROB = re.compile(r"[0-9]{1,3}(?:\.[0-9]{1,12})?")
"""A probability as HotSpot prints it (`%20.2f`, padded): ASCII digits only."""


def branch_record(compile_id: int, chain: tuple[tuple[str, int | None], ...], attrs: dict[str, str],
                  line: int) -> LogBranch:
    """The record of a `<branch>` tag's attributes, at the parse's chain (innermost first)."""
    method, bci = chain[0]
    return LogBranch(compile_id, method, bci, to_int(attrs.get("target_bci")), _count(attrs.get("taken")),
                     _count(attrs.get("not_taken")), branch_prob(attrs.get("prob")), line, chain)


def _count(value: str | None) -> int | None:
    """A profile count (`taken='219'`)."""
    return to_int(value) if value is not None else None


def branch_prob(value: str | None) -> float | None:
    """`prob` of a `<branch>`: `never` 0.0, `always` 1.0, `                0.03` 0.03, else None."""
    if value is None:
        return None
    text = value.strip()
    if text in ("never", "always"):
        return 0.0 if text == "never" else 1.0
    if not _PROB.fullmatch(text):
        return None
    prob = float(text)
    return prob if 0.0 <= prob <= 1.0 else None
