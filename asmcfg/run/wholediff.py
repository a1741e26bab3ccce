"""`asmcfg diff OLD NEW` with no selector: every method the two logs both compiled, paired and compared.

Compilations pair by method, OSR bci and compiler; of each such key, each log's compilation is the one `asmcfg`
itself would choose (`pipeline.pick_keyed`: the hottest when heat is measured, by the input or by a recording's
samples put on each compilation as it is read, `enrich.measured`; else the last). Memory stays bounded by the
size of the compilations compared at a time, not by the logs: a first pass over each input keeps only the chosen
compilations' headers and heat (their code dropped as it is read); then the pairs are taken in groups of
at most `GROUP_CODE_BYTES` of machine code, each group's compilations read again from both inputs, and each pair
analysed (`enrich`, as every mode), compared, reduced to its row and dropped, its `--html DIR` page written at
once. Small logs are read twice in all; a large one once more per group.
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from collections.abc import Iterator
from typing import TextIO

from asmcfg.compare import gate, items
from asmcfg.compare.match import Diff, diff
from asmcfg.compare.pairs import Key, Lone, PairRow, document, headline, pair_document, rank
from asmcfg.model import Header, Method
from asmcfg.render import indented
from asmcfg.render.files import write_to
from asmcfg.render.summary import stderr_console
from asmcfg.run import outputs
from asmcfg.run.diff import DiffOptions, diff_outputs, open_sides, write_page
from asmcfg.run.enrich import Enrichment, enrich, measured
from asmcfg.run.log import Log
from asmcfg.run.pipeline import Picked, no_methods_error, pick_keyed
from asmcfg.terminal import visible

GROUP_CODE_BYTES = 4 << 20
"""Machine code (both sides) read and held at a time: a few hundred MB of parsed instructions at most."""
_UNKNOWN_SIZE = 4096
"""What a compilation without a code size (bytes of `main code`) counts for in a group."""


def wanted(options: DiffOptions) -> bool:
    """True when the flags ask for the whole-log diff: two inputs and no selector on either side."""
    return not options.old_selector.any and not options.new_selector.any and options.old != options.new


def problem(options: DiffOptions) -> str | None:
    """Why a whole-log diff cannot do what the flags ask, else None."""
    drawn = [flag for flag, path in (("--dot", options.dot), ("--svg", options.svg)) if path is not None]
    if drawn:
        return (f"{' and '.join(drawn)} draw one pair: name its method with --method (a diff of two whole logs "
                "writes --json and --html DIR)")
    if options.html == outputs.STD:
        return "a diff of two whole logs writes --html DIR (a page per pair and an index): name a folder"
    if outputs.STD in (options.old, options.new):
        return "a diff of two whole logs reads each input twice: name files, not -, or select a method with --method"
    return None


@dataclasses.dataclass(frozen=True, slots=True)
class Whole:
    """A whole-log diff done: every pair reduced to its row, the methods of one log, and how to find each chosen
    compilation again."""

    rows: list[PairRow]
    """The pairs, in the old log's order (`pairs.rank` ranks them)."""
    only: tuple[list[Lone], list[Lone]]
    """The methods only the old log compiled, then those only the new one did."""
    names: tuple[str, str]
    """The two inputs as messages name them."""
    totals: tuple[int, int]
    """How many compilations each input holds."""
    chosen: tuple[dict[Key, Picked], dict[Key, Picked]]
    """Of each key, the compilation the selection rule chose in each input (its header, without its code)."""
    ordinals: tuple[dict[Header, int], dict[Header, int]]
    """Of each chosen header, how many earlier compilations of its input share its compile id and method."""
    places: tuple[dict[Header, int], dict[Header, int]]
    """Of each chosen header, its place among its input's compilations of its compile id: 1 for the first, 2 for
    the second (a log of several runs repeats ids); 0 without an id."""
    logs: tuple[Log, Log]
    """The two inputs opened (each loads its log records and profile once)."""

    @property
    def how(self) -> tuple[Enrichment, Enrichment]:
        """Each side's log records and profile, as every compilation of the two logs gets them."""
        return self.logs[0].enrichment_for_each, self.logs[1].enrichment_for_each


def run(options: DiffOptions) -> int:
    """Pair, compare, rank and report; returns the exit status (gate.EXIT_CODE when a condition holds)."""
    outputs.check_targets(diff_outputs(options), stdout=False)  # before anything is read
    found = compare(options)
    rows, only, names = found.rows, found.only, found.names
    _write(rows, only, names, list(found.totals), options)
    failures = [(row.key, f) for row in rank(rows) for f in row.failures]  # the table's order
    err = stderr_console()
    if not options.quiet:
        from asmcfg.compare.wholeshow import write_tables

        write_tables(rows, only, names, err)
    for key, failure in failures:
        osr = f" OSR @{key.osr_bci}" if key.osr_bci is not None else ""
        err.print(visible(f"asmcfg diff: --fail-on {failure.condition}: {key.method} ({key.compiler.value}{osr}): "
                          f"{failure.where}"), highlight=False, markup=False, soft_wrap=True)
    return gate.EXIT_CODE if failures else 0


def compare(options: DiffOptions) -> Whole:
    """Every pair of the two inputs compared and reduced to its row (its page written under `--html DIR`)."""
    logs = open_sides(options)
    how = (logs[0].enrichment_for_each, logs[1].enrichment_for_each)
    chosen = [_chosen(log, side) for log, side in zip(logs, how, strict=True)]
    keys = [key for key in chosen[0][0] if key in chosen[1][0]]
    only = ([_lone(k, p) for k, p in chosen[0][0].items() if k not in chosen[1][0]],
            [_lone(k, p) for k, p in chosen[1][0].items() if k not in chosen[0][0]])
    if options.html is not None:
        os.makedirs(options.html, exist_ok=True)
    rows: list[PairRow] = []
    for group in _groups(keys, chosen[0][0], chosen[1][0]):
        olds = _read(logs[0], {chosen[0][0][k].method.header for k in group})
        news = _read(logs[1], {chosen[1][0][k].method.header for k in group})
        for key in group:
            old = olds.pop(chosen[0][0][key].method.header)
            new = news.pop(chosen[1][0][key].method.header)
            rows.append(_row(key, old, new, how, len(rows) + 1, options))
    return Whole(rows, only, (logs[0].source, logs[1].source),
                 (chosen[0][1], chosen[1][1]), (chosen[0][0], chosen[1][0]), (chosen[0][2], chosen[1][2]),
                 (chosen[0][3], chosen[1][3]), logs)


def analyse_pair(old: Method, new: Method, how: tuple[Enrichment, Enrichment]) -> Diff:
    """One pair analysed as every mode analyses (`enrich`), then compared."""
    return diff(items.side(enrich(old, how[0]).analysis), items.side(enrich(new, how[1]).analysis))


def _key(method: Method) -> Key:
    header = method.header
    return Key(header.name, header.osr_bci, header.compiler)


def _headers_only(methods: Iterator[Method], counted: list[int], ordinals: dict[Header, int],
                  places: dict[Header, int]) -> Iterator[Method]:
    """Each method without its code (what the choice reads is its header and its measured heat), its header's
    ordinal among those of its compile id and method noted, and its place among those of its compile id."""
    seen: Counter[tuple[int | None, str]] = Counter()
    ids: Counter[int] = Counter()
    for method in methods:
        counted[0] += 1
        header = method.header
        ordinals.setdefault(header, seen[header.compile_id, header.name])
        seen[header.compile_id, header.name] += 1
        if header.compile_id is not None:
            ids[header.compile_id] += 1
        places.setdefault(header, 0 if header.compile_id is None else ids[header.compile_id])
        yield dataclasses.replace(method, instructions=(), markers=(), constants=(), skipped=())


def _chosen(log: Log, how: Enrichment) -> tuple[dict[Key, Picked], int, dict[Header, int], dict[Header, int]]:
    """For each key in `log`, the compilation the selection rule chooses (its header), the count read, and the
    chosen headers' ordinals and places. Each compilation gets the recorded heat of its compile id (`measured`, as
    the single run's choice does) while its code is still there to place the samples, then loses the code."""
    stream = log.reading()
    counted, ordinals, places = [0], dict[Header, int](), dict[Header, int]()
    picked = pick_keyed(_headers_only(measured(stream.methods, how), counted, ordinals, places), _key)
    if counted[0] == 0:
        raise no_methods_error(stream.source, stream.head)
    chosen = {p.method.header for p in picked.values()}
    return (picked, counted[0], {h: n for h, n in ordinals.items() if h in chosen},
            {h: n for h, n in places.items() if h in chosen})


def _lone(key: Key, picked: Picked) -> Lone:
    method = picked.method
    return Lone(key, method.header.compile_id, method.header.level, method.main_code_size, _heat(method))


def _heat(method: Method) -> float | None:
    """The compilation's share of its run's first event, None when not measured."""
    profile = method.profile
    return profile.run_share[0] if profile is not None and profile.run_share else None


def _groups(keys: list[Key], old: dict[Key, Picked], new: dict[Key, Picked]) -> Iterator[list[Key]]:
    """The pairs in runs of at most `GROUP_CODE_BYTES` of code of both sides (one pair at least)."""
    group: list[Key] = []
    size = 0
    for key in keys:
        weight = sum(side[key].method.main_code_size or _UNKNOWN_SIZE for side in (old, new))
        if group and size + weight > GROUP_CODE_BYTES:
            yield group
            group, size = [], 0
        group.append(key)
        size += weight
    if group:
        yield group


def _read(log: Log, wanted_headers: set[Header]) -> dict[Header, Method]:
    """The compilations of `log` with these headers, whole and completed (a log's records after the code)."""
    stream = log.reading()
    found = {m.header: m for m in stream.methods if m.header in wanted_headers}
    return {header: stream.complete(method) for header, method in found.items()}


def _row(key: Key, old: Method, new: Method, how: tuple[Enrichment, Enrichment], number: int,
         options: DiffOptions) -> PairRow:
    """One pair analysed as every mode analyses, compared, gated; its page written under `--html DIR`."""
    result = analyse_pair(old, new, how)
    failures = gate.check(result, options.fail_on)
    page = None
    if options.html is not None:
        page = f"pair-{number}.html"
        _page(result, os.path.join(options.html, page), options)
    heats = (_heat(result.old.result.cfg.method), _heat(result.new.result.cfg.method))
    return PairRow(key, result.old.facts, result.new.facts, heats, headline(result), tuple(failures),
                   pair_document(result, failures if options.fail_on else None), page)


def _page(result: Diff, path: str, options: DiffOptions) -> None:
    """The pair's side-by-side page, as `asmcfg diff --html FILE` writes it."""
    from asmcfg.run import drawings

    told = drawings.Told("--html")  # a pair Graphviz cannot draw is drawn another way, or listed
    write_to(path, lambda out: write_page(result, out, options, told))
    drawings.finish(told, selected=False)


def _write(rows: list[PairRow], only: tuple[list[Lone], list[Lone]], names: tuple[str, str], totals: list[int],
           options: DiffOptions) -> None:
    """`--json` and `--html DIR`'s index page."""
    if options.json:
        sides = tuple({"source": name, "compilations": total} for name, total in zip(names, totals, strict=True))
        found = document(rows, only, sides, bool(options.fail_on))
        write_to(options.json, lambda out: _text(out, indented.dumps(found) + "\n"))
    if options.html is not None:
        from asmcfg.compare.wholeshow import write_index

        index = os.path.join(options.html, "index.html")
        write_to(index, lambda out: write_index(rows, only, names, out))
        if not options.quiet:
            stderr_console().print(visible(f"wrote {index}: {len(rows)} pairs, one page each"), highlight=False,
                                   markup=False, soft_wrap=True)


def _text(out: TextIO, text: str) -> None:
    out.write(text)
