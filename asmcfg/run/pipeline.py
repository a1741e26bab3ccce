"""Compose the stages: sources -> dialect -> selection -> cfg -> analyses."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from asmcfg import dialects
from asmcfg.errors import InputError
from asmcfg.model import Analysis, Method
from asmcfg.sources.lines import Line, Meter, display_name, read_lines

if TYPE_CHECKING:
    from asmcfg.dialects.perfasm.profile import MethodProfile


@dataclass(frozen=True, slots=True)
class Selector:
    """Which compilations the user asked for."""

    pattern: str | None = None
    """Glob on `Class::method` or a bare method name."""
    compile_id: int | None = None
    """Exact compile id."""
    compiler: str | None = None
    """`c1` or `c2`."""

    @property
    def any(self) -> bool:
        """True when some criterion was given."""
        return self.pattern is not None or self.compile_id is not None or self.compiler is not None

    def matches(self, method: Method) -> bool:
        """True when `method` satisfies every given criterion."""
        header = method.header
        if self.compile_id is not None and header.compile_id != self.compile_id:
            return False
        if self.compiler is not None and header.compiler != self.compiler:
            return False
        return self.name_matches(header.name)

    def name_matches(self, name: str) -> bool:
        """True when `name` satisfies the pattern (or there is none)."""
        return self.pattern is None or _name_matches(name, self.pattern)


def _name_matches(name: str, pattern: str) -> bool:
    short = name.rsplit(".", 1)[-1]
    bare = name.split("::", 1)[-1]
    return any(fnmatch.fnmatchcase(candidate, pattern) for candidate in (name, short, bare))


@dataclass(slots=True)
class Stream:
    """Methods read from one input, with the count of lines outside methods once done."""

    source: str
    reader: dialects.Reader
    methods: Iterator[Method]
    dialect: str

    def complete(self, method: Method) -> Method:
        """`method` with what the input says of it after its code (a LogCompilation log's trap records);
        call once the methods are all read."""
        return self.reader.complete(method)


def open_input(
    path: str, dialect: str | None = None, options: dialects.ReadOptions | None = None, annotated: bool = False,
    meter: Meter | None = None,
) -> Stream:
    """Start reading `path` (or `-`), sniffing its dialect; `annotated`: drop perfasm's percentage columns first;
    `meter` is told the bytes read."""
    name = display_name(path)
    lines: Iterator[Line] = read_lines(path, meter)
    if annotated:
        from asmcfg.dialects.perfasm.profile import strip_columns

        lines = strip_columns(lines)
    chosen, reader, stream = dialects.open_reader(lines, name, dialect, options)
    return Stream(name, reader, reader.methods(stream), chosen.name)


def analyse_method(method: Method, jdk: int | None = None, paths: int = 3) -> Analysis:
    """Graph and analyses for one method; `paths` measured hot paths are ranked when it has a profile."""
    from asmcfg import isa
    from asmcfg.analyses import analyse
    from asmcfg.cfg.build import build_cfg, layout

    lay = layout(method, isa.for_name(method.isa))
    return analyse(build_cfg(method, lay), jdk, paths=paths, lay=lay)


def no_methods_error(source: str, sample: Sequence[str] | None = None) -> InputError:
    """The error for an input with no compiled method in it, saying what the input looks like instead.

    `sample` is the input's first lines when the caller kept them; otherwise they are read again when possible.
    """
    from asmcfg.sources import diagnose

    found = diagnose.explain(diagnose.sample_input(source) if sample is None else sample)
    return InputError(found.message, source, found.line)


@dataclass(frozen=True, slots=True)
class Picked:
    """The compilation chosen when one is wanted, and how many others were there."""

    method: Method
    """The chosen compilation."""
    candidates: int
    """How many compilations matched the selector (the chosen one included)."""
    total: int
    """How many compilations the input holds."""


def pick_one(methods: Iterator[Method], selector: Selector) -> Picked | None:
    """The last C2 match (else the last match), keeping only one candidate of each kind in memory."""
    last_c2: Method | None = None
    last_any: Method | None = None
    matched = total = 0
    for method in methods:
        total += 1
        if not selector.matches(method):
            continue
        matched += 1
        last_any = method
        if method.header.compiler == "c2":
            last_c2 = method
    chosen = last_c2 or last_any
    return None if chosen is None else Picked(chosen, matched, total)


def pick_profiled(methods: Iterator[Method], profiles: Sequence[MethodProfile]) -> Picked | None:
    """The compilation most of the profile's sampled addresses land on (ties: the later one)."""
    sampled = {address for p in profiles for address in p.profile.heat}
    best: Method | None = None
    best_hits = -1
    total = 0
    for method in methods:
        total += 1
        hits = sum(1 for ins in method.instructions if ins.address in sampled)
        if hits >= best_hits:
            best, best_hits = method, hits
    return None if best is None else Picked(best, total, total)
