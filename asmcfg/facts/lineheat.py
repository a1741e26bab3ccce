"""Measured heat where people read: per source line and per bci of each method, as `perf annotate` gives it per
instruction.

An instruction's heat counts for every frame of its scope chain: code inlined from a callee counts for the
callee's own line and bci and for the call site's line and bci in each caller (`share`, inclusive, like a call
graph's total), and, apart, for its innermost frame alone (`self`). A method inlined into itself counts once per
line or bci. Instructions without debug info count for none."""

from __future__ import annotations

from typing import Any

from asmcfg.model import Analysis

Key = tuple[str, int]
Sums = dict[Key, list[float]]


def _add(sums: Sums, key: Key, heat: tuple[float, ...]) -> None:
    row = sums.setdefault(key, [0.0] * len(heat))
    for n, value in enumerate(heat[: len(row)]):
        row[n] += value


def sums(result: Analysis) -> tuple[Sums, Sums, Sums, Sums]:
    """(line total, line self, bci total, bci self), each keyed by (method, line or bci)."""
    lines, lines_self, bcis, bcis_self = {}, {}, {}, {}  # type: tuple[Sums, Sums, Sums, Sums]
    profile = result.cfg.method.profile
    if profile is None:
        return lines, lines_self, bcis, bcis_self
    for ins in result.cfg.method.instructions:
        heat = profile.heat.get(ins.address)
        if heat is None or not ins.frames:
            continue
        seen_lines: set[Key] = set()
        seen_bcis: set[Key] = set()
        for depth, frame in enumerate(ins.frames):
            if frame.line is not None and (frame.method, frame.line) not in seen_lines:
                seen_lines.add((frame.method, frame.line))
                _add(lines, (frame.method, frame.line), heat)
                if depth == 0:
                    _add(lines_self, (frame.method, frame.line), heat)
            if (frame.method, frame.bci) not in seen_bcis:
                seen_bcis.add((frame.method, frame.bci))
                _add(bcis, (frame.method, frame.bci), heat)
                if depth == 0:
                    _add(bcis_self, (frame.method, frame.bci), heat)
    return lines, lines_self, bcis, bcis_self


def _by_method(total: Sums, own: Sums, events: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    def named(values: list[float] | None) -> dict[str, float]:
        return {e: round(v, 4) for e, v in zip(events, values or [0.0] * len(events), strict=False)}

    out: dict[str, dict[str, Any]] = {}
    for method, at in sorted(total):
        out.setdefault(method, {})[str(at)] = {"share": named(total[(method, at)]),
                                               "self": named(own.get((method, at)))}
    return out


def json_fields(result: Analysis) -> dict[str, Any]:
    """`heat_by_line` and `heat_by_bci` for a method with measured heat (docs/json.md), else nothing."""
    profile = result.cfg.method.profile
    if profile is None:
        return {}
    lines, lines_self, bcis, bcis_self = sums(result)
    unplaced = [0.0] * len(profile.events)
    for ins in result.cfg.method.instructions:
        heat = profile.heat.get(ins.address)
        if heat is not None and not ins.frames:
            for n, value in enumerate(heat[: len(unplaced)]):
                unplaced[n] += value
    return {"heat_by_line": _by_method(lines, lines_self, profile.events),
            "heat_by_bci": _by_method(bcis, bcis_self, profile.events),
            "heat_without_debug_info": {e: round(v, 4) for e, v in zip(profile.events, unplaced, strict=False)}}


def by_file(result: Analysis, file_of: dict[str, str]) -> dict[str, dict[int, float]]:
    """The source pane's heat: per file (`file_of` maps a method to its file) and line, the first event's share
    of the instructions any of whose frames is on that line (each instruction counted once per line)."""
    profile = result.cfg.method.profile
    out: dict[str, dict[int, float]] = {}
    if profile is None:
        return out
    for ins in result.cfg.method.instructions:
        heat = profile.heat.get(ins.address)
        if not heat:
            continue
        places = {(file_of[f.method], f.line) for f in ins.frames if f.line is not None and f.method in file_of}
        for file, line in places:
            lines = out.setdefault(file, {})
            lines[line] = lines.get(line, 0.0) + heat[0]
    return {file: {line: round(share, 4) for line, share in sorted(lines.items())} for file, lines in out.items()}
