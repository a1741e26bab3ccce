"""The measured-heat part of the summary: top blocks, ranked hot paths, cold share, method share."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from asmcfg.facts import heat_report, report
from asmcfg.model import Analysis
from asmcfg.render import literal

TOP_BLOCKS = 10


def _pct(values: tuple[float, ...]) -> str:
    return " / ".join(f"{v:.2f}%" for v in values)


def write_heat(result: Analysis, console: Console) -> None:
    """Print the profile's figures for one method (nothing when it has no profile)."""
    profile = result.cfg.method.profile
    if profile is None:
        return
    events = " / ".join(profile.events)
    share = profile.method_share or heat_report.method_heat(result)
    console.print(
        f"profile {profile.source}: {events}; this compilation holds {_pct(share)} of the run",
        highlight=False,
        markup=False,
    )
    console.print(_top_blocks(result))
    console.print(_paths(result))
    cold = heat_report.cold_share(result)
    console.print(
        f"cold code (traps, stubs, handlers, check failures, out-of-line): {_pct(cold.heat)} of the run, "
        f"{' / '.join(f'{s:.1%}' for s in cold.share)} of this method's samples",
        highlight=False,
        markup=False,
    )


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
    table = Table(title=literal.title("Hot paths (measured)"), title_justify="left")
    for column in ("#", "share", "blocks", "ins/iter", "checks", "traps", "polls", "calls"):
        table.add_column(column)
    for rank, path in enumerate(result.hot_paths, 1):
        facts = heat_report.path_facts(result, path)
        checks = ", ".join(sorted({c for _, c in facts.checks})) or "-"
        literal.add_row(
            table,
            str(rank),
            _pct(path.share),
            " ".join(f"B{b}" for b in path.blocks),
            str(facts.instructions),
            f"{len(facts.checks)} ({checks})" if facts.checks else "0",
            str(len(facts.traps)),
            str(len(facts.polls)),
            ", ".join(sorted({c for _, c in facts.calls})) or "-",
        )
    return table
