"""Compose the stages: sources -> dialect -> selection -> cfg -> analyses."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from asmcfg import dialects
from asmcfg.errors import InputError
from asmcfg.model import Analysis, ChoiceRule, Compiler, DialectName, Header, Method
from asmcfg.sources.lines import Line, Meter, display_name, read_lines

if TYPE_CHECKING:
    from asmcfg.dialects.heat import Measured


@dataclass(frozen=True, slots=True)
class Selector:
    """Which compilations the user asked for."""

    pattern: str | None = None
    """Glob on `Class::method` or a bare method name; `Class.method` and `pkg/Class.method` are read as
    `Class::method` when they match nothing as written."""
    compile_id: int | None = None
    """Exact compile id."""
    compiler: Compiler | None = None
    """`c1`, `c2` or `jvmci`."""

    @property
    def any(self) -> bool:
        """True when some criterion was given."""
        return self.pattern is not None or self.compile_id is not None or self.compiler is not None

    def matches(self, method: Method) -> bool:
        """True when `method` satisfies every given criterion."""
        return self.matches_header(method.header)

    def matches_header(self, header: Header) -> bool:
        """True when the compilation `header` names satisfies every given criterion."""
        if self.compile_id is not None and header.compile_id != self.compile_id:
            return False
        if self.compiler is not None and header.compiler is not self.compiler:
            return False
        return self.name_matches(header.name)

    def inlined(self, method: Method) -> str | None:
        """The first method inlined into `method` (from its debug info) whose name the pattern matches, if any;
        None without a pattern or when other criteria (compile id, compiler) rule the compilation out."""
        if self.pattern is None or not Selector(None, self.compile_id, self.compiler).matches(method):
            return None
        seen = {method.header.name}
        for ins in method.instructions:
            for frame in ins.frames:
                if frame.method not in seen:
                    seen.add(frame.method)
                    if _name_matches(frame.method, self.pattern):
                        return frame.method
        return None

    def name_matches(self, name: str) -> bool:
        """True when `name` satisfies the pattern (or there is none)."""
        return self.pattern is None or _name_matches(name, self.pattern)


def _name_matches(name: str, pattern: str) -> bool:
    short = name.rsplit(".", 1)[-1]
    bare = name.split("::", 1)[-1]
    candidates = (name, short, bare)
    if any(fnmatch.fnmatchcase(candidate, pattern) for candidate in candidates):
        return True
    spelled = java_spelling(pattern)
    return spelled != pattern and any(fnmatch.fnmatchcase(candidate, spelled) for candidate in candidates)


def java_spelling(pattern: str) -> str:
    """`pattern` in asmcfg's `pkg.Class::method` form when written as HotSpot and javap write methods:
    `pkg/Class.method` or `pkg.Class.method` (the last dot separates class and method when there is no `::`)."""
    spelled = pattern.replace("/", ".")
    if "::" not in spelled and "." in spelled:
        owner, _, method = spelled.rpartition(".")
        spelled = f"{owner}::{method}"
    return spelled


@dataclass(slots=True)
class Stream:
    """Methods read from one input, with the count of lines outside methods once done."""

    source: str
    reader: dialects.Reader
    methods: Iterator[Method]
    dialect: DialectName
    head: list[str] = field(default_factory=list)
    """The input's first lines, kept as they are read, for the message when it holds no method."""

    def complete(self, method: Method) -> Method:
        """`method` with what the input says of it after its code (a LogCompilation log's trap records);
        call once the methods are all read."""
        return self.reader.complete(method)


def open_input(
    path: str, dialect: DialectName | None = None, options: dialects.ReadOptions | None = None,
    meter: Meter | None = None,
) -> Stream:
    """Start reading `path` (or `-`), sniffing its dialect; `meter` is told the bytes read. Outside perfasm
    output, percentage columns before instruction lines (a JMH `saveLog` file) become the methods' heat."""
    name = display_name(path)
    head: list[str] = []
    lines: Iterator[Line] = read_lines(path, meter, head)
    chosen, reader, stream = dialects.open_reader(lines, name, dialect, options)
    return Stream(name, reader, chosen.methods(reader, stream, name), chosen.name, head)


def analyse_method(method: Method, jdk: int | None = None, paths: int = 3, skid: bool = False) -> Analysis:
    """Graph and analyses for one method; `paths` measured hot paths are ranked when it has a profile, whose
    samples `skid` credits to the instruction before the one they name."""
    from asmcfg import isa
    from asmcfg.analyses import analyse
    from asmcfg.cfg.build import build_cfg, layout

    lay = layout(method, isa.for_name(method.isa))
    cfg = build_cfg(method, lay)
    if skid:
        from asmcfg.cfg.skid import credit_previous

        cfg = credit_previous(cfg)
    return analyse(cfg, jdk, paths=paths, lay=lay)


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
    total: int | None
    """How many compilations the input holds; None when not counted (a quiet run opened through the index, which
    says nothing of it, does not count them)."""
    rule: ChoiceRule = ChoiceRule.PROFILE
    """Why it was chosen."""
    names: tuple[str, ...] = ()
    """The different method names of the matching compilations (at most _MAX_NAMES)."""
    inlined: str | None = None
    """The inlined method the pattern matched, when no compilation's own name matched it."""


class _Best:
    """The candidates of one kind seen so far: the hottest, the last C2, the last; and how many."""

    def __init__(self) -> None:
        self.hottest: Method | None = None
        self.last_c2: Method | None = None
        self.last: Method | None = None
        self.count = 0
        self.names: set[str] = set()

    def add(self, method: Method) -> None:
        self.count += 1
        self.last = method
        if len(self.names) < _MAX_NAMES:
            self.names.add(method.header.name)
        if method.header.compiler is Compiler.C2:
            self.last_c2 = method
        if method.profile is not None and (self.hottest is None or _share(method) > _share(self.hottest)):
            self.hottest = method

    def picked(self, total: int, inlined: str | None) -> Picked | None:
        chosen = self.hottest or self.last_c2 or self.last
        if chosen is None:
            return None
        rule = ChoiceRule.HOTTEST if self.hottest else ChoiceRule.LAST_C2 if self.last_c2 else ChoiceRule.LAST
        return Picked(chosen, self.count, total, rule, tuple(sorted(self.names)), inlined)


def pick_one(methods: Iterator[Method], selector: Selector) -> Picked | None:
    """The hottest match when compilations carry measured heat (perfasm, a JMH saveLog), else the last C2 match
    (else the last match). A name pattern matches a compilation's own name; only when no compilation has such a
    name does it match the compilations that inline a method of that name. One candidate of each kind is kept."""
    return pick_each(methods, (selector,))[0]


def pick_each(methods: Iterator[Method], selectors: Sequence[Selector]) -> list[Picked | None]:
    """`pick_one` of each selector, reading the methods once (the two sides of a diff of one input)."""
    choices = [_Choice(selector) for selector in selectors]
    total = 0
    for method in methods:
        total += 1
        for choice in choices:
            choice.add(method)
    return [choice.picked(total) for choice in choices]


K = TypeVar("K", bound=Hashable)


def pick_keyed(methods: Iterator[Method], key: Callable[[Method], K]) -> dict[K, Picked]:
    """`pick_one`'s rule (the hottest, else the last C2, else the last) among the compilations sharing each key
    (a whole-log diff's method, OSR bci and compiler), reading the methods once; keys in order of first sight."""
    best: dict[K, _Best] = {}
    total = 0
    for method in methods:
        total += 1
        best.setdefault(key(method), _Best()).add(method)
    picked = {k: b.picked(total, None) for k, b in best.items()}
    return {k: p for k, p in picked.items() if p is not None}


class _Choice:
    """One selector's candidates: compilations named as it asks, else those that inline such a method."""

    def __init__(self, selector: Selector) -> None:
        self.selector = selector
        self.own, self.inlining = _Best(), _Best()
        self.inlined: str | None = None

    def add(self, method: Method) -> None:
        if self.selector.matches(method):
            self.own.add(method)
        elif not self.own.count:
            inlined = self.selector.inlined(method)
            if inlined is not None:
                self.inlining.add(method)
                self.inlined = self.inlined or inlined

    def picked(self, total: int) -> Picked | None:
        if self.own.count:
            return self.own.picked(total, None)
        return self.inlining.picked(total, self.inlined)


_MAX_NAMES = 100
_STICKY = 1 << 62
"""Hits that no later compilation can beat."""


def _share(method: Method) -> float:
    """The first event's share of the run (0 without a profile)."""
    profile = method.profile
    share = profile.run_share if profile is not None else ()
    return share[0] if share else 0.0


def pick_profiled(
    methods: Iterator[Method], profiles: Sequence[Measured], unprinted: int | None = None
) -> Picked | None:
    """The compilation most of the profile's sampled addresses land on (ties: the later one); the compilation
    with compile id `unprinted` (the hottest of the run, which perfasm did not print) when the input has it."""
    sampled = {address for p in profiles for address in p.profile.heat}
    best: Method | None = None
    best_hits = -1
    total = 0
    for method in methods:
        total += 1
        if unprinted is not None and method.header.compile_id == unprinted:
            best, best_hits = method, _STICKY
            continue
        hits = sum(1 for ins in method.instructions if ins.address in sampled)
        if hits >= best_hits:
            best, best_hits = method, hits
    if best is None:
        return None
    return Picked(best, total, total, ChoiceRule.UNPRINTED if best_hits == _STICKY else ChoiceRule.PROFILE)
