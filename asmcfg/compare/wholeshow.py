"""A whole-log diff shown: the ranked table of pairs on stderr, and `--html DIR`'s index page linking each pair's
side-by-side page."""

from __future__ import annotations

import html
from typing import TextIO

from rich.console import Console
from rich.table import Table

from asmcfg import describe
from asmcfg.compare.pairs import Key, Lone, PairRow, headline_text, rank, rank_lone, ranked_by
from asmcfg.render import literal
from asmcfg.render.listing import MAIN_CODE
from asmcfg.render.quoting import visible


def pair_cells(row: PairRow, heat: bool) -> list[str]:
    """One pair's cells: method, compiler, OSR bci, old and new compile ids, [old and new heat], what changed."""
    cells = [*_key_cells(row.key), _id(row.old["compile_id"]), _id(row.new["compile_id"])]
    if heat:
        cells.extend("-" if share is None else f"{share:.2f}" for share in row.heats)
    return [*cells, headline_text(row.headline)]


def _key_cells(key: Key) -> list[str]:
    return [key.method, key.compiler.value, "" if key.osr_bci is None else str(key.osr_bci)]


def _id(value: object) -> str:
    return "-" if value is None else str(value)


HEAT_COLUMNS = ["old heat %", "new heat %"]
"""The columns of the two sides' heat: the old compilation's share of the old run's samples, the new one's of the
new run's."""


def columns(rows: list[PairRow]) -> list[str]:
    """The pair table's columns: each side's heat (its share of its own run) when some pair was measured."""
    heat = ranked_by(rows) == "heat"
    return ["#", "method", "compiler", "OSR", "old id", "new id", *(HEAT_COLUMNS if heat else []), "changes"]


def lone_cells(lone: Lone, heat: bool) -> list[str]:
    """A method of one log: method, compiler, OSR bci, compile id, bytes of `main code`, [heat]."""
    cells = [*_key_cells(lone.key), _id(lone.compile_id), _id(lone.main_code_bytes)]
    return [*cells, "-" if lone.heat is None else f"{lone.heat:.2f}"] if heat else cells


LONE_COLUMNS = ["method", "compiler", "OSR", "id", MAIN_CODE]
"""The columns of the tables of methods only one log compiled (and `heat %`, that log's share, when measured)."""


def lone_heat(lone: list[Lone]) -> bool:
    """True when one of these methods of one log was measured: its table shows their heat (what ranks them)."""
    return any(method.heat is not None for method in lone)


def lone_columns(heat: bool) -> list[str]:
    """The columns of a table of methods of one log, `heat %` last when `heat`."""
    return [*LONE_COLUMNS, "heat %"] if heat else LONE_COLUMNS


def write_tables(rows: list[PairRow], only: tuple[list[Lone], list[Lone]], names: tuple[str, str],
                 console: Console) -> None:
    """The pairs ranked, then the methods only in one log, then a count."""
    heat = ranked_by(rows) == "heat"
    table = Table(title=f"Pairs ({'hottest' if heat else 'largest'} first)", title_justify="left")
    for column in columns(rows):
        table.add_column(column)
    for n, row in enumerate(rank(rows), 1):
        literal.add_row(table, str(n), *pair_cells(row, heat))
    console.print(table)
    for name, lone in zip(names, only, strict=True):
        if lone:
            shown = Table(title=literal.title(f"Only in {name}"), title_justify="left")
            measured = lone_heat(lone)
            for column in lone_columns(measured):
                shown.add_column(column)
            for method in rank_lone(lone):
                literal.add_row(shown, *lone_cells(method, measured))
            console.print(shown)
    changed = sum(1 for row in rows if row.headline.changed)
    console.print(f"{len(rows)} pairs ({changed} changed), {len(only[0])} only in the old log, "
                  f"{len(only[1])} only in the new log", highlight=False)


_STYLE = ("body{font:14px system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}"
          "td,th{border-bottom:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}"
          "tr.same td{color:#777}th{background:#f4f4f4}")


def write_index(rows: list[PairRow], only: tuple[list[Lone], list[Lone]], names: tuple[str, str],
                out: TextIO) -> None:
    """The index page: every pair ranked, each linking to its page, then the methods only in one log."""
    heat = ranked_by(rows) == "heat"
    esc = _text
    title = f"asmcfg diff: {names[0]} -> {names[1]}"
    out.write("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
              "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
              f"<title>{esc(title)}</title><style>{_STYLE}</style></head><body>\n<h1>{esc(title)}</h1>\n")
    out.write(f"<p>{len(rows)} pairs, {'hottest' if heat else 'largest'} first</p>\n<table id=\"pairs\"><thead><tr>")
    out.write("".join(f"<th>{esc(c)}</th>" for c in columns(rows)) + "</tr></thead><tbody>\n")
    for n, row in enumerate(rank(rows), 1):
        cells = [esc(c) for c in pair_cells(row, heat)]
        cells[0] = _name(row.key.method)
        if row.page is not None:
            cells[0] = f"<a href=\"{html.escape(row.page, quote=True)}\">{cells[0]}</a>"
        state = "changed" if row.headline.changed else "same"
        out.write(f"<tr class=\"{state}\" data-rank=\"{n}\"><td>{n}</td>" + "".join(f"<td>{c}</td>" for c in cells)
                  + "</tr>\n")
    out.write("</tbody></table>\n")
    for which, name, lone in zip(("old", "new"), names, only, strict=True):
        measured = lone_heat(lone)
        out.write(f"<h2>Only in {esc(name)}</h2>\n<table class=\"only\" id=\"only-{which}\"><thead><tr>"
                  + "".join(f"<th>{esc(c)}</th>" for c in lone_columns(measured)) + "</tr></thead><tbody>\n")
        for method in rank_lone(lone):
            cells = [esc(c) for c in lone_cells(method, measured)]
            cells[0] = _name(method.key.method)
            out.write("<tr>" + "".join(f"<td>{c}</td>" for c in cells)
                      + "</tr>\n")
        out.write("</tbody></table>\n")
    out.write("</body></html>\n")


def _name(method: str) -> str:
    """A method's cell: its short name (`describe.short_name`), the whole name in its tooltip."""
    short = describe.short_name(method)
    if short == method:
        return _text(method)
    return f'<span title="{_text(method)}">{_text(short)}</span>'


def _text(value: str) -> str:
    return html.escape(visible(value), quote=True)
