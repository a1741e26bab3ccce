"""The index of `asmcfg serve OLD NEW`: the whole-log diff's pairs in its rank order (`pairs.rank`), each with what
changed (`pairs.headline`), then the methods only one log compiled; each row names what its page shows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from asmcfg import describe
from asmcfg.compare.pairs import Key, Lone, PairRow, headline_text, rank, rank_lone, ranked_by
from asmcfg.serve import links
from asmcfg.serve.links import NEW, OLD, PAIR
from asmcfg.serve.pages import Page, diff_index_page

if TYPE_CHECKING:
    from asmcfg.run.wholediff import Whole


@dataclass(frozen=True, slots=True)
class Target:
    """What a row of the index opens."""

    kind: str
    """What the row stands for: PAIR (the side-by-side diff page), OLD or NEW (a method only the old (new) log
    compiled: that side's report of its one compilation)."""
    key: Key
    """The method, OSR bci and compiler."""


@dataclass(frozen=True, slots=True)
class DiffIndex:
    """The rows of the index (as the page's JSON) and what each opens, in the same order."""

    rows: list[dict[str, Any]]
    """One per pair, ranked, then one per method of one log."""
    targets: list[Target]
    """What row `n` opens."""
    by_heat: bool
    """True when the pairs are ranked by measured heat (else by size)."""
    links: list[str]
    """Row `n`'s address, naming its compilations by compile id (`links.pair`, `links.one_side`)."""


def build(whole: Whole) -> DiffIndex:
    """The index of a whole-log diff."""
    rows: list[dict[str, Any]] = []
    targets: list[Target] = []
    addresses: list[str] = []
    for n, row in enumerate(rank(whole.rows), 1):
        addresses.append(links.pair(_named(whole, 0, row.key), _named(whole, 1, row.key), len(rows)))
        rows.append(_pair(len(rows), n, row))
        targets.append(Target(PAIR, row.key))
    for side, (kind, lone) in enumerate(((OLD, whole.only[0]), (NEW, whole.only[1]))):
        for method in rank_lone(lone):
            addresses.append(links.one_side(kind, *_named(whole, side, method.key), len(rows)))
            rows.append(_lone(len(rows), kind, method))
            targets.append(Target(kind, method.key))
    return DiffIndex(rows, targets, ranked_by(whole.rows) == "heat", addresses)


def _named(whole: Whole, side: int, key: Key) -> tuple[int | None, int]:
    """The compile id of the compilation of `key` the whole-log diff chose in that log, and its place among the
    log's compilations of that id."""
    header = whole.chosen[side][key].method.header
    return header.compile_id, whole.places[side][header]


def _key(key: Key) -> dict[str, Any]:
    short = describe.short_name(key.method)
    return {"method": key.method, "short": None if short == key.method else short, "compiler": key.compiler.value,
            "osr": key.osr_bci}


def _pair(number: int, rank_no: int, row: PairRow) -> dict[str, Any]:
    h = row.headline
    return {
        "row": number, "kind": PAIR, "rank": rank_no, **_key(row.key),
        "old_id": row.old["compile_id"], "new_id": row.new["compile_id"], "heat": row.heat,
        "traps": [h.traps_added, h.traps_removed], "checks": [h.checks_into_loops, h.checks_out_of_loops],
        "vectors": [*h.vector_loops, h.lost_vectors], "calls": list(h.calls),
        "not_inlined": h.not_inlined, "inlined": h.inlined, "code": list(h.main_code_bytes),
        "changed": h.changed, "summary": headline_text(h),
    }


def _lone(number: int, kind: str, lone: Lone) -> dict[str, Any]:
    old = kind == OLD
    return {
        "row": number, "kind": kind, "rank": None, **_key(lone.key),
        "old_id": lone.compile_id if old else None, "new_id": None if old else lone.compile_id, "heat": lone.heat,
        "traps": None, "checks": None, "vectors": None, "calls": None, "not_inlined": None, "inlined": None,
        "code": [lone.main_code_bytes, None] if old else [None, lone.main_code_bytes], "changed": None, "summary": None,
    }


def index_page(index: DiffIndex, whole: Whole) -> Page:
    """The page: the rows as JSON the table script shows a window of, and what the counts are."""
    changed = sum(1 for row in whole.rows if row.headline.changed)
    data = {
        "names": list(whole.names), "heat": index.by_heat, "rows": index.rows, "pages": index.links,
        "counts": {"pairs": len(whole.rows), "changed": changed, "old": len(whole.only[0]),
                   "new": len(whole.only[1])},
    }
    return diff_index_page(f"asmcfg diff: {whole.names[0]} -> {whole.names[1]}", data)
