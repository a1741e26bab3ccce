"""Turn the regions of one perfasm run into Methods: group by compilation, merge, deduplicate, attach heat."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from asmcfg.dialects.builder import MethodBuilder
from asmcfg.dialects.perfasm.draft import Draft, Piece, Row, Run
from asmcfg.dialects.perfasm.text import Title, estimate
from asmcfg.model import Compiler, DialectName, Feature, Header, Method, Profile, RegionHeat, Unprinted
from asmcfg.sources.numbers import HEX

GAP = "gap"
"""Marker label put before an instruction that does not follow the previous one in any printout."""
_RANGE = re.compile(rf"^\[({HEX}):({HEX})\]")
MERGE_DISTANCE = 4096
"""Regions named alike (old JMH prints no version) are one compilation when at most this many bytes apart."""


@dataclass(frozen=True, slots=True)
class RegionLine:
    """One instruction line of a printed region."""

    address: int
    """Instruction address."""
    heat: tuple[float, ...]
    """Percent per event (0.0 for a blank column)."""
    sampled: bool
    """True when some column was printed (a `0.00%` is a sample too)."""
    index: int
    """Position of the line in the region's printout, 0 for the first line after the title."""
    key: str
    """Identity of the Method the line went to (see `Origin.key`)."""


@dataclass(frozen=True, slots=True)
class Region:
    """A `[Hottest Region N]` as printed."""

    run: int
    """Run number in the file, from 1."""
    number: int
    """N of `Hottest Region N`."""
    title: str
    """The title line."""
    line: int
    """Line of the title in the input."""
    total: tuple[float, ...] | None
    """The `<total for region N>` percentages, None when not printed."""
    lines: tuple[RegionLine, ...]
    """Instruction lines in printed order."""
    printed: int
    """Number of lines in the printout."""
    samples: tuple[int, ...]
    """Samples per event in the run (`Column i: … (N events)`), 0 where not printed."""


@dataclass(slots=True)
class _Group:
    key: str
    ident: tuple[str, ...]
    pieces: list[Piece]
    low: int
    high: int
    regions: list[int] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Built:
    """The Methods of one run, keyed, and its regions."""

    methods: list[tuple[str, Method]]
    regions: list[Region]
    unprinted: list[Unprinted]


def build_run(run: Run, source: str, jdk_hint: int | None) -> Built:
    """Group the run's regions by compilation and build one Method per group."""
    width = max([run.width, *(i + 1 for i in run.events)])
    groups: list[_Group] = []
    for draft in run.regions:
        _assign_owner(draft)
        for piece in draft.pieces:
            if piece.owner or any(row.values for row in piece.rows):
                _place(groups, piece, draft.number, run.number)
    names = Counter(group.pieces[0].title.share_name for group in groups)
    shared = {name for name, count in names.items() if count == 1}
    owned = _owned(run, width)
    methods = [(g.key, _method(g, run, width, source, jdk_hint, shared, owned)) for g in groups if _rows(g)]
    regions = [_region(draft, run, width) for draft in run.regions]
    unprinted = [_unprinted(g, run, width, shared) for g in groups if not _rows(g) and _too_big(g, run)]
    return Built(methods, regions, unprinted)


def _owned(run: Run, width: int) -> dict[int, RegionHeat]:
    """Each region's total against the heat of the sampled lines it owns: those inside the address range an old
    title prints (`[0x…:0x…] in …`); else a line printed in several regions (in one's margin, at the heart of
    another) belongs to the region where it is farthest from the printout's edges."""
    best: dict[tuple[str, int], tuple[int, int]] = {}
    for draft in run.regions:
        for piece, row in _sampled(draft):
            depth = min(row.index, draft.printed - 1 - row.index)
            key = (piece.key, row.address)
            if key not in best or depth > best[key][0]:
                best[key] = (depth, draft.number)
    found: dict[int, RegionHeat] = {}
    for draft in run.regions:
        if draft.number not in run.totals:
            continue
        span = _RANGE.match(draft.title)
        owner = next((piece.key for piece in draft.pieces if piece.owner), "")
        sums = {True: [0.0] * width, False: [0.0] * width}
        for piece, row in _sampled(draft):
            inside = int(span.group(1), 16) <= row.address <= int(span.group(2), 16) if span else True
            if inside if span else best[(piece.key, row.address)][1] == draft.number:
                mine = sums[piece.key == owner]
                mine[:] = [p + v for p, v in zip(mine, _heat(row.values, run, width), strict=True)]
        total = _widen(run.totals[draft.number], width)
        lines = draft.too_big[0] if draft.too_big else 0
        found[draft.number] = RegionHeat(draft.number, total, tuple(sums[True]), draft.misdecoded, lines,
                                         tuple(sums[False]))
    return found


def _sampled(draft: Draft) -> Iterator[tuple[Piece, Row]]:
    for piece in draft.pieces:
        for row in piece.rows:
            if row.values:
                yield piece, row


def _too_big(group: _Group, run: Run) -> bool:
    return any(d.too_big for d in run.regions if d.number in group.regions)


def _unprinted(group: _Group, run: Run, width: int, shared: set[str]) -> Unprinted:
    """A compilation whose only regions perfasm did not print."""
    drafts = [d for d in run.regions if d.number in group.regions and d.too_big]
    lines, threshold = max(d.too_big for d in drafts if d.too_big)
    totals = [_widen(run.totals.get(d.number, {}), width) for d in drafts]
    share = _share(group, run, width, shared) or tuple(sum(t[i] for t in totals) for i in range(width))
    events = tuple(run.events.get(i, f"column {i + 1}") for i in range(width))
    return Unprinted(_header(group), run.number, run.benchmark, drafts[0].number, lines, threshold, events, share,
                     run.parameters)


def _assign_owner(draft: Draft) -> None:
    """The piece the region's total belongs to; a leading piece of code the title does not name is unknown."""
    first = draft.pieces[0]
    name = first.title.header.name
    owners = [p for p in draft.pieces[1:] if p.title.header.name == name]
    if len(first.title.names) > 1 and owners:
        header = replace(first.title.header, name="<unknown>", compiler=Compiler.UNKNOWN)
        first.title, first.owner = Title(header, ("name", "<unknown>"), ""), False
        owners[0].owner = True
    else:
        first.owner = True


def _place(groups: list[_Group], piece: Piece, region: int, run: int) -> None:
    """Put the piece in the group of its compilation (named-only pieces: the one within MERGE_DISTANCE)."""
    addresses = [row.address for row in piece.rows] or [0]
    low, high = min(addresses), max(addresses)
    ident = piece.title.ident
    for group in groups:
        near = ident[0] != "name" or (low - MERGE_DISTANCE <= group.high and group.low <= high + MERGE_DISTANCE)
        if group.ident == ident and near:
            group.pieces.append(piece)
            if piece.rows:
                group.low, group.high = min(group.low, low), max(group.high, high)
            break
    else:
        group = _Group(f"run {run}: {_describe(ident, low)}", ident, [piece], low, high)
        groups.append(group)
    piece.key = group.key
    if piece.owner:
        group.regions.append(region)


def _describe(ident: tuple[str, ...], low: int) -> str:
    if ident[0] == "id":
        return f"compile id {ident[1]}"
    if ident[0] == "version":
        return f"{ident[1]}, version {ident[2]}"
    return f"{ident[1]} @0x{low:x}"


def _rows(group: _Group) -> list[Row]:
    """The group's instruction rows by address, each address once (the first printing wins)."""
    unique: dict[int, Row] = {}
    for piece in group.pieces:
        for row in piece.rows:
            unique.setdefault(row.address, row)
    return [unique[address] for address in sorted(unique)]


def _method(
    group: _Group, run: Run, width: int, source: str, jdk_hint: int | None, shared: set[str],
    owned: dict[int, RegionHeat],
) -> Method:
    rows = _rows(group)
    follows = {(row.previous, row.address) for piece in group.pieces for row in piece.rows}
    builder = MethodBuilder(_header(group), source, DialectName.PERFASM)
    for n, row in enumerate(rows):
        if n and (rows[n - 1].address, row.address) not in follows:
            builder.add_marker(GAP)
        for label in row.markers:
            builder.add_marker(label)
        builder.add_instruction(row.address, row.body, row.line)
        for comment in row.comments:
            builder.add_comment(comment)
    for piece in group.pieces:
        builder.constants.extend(piece.constants)
        builder.skipped.merge(piece.skipped)
    builder.constants = sorted(set(builder.constants))
    builder.features.add(Feature.PARTIAL)
    profile = Profile(
        source=source,
        events=tuple(run.events.get(i, f"column {i + 1}") for i in range(width)),
        heat={row.address: _heat(row.values, run, width) for row in rows if row.values},
        region_totals=tuple(_widen(run.totals[n], width) for n in sorted(group.regions) if n in run.totals),
        method_share=_share(group, run, width, shared),
        regions=tuple(owned[n] for n in sorted(group.regions) if n in owned),
    )
    return replace(builder.build(jdk_hint), profile=profile)


def _header(group: _Group) -> Header:
    titles = [piece.title.header for piece in group.pieces]
    return min(titles, key=lambda header: header.line)


def _share(group: _Group, run: Run, width: int, shared: set[str]) -> tuple[float, ...] | None:
    """The `Hottest Methods` row of the compilation (by compile id, else by a name no other group has)."""
    compile_id = group.pieces[0].title.header.compile_id
    if compile_id is not None and compile_id in run.id_shares:
        return _widen(run.id_shares[compile_id], width)
    name = group.pieces[0].title.share_name
    if name in shared and name in run.shares:
        return _widen(run.shares[name], width)
    return None


def _heat(values: dict[int, float], run: Run, width: int) -> tuple[float, ...]:
    return tuple(estimate(values[i], run.counts.get(i)) if i in values else 0.0 for i in range(width))


def _widen(values: dict[int, float], width: int) -> tuple[float, ...]:
    return tuple(values.get(i, 0.0) for i in range(width))


def _region(draft: Draft, run: Run, width: int) -> Region:
    lines = tuple(
        RegionLine(row.address, _heat(row.values, run, width), bool(row.values), row.index, piece.key)
        for piece in draft.pieces
        if piece.key
        for row in piece.rows
    )
    total = _widen(run.totals[draft.number], width) if draft.number in run.totals else None
    samples = tuple(run.counts.get(i, 0) for i in range(width))
    return Region(run.number, draft.number, draft.title, draft.line, total, lines, draft.printed, samples)
