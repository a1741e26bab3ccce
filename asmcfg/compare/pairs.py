"""A whole-log diff: the pairs of compilations of the same method in two logs, what changed in each, ranked.

Each pair is one method (with its OSR bci and compiler) as each log compiled it, compared item by item by
`match.diff`; its headline counts what a reader looks for first: traps, checks inside loops, vectorized loops,
real calls and inlining, and the code's size. The JSON document (`WHOLE_SCHEMA`) lists every pair with its
two-compilation diff, then the methods only one log compiled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from asmcfg.compare import gate, report
from asmcfg.compare.gate import Failure
from asmcfg.compare.match import Diff, check_keys
from asmcfg.compare.pairing import pair
from asmcfg.model import Compiler

WHOLE_SCHEMA = 4
"""Version of the whole-log diff's JSON document (the two-compilation document stays `report.DIFF_SCHEMA`)."""


@dataclass(frozen=True, slots=True)
class Key:
    """What pairs two compilations across the logs."""

    method: str
    """`pkg.Class::name`."""
    osr_bci: int | None
    """The OSR entry's bci, None for a normal compilation."""
    compiler: Compiler
    """`c1`, `c2`, `jvmci` or `native` (a wrapper)."""


@dataclass(frozen=True, slots=True)
class Headline:
    """What changed in one pair, counted."""

    traps_added: int
    """Uncommon traps only the new compilation has."""
    traps_removed: int
    """Uncommon traps only the old compilation has."""
    checks_into_loops: int
    """Range and null checks inside a loop of the new compilation that none inside a loop of the old matches
    (the rule of `--fail-on check-in-loop`)."""
    checks_out_of_loops: int
    """The same the other way: checks that left the loops (hoisted, or gone)."""
    vector_loops: tuple[int, int]
    """Vectorized loops, old and new."""
    lost_vectors: int
    """Matched loops whose vectors narrowed or turned scalar (the rule of `--fail-on lost-vector`)."""
    calls: tuple[int, int]
    """Real calls of Java methods, old and new."""
    not_inlined: int
    """Invokes compiled inline before and called now."""
    inlined: int
    """Invokes called before and compiled inline now."""
    main_code_bytes: tuple[int | None, int | None]
    """Bytes of `main code`, old and new."""

    @property
    def changed(self) -> bool:
        """True when any count differs between the sides."""
        return bool(self.traps_added or self.traps_removed or self.checks_into_loops or self.checks_out_of_loops
                    or self.lost_vectors or self.not_inlined or self.inlined
                    or len({self.vector_loops[0], self.vector_loops[1]}) > 1 or self.calls[0] != self.calls[1]
                    or self.main_code_bytes[0] != self.main_code_bytes[1])


def headline(result: Diff) -> Headline:
    """The counts of one pair's diff."""
    def count(what: str, change: str) -> int:
        return sum(1 for c in result.changes if c.what == what and c.change == change)

    in_loops = [[c for c in side.checks if c.loop is not None] for side in (result.old, result.new)]
    _, left, entered = pair(in_loops[0], in_loops[1], check_keys())
    sides = (result.old, result.new)
    code = tuple(side.facts["main_code_bytes"] for side in sides)
    return Headline(
        traps_added=count("trap", "added"), traps_removed=count("trap", "removed"),
        checks_into_loops=len(entered), checks_out_of_loops=len(left),
        vector_loops=(_vectors(result, 0), _vectors(result, 1)), lost_vectors=len(gate.lost_vectors(result)),
        calls=(sum(1 for c in result.old.calls if c.java), sum(1 for c in result.new.calls if c.java)),
        not_inlined=count("call", "not_inlined"), inlined=count("call", "inlined"),
        main_code_bytes=(_int(code[0]), _int(code[1])),
    )


def _vectors(result: Diff, side: int) -> int:
    return sum(1 for loop in (result.old, result.new)[side].loops if loop.vector is not None)


def _int(value: object) -> int | None:
    return value if isinstance(value, int) else None


def headline_text(h: Headline) -> str:
    """The headline in one line, only what changed (`same` when nothing did)."""
    parts = []
    if h.traps_added or h.traps_removed:
        parts.append(f"traps +{h.traps_added} -{h.traps_removed}")
    if h.checks_into_loops or h.checks_out_of_loops:
        parts.append(f"checks in loops +{h.checks_into_loops} -{h.checks_out_of_loops}")
    if h.vector_loops[0] != h.vector_loops[1] or h.lost_vectors:
        lost = f" ({h.lost_vectors} narrower)" if h.lost_vectors else ""
        parts.append(f"vector loops {h.vector_loops[0]} → {h.vector_loops[1]}{lost}")
    if h.calls[0] != h.calls[1] or h.not_inlined or h.inlined:
        moved = [f"{n} {what}" for n, what in ((h.not_inlined, "no longer inlined"), (h.inlined, "now inlined")) if n]
        parts.append(f"calls {h.calls[0]} → {h.calls[1]}" + (f" ({', '.join(moved)})" if moved else ""))
    before, after = h.main_code_bytes
    if before != after:
        growth = f" ({100.0 * (after - before) / before:+.1f}%)" if before and after is not None else ""
        parts.append(f"main code {'-' if before is None else before} → {'-' if after is None else after} B{growth}")
    return "; ".join(parts) or "same"


@dataclass(frozen=True, slots=True)
class PairRow:
    """One pair, reduced to what the table, the index page and the JSON show (its analyses are dropped)."""

    key: Key
    """The method, OSR bci and compiler."""
    old: dict[str, int | str | None]
    """The old compilation's identity and size (`items.compile_facts`)."""
    new: dict[str, int | str | None]
    """The new one's."""
    heats: tuple[float | None, float | None]
    """The old compilation's share of its run's first event, then the new one's; None where not measured."""
    headline: Headline
    """What changed, counted."""
    failures: tuple[Failure, ...]
    """Where a `--fail-on` condition holds in this pair."""
    document: dict[str, Any]
    """The pair's two-compilation diff document (`report.document`)."""
    page: str | None = None
    """The file name of its side-by-side page under `--html DIR`."""

    @property
    def heat(self) -> float | None:
        """The larger of the two sides' shares of their runs (what ranks the pairs), None when neither was
        measured."""
        measured = [h for h in self.heats if h is not None]
        return max(measured) if measured else None

    @property
    def size(self) -> int:
        """The larger side's bytes of `main code` (else instructions): what ranks the pairs when nothing was
        measured."""
        return max(_size(self.old), _size(self.new))


def _size(facts: dict[str, int | str | None]) -> int:
    for measure in ("main_code_bytes", "instructions"):
        value = facts.get(measure)
        if isinstance(value, int):
            return value
    return 0


@dataclass(frozen=True, slots=True)
class Lone:
    """A method only one log compiled (as that compiler, with that OSR bci)."""

    key: Key
    """The method, OSR bci and compiler."""
    compile_id: int | None
    """The compilation the selection rule chose among its compilations."""
    level: int | None
    """Its tier."""
    main_code_bytes: int | None
    """Its bytes of `main code`."""
    heat: float | None
    """Its share of its run, None when not measured."""


def ranked_by(rows: list[PairRow]) -> str:
    """`heat` when some pair was measured, else `size`."""
    return "heat" if any(row.heat is not None for row in rows) else "size"


def rank(rows: list[PairRow]) -> list[PairRow]:
    """Hottest first when measured, else largest first; ties in name order."""
    by_heat = ranked_by(rows) == "heat"
    return sorted(rows, key=lambda r: (-(r.heat or 0.0) if by_heat else 0.0, -r.size, _order(r.key)))


def rank_lone(lone: list[Lone]) -> list[Lone]:
    """Methods of one log, hottest first when measured, else largest first."""
    return sorted(lone, key=lambda m: (-(m.heat or 0.0), -(m.main_code_bytes or 0), _order(m.key)))


def _order(key: Key) -> tuple[str, int, str]:
    return key.method, -1 if key.osr_bci is None else key.osr_bci, key.compiler.value


def key_dict(key: Key) -> dict[str, Any]:
    """The pair's key as JSON."""
    return {"method": key.method, "compiler": key.compiler.value, "osr_bci": key.osr_bci}


def document(rows: list[PairRow], only: tuple[list[Lone], list[Lone]], sides: tuple[dict[str, Any], ...],
             failures: bool) -> dict[str, Any]:
    """The whole-log diff's JSON document: every pair ranked, then the methods of one log; `failures` says
    whether `--fail-on` was given (else each pair's `failures` is null)."""
    return {
        "diff_schema": WHOLE_SCHEMA,
        "mode": "whole_log",
        "old": sides[0], "new": sides[1],
        "ranked_by": ranked_by(rows),
        "pairs": [_pair_dict(n, row, failures) for n, row in enumerate(rank(rows), 1)],
        "only_old": [_lone_dict(m) for m in rank_lone(only[0])],
        "only_new": [_lone_dict(m) for m in rank_lone(only[1])],
    }


def _pair_dict(rank_no: int, row: PairRow, failures: bool) -> dict[str, Any]:
    h = row.headline
    return {
        "rank": rank_no, **key_dict(row.key), "heat": row.heat, "old_heat": row.heats[0], "new_heat": row.heats[1],
        "size": row.size,
        "old_compile_id": row.old["compile_id"], "new_compile_id": row.new["compile_id"],
        "changed": h.changed, "summary": headline_text(h),
        "headline": {
            "traps_added": h.traps_added, "traps_removed": h.traps_removed,
            "checks_into_loops": h.checks_into_loops, "checks_out_of_loops": h.checks_out_of_loops,
            "vector_loops": list(h.vector_loops), "lost_vectors": h.lost_vectors, "calls": list(h.calls),
            "not_inlined": h.not_inlined, "inlined": h.inlined,
            "main_code_bytes": list(h.main_code_bytes),
        },
        "failures": [{"condition": f.condition, "where": f.where} for f in row.failures] if failures else None,
        "page": row.page,
        "diff": row.document,
    }


def _lone_dict(lone: Lone) -> dict[str, Any]:
    return {**key_dict(lone.key), "compile_id": lone.compile_id, "level": lone.level,
            "main_code_bytes": lone.main_code_bytes, "heat": lone.heat}


def pair_document(result: Diff, failures: list[Failure] | None) -> dict[str, Any]:
    """One pair's two-compilation document, without the schema number the whole document carries."""
    found = report.document(result, failures)
    del found["diff_schema"]
    return found
