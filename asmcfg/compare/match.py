"""Pair the items of two compilations by what the dumps carry (debug info, bytecodes), never by address.

Every matcher tries a strict key first (method@bci chains) and then a loose one (methods and bytecodes, which
survive a code change that shifts bcis); what no key pairs is added or removed, never forced into a pair.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from asmcfg.compare import encodings
from asmcfg.compare.blocks import pair_blocks
from asmcfg.compare.facts import Inlined, Scope
from asmcfg.compare.items import CallItem, CheckItem, LoopItem, PollItem, Side, TrapItem
from asmcfg.compare.pairing import pair, pair_apart

Item = TrapItem | CheckItem | CallItem | PollItem | Inlined
"""Anything a change can name."""
_PLACE = "place"
_COPY = "outer loop"
_MIN_SHARE = 0.0


@dataclass(frozen=True, slots=True)
class LoopPair:
    """A loop of either side and its counterpart, if any."""

    old: LoopItem | None
    """The old compilation's loop; None for an added loop."""
    new: LoopItem | None
    """The new compilation's loop; None for a removed loop."""
    how: str
    """`debug info` (shared method@bci), `bytecodes` (shared method and bytecode), `outer loop` (a loop C2 did not
    strip-mine and the main loop inside the strip-mined outer loop its debug info pairs with), `place` (same spot
    in matched loops), or empty for an unmatched loop."""

    @property
    def status(self) -> str:
        """`added`, `removed`, `changed` or `same`."""
        if self.old is None:
            return "added"
        if self.new is None:
            return "removed"
        return "same" if loop_figures(self.old) == loop_figures(self.new) else "changed"


@dataclass(frozen=True, slots=True)
class Change:
    """An item that appeared, vanished or moved."""

    what: str
    """`trap`, `check`, `call` or `poll`."""
    change: str
    """`added`, `removed`, `left_loop` (a check in a loop is now outside loops, or gone), `entered_loop` (a check
    is now in a loop, and was outside loops or absent), `inlined`
    (a call became inlined), `not_inlined` (an inlined call became a real call), `kind` (a call's kind changed)."""
    old: Item | None
    """The old side's item."""
    new: Item | None
    """The new side's item."""


@dataclass(frozen=True, slots=True)
class Matched:
    """A trap, check, call or poll of the old compilation and its counterpart in the new one."""

    what: str
    """`trap`, `check`, `call` or `poll`."""
    old: TrapItem | CheckItem | CallItem | PollItem
    """The old side's item."""
    new: TrapItem | CheckItem | CallItem | PollItem
    """The new side's item."""


@dataclass(frozen=True, slots=True)
class Diff:
    """Two compilations and how their items pair up."""

    old: Side
    """The compilation before."""
    new: Side
    """The compilation after."""
    loops: tuple[LoopPair, ...]
    """Matched loops (in the new side's order), then removed and added ones."""
    changes: tuple[Change, ...]
    """Traps, checks, calls and polls that were added, removed or moved."""
    blocks: tuple[tuple[int, int], ...]
    """(old block, new block) pairs matched by their debug info or their place in a matched loop."""
    matched: tuple[Matched, ...] = ()
    """Traps, checks, calls and polls present on both sides, paired."""


def loop_figures(loop: LoopItem) -> tuple[object, ...]:
    """What one iteration of a loop costs, as compared between the sides."""
    vector = None if loop.vector is None else (loop.vector.vector_bits, loop.vector.element, loop.vector.vector_isa)
    return (loop.role, loop.unroll, loop.instructions, loop.range_checks, loop.null_checks, loop.polls, loop.calls,
            vector)


def methods(scope: Scope) -> tuple[str, ...]:
    """The methods of a chain without bcis."""
    return tuple(m for m, _ in scope)


def diff(old: Side, new: Side) -> Diff:
    """Match everything the two sides hold."""
    loops = match_loops(old.loops, new.loops)
    matched: list[Matched] = []
    changes = [*_traps(old, new, matched), *_checks(old, new, loops, matched), *_calls(old, new, matched),
               *_polls(old, new, matched)]
    return Diff(old, new, loops, tuple(changes), pair_blocks(old, new, loops), tuple(matched))


def match_loops(old: Sequence[LoopItem], new: Sequence[LoopItem]) -> tuple[LoopPair, ...]:
    """Loops paired by shared debug info (else bytecodes), best first, then by place under matched parents."""
    scored = []
    for o in old:
        for n in new:
            score, how = _loop_score(o, n)
            if score > _MIN_SHARE:
                # the same copy (main with main) first among loops sharing debug info, then the most shared
                rank = (score > 1, bool(o.role) and o.role == n.role, score, o.hot and n.hot,
                        (o.depth, o.strip_mined) == (n.depth, n.strip_mined),
                        -abs(o.instructions - n.instructions), -o.header, -n.header)
                scored.append((rank, how, o, n))
    scored.sort(key=lambda row: row[0], reverse=True)
    mapping: dict[int, tuple[LoopItem, str]] = {}
    taken: set[int] = set()
    for _, how, o, n in scored:
        if n.header not in mapping and o.header not in taken:
            mapping[n.header] = (o, how)
            taken.add(o.header)
    _through_outer(old, new, mapping, taken)
    _by_place(old, new, mapping, taken)
    pairs = [LoopPair(mapping[n.header][0], n, mapping[n.header][1]) for n in new if n.header in mapping]
    pairs += [LoopPair(o, None, "") for o in old if o.header not in taken]
    pairs += [LoopPair(None, n, "") for n in new if n.header not in mapping]
    return tuple(pairs)


def _through_outer(
    old: Sequence[LoopItem], new: Sequence[LoopItem], mapping: dict[int, tuple[LoopItem, str]], taken: set[int]
) -> None:
    """A loop C2 did not strip-mine, paired with a strip-mined outer loop (which holds the source loop's debug
    info: C2 keeps none in the unrolled body), is paired with its inner loop, the main loop, instead; the inner
    loops of two paired strip-mined outer loops pair with each other."""
    def inner(loops: Sequence[LoopItem], outer: LoopItem) -> LoopItem | None:
        found = [loop for loop in loops if loop.parent == outer.header]
        return found[0] if outer.strip_mined and len(found) == 1 else None

    def plain(loops: Sequence[LoopItem], loop: LoopItem) -> bool:
        return not loop.strip_mined and not any(other.parent == loop.header for other in loops)

    for n_header, (o, _) in list(mapping.items()):
        n = next(loop for loop in new if loop.header == n_header)
        n_main, o_main = inner(new, n), inner(old, o)
        if n_main is not None and plain(old, o) and n_main.header not in mapping:
            del mapping[n_header]
            mapping[n_main.header] = (o, _COPY)
        elif o_main is not None and plain(new, n) and o_main.header not in taken:
            taken.discard(o.header)
            taken.add(o_main.header)
            mapping[n_header] = (o_main, _COPY)
        elif o_main is not None and n_main is not None and o_main.header not in taken and n_main.header not in mapping:
            taken.add(o_main.header)
            mapping[n_main.header] = (o_main, _COPY)


def _loop_score(o: LoopItem, n: LoopItem) -> tuple[float, str]:
    """The share of debug info two loops have in common (above 1), else of bytecodes (below 1)."""
    if o.scopes and n.scopes:
        share = len(o.scopes & n.scopes) / len(o.scopes | n.scopes)
        if share > 0:
            return 1.0 + share, "debug info"
    if o.words and n.words:
        return len(o.words & n.words) / len(o.words | n.words), "bytecodes"
    return 0.0, ""


def _by_place(
    old: Sequence[LoopItem], new: Sequence[LoopItem], mapping: dict[int, tuple[LoopItem, str]], taken: set[int]
) -> None:
    """Pair still-unmatched loops that sit at the same depth under matched parents (or at the top), when each
    side has the same number of them there: in address order."""
    to_new = {o.header: n for n, (o, _) in mapping.items()}
    groups: dict[tuple[int | None, int], tuple[list[LoopItem], list[LoopItem]]] = {}
    for o in old:
        if o.header not in taken and (o.parent is None or o.parent in to_new):
            parent = None if o.parent is None else to_new[o.parent]
            groups.setdefault((parent, o.depth), ([], []))[0].append(o)
    for n in new:
        if n.header not in mapping and (n.parent, n.depth) in groups:
            groups[(n.parent, n.depth)][1].append(n)
    for olds, news in groups.values():
        if len(olds) == len(news):
            for o, n in zip(olds, news, strict=True):
                mapping[n.header] = (o, _PLACE)
                taken.add(o.header)


def _traps(old: Side, new: Side, matched: list[Matched]) -> list[Change]:
    crossing = encodings.across(old, new)  # C2 against JVMCI: also paired by method@bci chain
    pairs, gone, came = pair(old.traps, new.traps, [
        lambda t: (t.reason, t.action, t.scope),
        *(encodings.keys(methods) if crossing else ()),
        lambda t: (t.reason, t.action, t.bytecode, methods(t.scope)),
    ])
    matched += [Matched("trap", o, n) for o, n in pairs]
    changes = [Change("trap", "reason", o, n) for o, n in pairs if crossing and encodings.differ(o, n)]
    changes += [Change("trap", "removed", t, None) for t in gone]
    return changes + [Change("trap", "added", None, t) for t in came]


def check_keys() -> list[Callable[[CheckItem], Hashable]]:
    """Check keys, strict to loose: the guarded bytecode at its method@bci chain, then without the bcis."""
    return [lambda c: (c.kind, c.bytecode, c.scope), lambda c: (c.kind, c.bytecode, methods(c.scope))]


def _checks(old: Side, new: Side, loops: Sequence[LoopPair], matched: list[Matched]) -> list[Change]:
    """Checks paired in the loops paired (a post-loop's check with the other post-loop's), then in or out of any
    loop, then anywhere; what stays unpaired was added or removed, or entered or left a loop."""
    counterpart = {p.old.header: p.new.header for p in loops if p.old is not None and p.new is not None}
    through = [
        (lambda c: (c.kind, c.bytecode, c.scope, counterpart.get(c.loop, -1) if c.loop is not None else None),
         lambda c: (c.kind, c.bytecode, c.scope, c.loop)),
        (lambda c: (c.kind, c.bytecode, methods(c.scope), counterpart.get(c.loop, -1) if c.loop is not None else None),
         lambda c: (c.kind, c.bytecode, methods(c.scope), c.loop)),
    ]
    inside = [
        lambda c: (c.kind, c.bytecode, c.scope, c.loop is None),
        lambda c: (c.kind, c.bytecode, methods(c.scope), c.loop is None),
    ]
    pairs, gone, came = pair_apart(old.checks, new.checks, [*through, *[(k, k) for k in [*inside, *check_keys()]]])
    matched += [Matched("check", o, n) for o, n in pairs]
    changes = []
    for o, n in pairs:
        if (o.loop is None) != (n.loop is None):
            changes.append(Change("check", "left_loop" if n.loop is None else "entered_loop", o, n))
    gone, came = _unseen(gone, new), _unseen(came, old)
    changes += [Change("check", "removed" if c.loop is None else "left_loop", c, None) for c in gone]
    changes += [Change("check", "added" if c.loop is None else "entered_loop", None, c) for c in came]
    return changes


def _unseen(unpaired: list[CheckItem], other: Side) -> list[CheckItem]:
    """`unpaired` without the implicit checks whose trap the other side still has: a hex dump prints the comment
    naming a faulting instruction only when the instruction starts one of its 4-byte chunks, so the other side's
    check is there but its instruction is unmarked."""
    kept = {(t.reason, t.bytecode, t.scope) for t in other.traps}
    return [c for c in unpaired if not (c.implicit and (c.kind, c.bytecode, c.scope) in kept)]


def _calls(old: Side, new: Side, matched: list[Matched]) -> list[Change]:
    pairs, gone, came = pair(old.calls, new.calls, [
        lambda c: (c.name, c.scope) if c.java else (c.kind, c.name, c.scope),
        lambda c: (c.name, methods(c.scope)) if c.java else (c.kind, c.name),
    ])
    matched += [Matched("call", o, n) for o, n in pairs]
    changes = [Change("call", "kind", o, n) for o, n in pairs if o.kind != n.kind]
    for call in gone:  # a side read with its log names what was inlined by the log's records (items.Side.inlined)
        now = _inlined_at(call, new.inlined) if call.java else None
        changes.append(Change("call", "inlined", call, now) if now else Change("call", "removed", call, None))
    for call in came:
        before = _inlined_at(call, old.inlined) if call.java else None
        changes.append(Change("call", "not_inlined", before, call) if before else Change("call", "added", None, call))
    return changes


def _inlined_at(call: CallItem, inlined: Sequence[Inlined]) -> Inlined | None:
    """The inlining evidence on the other side for the same invoke: the same chain, else the same innermost
    method@bci (a log names the caller alone), else the same methods, else the same innermost method."""
    keys: list[Callable[[Scope], Hashable]] = [
        lambda s: s, lambda s: s[:1], methods, lambda s: methods(s[:1]),
    ]
    for key in keys:
        for found in inlined:
            if found.callee == call.name and call.scope and key(found.scope) == key(call.scope):
                return found
    return None


def _polls(old: Side, new: Side, matched: list[Matched]) -> list[Change]:
    pairs, gone, came = pair(old.polls, new.polls, [lambda p: p.scope, lambda p: methods(p.scope)])
    matched += [Matched("poll", o, n) for o, n in pairs]
    return [Change("poll", "removed", p, None) for p in gone] + [Change("poll", "added", None, p) for p in came]
