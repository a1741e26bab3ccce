"""The addresses of the pages `asmcfg serve` links to, naming each compilation by its compile id (docs/serve.md).

One log: `/c/475` is the compilation of compile id 475, `/c/475.2` the second of that id in the input (a log of
several runs repeats ids), `/r/7` the index's row 7 where the input prints no compile id. Two logs: `/pair/10/11`
is the pair of the old log's compilation 10 and the new log's 11, `/old/7` and `/new/12` a method only one log
compiled; a row missing an id on either side is `/r/N` too. The folder export names its page files the same way
(`id-475.html`, `id-475-2.html`, `row-7.html`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator

OLD, NEW, PAIR = "old", "new", "pair"
"""The two-log index's pages: a method only the old (new) log compiled, a pair."""
_NAME = r"[0-9]{1,20}(?:\.[0-9]{1,9})?"
LINK = re.compile(rf"/(?:c/{_NAME}|{OLD}/{_NAME}|{NEW}/{_NAME}|{PAIR}/{_NAME}/{_NAME}|r/[0-9]{{1,9}})")
"""Every address a link may have: a request path is looked up only when it matches in full."""
LONGEST = 80
"""No address is longer (a pair of two 20-digit ids and their places): a longer path is not looked at."""


def places(compile_ids: Iterable[int | None]) -> Iterator[int]:
    """Each compile id's place among those of the same id so far, in order: 1 for the first, 2 for the second;
    0 where there is no id."""
    seen: Counter[int] = Counter()
    for compile_id in compile_ids:
        if compile_id is None:
            yield 0
            continue
        seen[compile_id] += 1
        yield seen[compile_id]


def name(compile_id: int, place: int) -> str:
    """A compilation's name in its input: its compile id, with `.N` for the Nth of a repeated id."""
    return f"{compile_id}" if place <= 1 else f"{compile_id}.{place}"


def compilation(compile_id: int | None, place: int, row: int) -> str:
    """The address of a compilation of one log's index (row `row`, the `place`-th of its compile id)."""
    return f"/r/{row}" if compile_id is None else f"/c/{name(compile_id, place)}"


def one_side(kind: str, compile_id: int | None, place: int, row: int) -> str:
    """The address of a method only one log compiled (`kind` OLD or NEW) in the two-log index."""
    return f"/r/{row}" if compile_id is None else f"/{kind}/{name(compile_id, place)}"


def pair(old: tuple[int | None, int], new: tuple[int | None, int], row: int) -> str:
    """The address of a pair of the two-log index: each side's compile id and place."""
    if old[0] is None or new[0] is None:
        return f"/r/{row}"
    return f"/{PAIR}/{name(old[0], old[1])}/{name(new[0], new[1])}"


def page_file(compile_id: int | None, place: int, row: int) -> str:
    """The file of a compilation's page in the folder export: its address's name, as a file."""
    return f"row-{row}.html" if compile_id is None else f"id-{name(compile_id, place).replace('.', '-')}.html"


def rows_of(links: list[str]) -> dict[str, int]:
    """Each address's row; two rows never share one."""
    found = {link: n for n, link in enumerate(links)}
    assert len(found) == len(links), "two rows with one address"
    return found


def row_of(path: str, rows: dict[str, int]) -> int | None:
    """The row a request path names, None for any other path (checked in full and bounded before it is looked up)."""
    if len(path) > LONGEST or LINK.fullmatch(path) is None:
        return None
    return rows.get(path)
