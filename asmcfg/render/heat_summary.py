"""The measured-heat part of the summary: top blocks, ranked hot paths, cold share, method share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from asmcfg import describe
from asmcfg.facts import heat_report, report
from asmcfg.model import Analysis, Unprinted
from asmcfg.render import literal
from asmcfg.terminal import visible

TOP_BLOCKS = 10
SHOWN = 0.05
"""Unattributed percentages below this are perfasm's rounding, not missing samples."""
PLAIN: dict[str, Any] = {"highlight": False, "markup": False, "soft_wrap": True}


def _pct(values: tuple[float, ...]) -> str:
    return describe.percent(values)


def write_heat(result: Analysis, console: Console) -> None:
    """Print the profile's figures for one method (nothing when it has no profile)."""
    profile = result.cfg.method.profile
    if profile is None:
        return
    events = " / ".join(profile.events)
    share = profile.method_share or heat_report.method_heat(result)
    counted = f", {sum(profile.samples.values()):,} samples" if profile.samples else ""
    basis = describe.share_basis(bool(profile.samples))
    console.print(
        visible(f"profile {profile.source}: {events}{counted}; this compilation holds {_pct(share)} of {basis}"),
        highlight=False,
        markup=False,
    )
    if profile.samples:
        console.print(describe.skid_note(profile.skid), **PLAIN)
    console.print(_top_blocks(result))
    console.print(_paths(result))
    if uncounted_cycle(result):
        console.print(describe.UNCOUNTED_CYCLE, highlight=False, markup=False)
    cold = heat_report.cold_share(result)
    console.print(
        f"cold code (traps, stubs, handlers, check failures, out-of-line): {_pct(cold.heat)} of {basis}, "
        f"{' / '.join(f'{s:.1%}' for s in cold.share)} of this method's samples",
        highlight=False,
        markup=False,
    )
    _unattributed(result, console)


def _unattributed(result: Analysis, console: Console) -> None:
    found = heat_report.unattributed(result)
    if found is None:
        return
    if max(found.heat, default=0.0) >= SHOWN:
        regions = "; ".join(
            f"region {r.number}: total {_pct(r.total)}, printed {_pct(r.printed)}, on no line {_pct(share)}"
            + (f" (not printed: {r.too_big} lines)" if r.too_big else "")
            for r, share in found.regions
        )
        console.print(visible(f"{describe.UNATTRIBUTED}: {_pct(found.heat)} of the run ({regions})"), **PLAIN)
        advice = report.unattributed_advice(result, found)
        if advice:
            console.print(visible(advice), **PLAIN)
    if max(found.elsewhere, default=0.0) >= SHOWN:
        console.print(f"in regions perfasm did not print (below its threshold): {_pct(found.elsewhere)} of the run",
                      **PLAIN)


def write_unprinted(items: Sequence[Unprinted], console: Console) -> None:
    """One line per compilation perfasm measured but did not print."""
    for item in items:
        header = item.header
        console.print(visible(f"{describe.compilation(header)}: "
                              + describe.unprinted(header.name, item.share, item.lines, item.threshold,
                                                   header.compile_id)), **PLAIN)


def _top_blocks(result: Analysis) -> Table:
    table = Table(
        title=literal.title(f"Hottest blocks ({' / '.join(result.cfg.method.profile.events)})"),  # type: ignore[union-attr]
        title_justify="left",
    )
    for column in ("block", "addresses", "share", "ins", "source"):
        table.add_column(column)
    ranked = sorted(result.block_heat.items(), key=lambda kv: (-kv[1][0], kv[0]))[:TOP_BLOCKS]
    instructions = result.cfg.method.instructions
    for block_id, heat in ranked:
        block = result.cfg.blocks[block_id]
        source = report.block_source(result, block)
        where = f"{source['method']} line {source['line']}" if source else ""
        span = f"0x{instructions[block.start].address:x}-0x{instructions[block.end - 1].address:x}"
        literal.add_row(table, f"B{block_id}", span, _pct(heat), str(block.end - block.start), where)
    return table


def _paths(result: Analysis) -> Table:
    table = Table(title=literal.title(describe.HOT_PATHS_TITLE), title_justify="left")
    for column in ("#", "share", "blocks", "ins/iter", "checks", "traps", "polls", "calls"):
        table.add_column(column)
    for rank, path in enumerate(result.hot_paths, 1):
        facts = heat_report.path_facts(result, path)
        kind = "cycle" if rank == 1 and uncounted_cycle(result) else path.first
        checks = ", ".join(sorted({c for _, c in facts.checks})) or "-"
        literal.add_row(
            table,
            describe.FIRST_PATH.get(kind, str(rank)),
            _pct(path.share),
            " ".join(f"B{b}" for b in path.blocks),
            str(facts.instructions),
            f"{len(facts.checks)} ({checks})" if facts.checks else "0",
            str(len(facts.traps)),
            str(len(facts.polls)),
            ", ".join(sorted({c for _, c in facts.calls})) or "-",
        )
    return table


def uncounted_cycle(result: Analysis) -> bool:
    """The first hot path goes round a loop of the printed regions (a partial method) that is not one of the
    method's loops: the loops pass, seeing no printed code enter it, found no header for it."""
    paths = result.hot_paths
    return bool(paths) and paths[0].first == "loop" and paths[0].blocks[0] not in {loop.header for loop in result.loops}
