"""Pair the items of two compilations by what the dumps carry (debug info, bytecodes), never by address.

Every matcher tries a strict key first (method@bci chains) and then a loose one (methods and bytecodes, which
survive a code change that shifts bcis); what no key pairs is added or removed, never forced into a pair.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from asmcfg.diff.facts import Call, Inlined, Scope
from asmcfg.diff.items import CheckItem, LoopItem, PollItem, Side, TrapItem
from asmcfg.model import CallKind

T = TypeVar("T")
_PLACE = "place"
_MIN_SHARE = 0.0


@dataclass(frozen=True, slots=True)
class LoopPair:
    """A loop of either side and its counterpart, if any."""

    old: LoopItem | None
    """The old compilation's loop; None for an added loop."""
    new: LoopItem | None
    """The new compilation's loop; None for a removed loop."""
    how: str
    """`debug info` (shared method@bci), `bytecodes` (shared method and bytecode), `place` (same spot in matched
    loops), or empty for an unmatched loop."""

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
    old: TrapItem | CheckItem | Call | PollItem | Inlined | None
    """The old side's item."""
    new: TrapItem | CheckItem | Call | PollItem | Inlined | None
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


def loop_figures(loop: LoopItem) -> tuple[object, ...]:
    """What one iteration of a loop costs, as compared between the sides."""
    vector = None if loop.vector is None else (loop.vector.bits, loop.vector.element)
    return (loop.instructions, loop.range_checks, loop.null_checks, loop.polls, loop.calls, vector)


def methods(scope: Scope) -> tuple[str, ...]:
    """The methods of a chain without bcis."""
    return tuple(m for m, _ in scope)


def pair(
    old: Sequence[T], new: Sequence[T], keys: Sequence[Callable[[T], Hashable]]
) -> tuple[list[tuple[T, T]], list[T], list[T]]:
    """Pair items by each key in turn (first come, first paired); returns pairs, unpaired old, unpaired new."""
    pairs: list[tuple[T, T]] = []
    left_old, left_new = list(old), list(new)
    for key in keys:
        buckets: dict[Hashable, list[T]] = {}
        for item in left_new:
            buckets.setdefault(key(item), []).append(item)
        still: list[T] = []
        for item in left_old:
            bucket = buckets.get(key(item))
            if bucket:
                pairs.append((item, bucket.pop(0)))
            else:
                still.append(item)
        paired = {id(n) for _, n in pairs}
        left_old, left_new = still, [n for n in left_new if id(n) not in paired]
    return pairs, left_old, left_new


def diff(old: Side, new: Side) -> Diff:
    """Match everything the two sides hold."""
    loops = match_loops(old.loops, new.loops)
    changes = [*_traps(old, new), *_checks(old, new), *_calls(old, new), *_polls(old, new)]
    return Diff(old, new, loops, tuple(changes), _blocks(old, new, loops))


def match_loops(old: Sequence[LoopItem], new: Sequence[LoopItem]) -> tuple[LoopPair, ...]:
    """Loops paired by shared debug info (else bytecodes), best first, then by place under matched parents."""
    scored = []
    for o in old:
        for n in new:
            score, how = _loop_score(o, n)
            if score > _MIN_SHARE:
                rank = (score, o.hot and n.hot, (o.depth, o.strip_mined) == (n.depth, n.strip_mined),
                        -abs(o.instructions - n.instructions), -o.header, -n.header)
                scored.append((rank, how, o, n))
    scored.sort(key=lambda row: row[0], reverse=True)
    mapping: dict[int, tuple[LoopItem, str]] = {}
    taken: set[int] = set()
    for _, how, o, n in scored:
        if n.header not in mapping and o.header not in taken:
            mapping[n.header] = (o, how)
            taken.add(o.header)
    _by_place(old, new, mapping, taken)
    pairs = [LoopPair(mapping[n.header][0], n, mapping[n.header][1]) for n in new if n.header in mapping]
    pairs += [LoopPair(o, None, "") for o in old if o.header not in taken]
    pairs += [LoopPair(None, n, "") for n in new if n.header not in mapping]
    return tuple(pairs)


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


def _traps(old: Side, new: Side) -> list[Change]:
    _, gone, came = pair(old.traps, new.traps, [
        lambda t: (t.reason, t.action, t.scope),
        lambda t: (t.reason, t.action, t.bytecode, methods(t.scope)),
    ])
    return [Change("trap", "removed", t, None) for t in gone] + [Change("trap", "added", None, t) for t in came]


def check_keys() -> list[Callable[[CheckItem], Hashable]]:
    """Check keys, strict to loose: the guarded bytecode at its method@bci chain, then without the bcis."""
    return [lambda c: (c.kind, c.bytecode, c.scope), lambda c: (c.kind, c.bytecode, methods(c.scope))]


def _checks(old: Side, new: Side) -> list[Change]:
    inside = [
        lambda c: (c.kind, c.bytecode, c.scope, c.loop is None),
        lambda c: (c.kind, c.bytecode, methods(c.scope), c.loop is None),
    ]
    pairs, gone, came = pair(old.checks, new.checks, [*inside, *check_keys()])
    changes = []
    for o, n in pairs:
        if (o.loop is None) != (n.loop is None):
            changes.append(Change("check", "left_loop" if n.loop is None else "entered_loop", o, n))
    changes += [Change("check", "removed" if c.loop is None else "left_loop", c, None) for c in gone]
    changes += [Change("check", "added" if c.loop is None else "entered_loop", None, c) for c in came]
    return changes


_JAVA = (CallKind.STATIC, CallKind.VIRTUAL, CallKind.INTERFACE)


def _calls(old: Side, new: Side) -> list[Change]:
    pairs, gone, came = pair(old.calls, new.calls, [
        lambda c: (c.callee, c.scope) if c.kind in _JAVA else (c.kind, c.callee, c.scope),
        lambda c: (c.callee, methods(c.scope)) if c.kind in _JAVA else (c.kind, c.callee),
    ])
    changes = [Change("call", "kind", o, n) for o, n in pairs if o.kind != n.kind]
    for call in gone:
        now = _inlined_at(call, new.inlined) if call.kind in _JAVA else None
        changes.append(Change("call", "inlined", call, now) if now else Change("call", "removed", call, None))
    for call in came:
        before = _inlined_at(call, old.inlined) if call.kind in _JAVA else None
        changes.append(Change("call", "not_inlined", before, call) if before else Change("call", "added", None, call))
    return changes


def _inlined_at(call: Call, inlined: Sequence[Inlined]) -> Inlined | None:
    """The inlining evidence on the other side for the same invoke (same chain, else same methods and callee)."""
    for found in inlined:
        if found.callee == call.callee and found.scope == call.scope:
            return found
    for found in inlined:
        if found.callee == call.callee and methods(found.scope) == methods(call.scope):
            return found
    return None


def _polls(old: Side, new: Side) -> list[Change]:
    _, gone, came = pair(old.polls, new.polls, [lambda p: p.scope, lambda p: methods(p.scope)])
    return [Change("poll", "removed", p, None) for p in gone] + [Change("poll", "added", None, p) for p in came]


def _blocks(old: Side, new: Side, loops: Sequence[LoopPair]) -> tuple[tuple[int, int], ...]:
    """Blocks with the same debug info, then the rest of matched loops' blocks in address order."""
    old_keys, new_keys = _block_keys(old), _block_keys(new)
    return _pair_blocks(old_keys, new_keys, loops)


def _block_keys(side: Side) -> dict[int, tuple[object, ...]]:
    """Per block, the (method, bci, bytecode) of its instructions with debug info, and its trap."""
    result = side.result
    instructions = result.cfg.method.instructions
    keys: dict[int, tuple[object, ...]] = {}
    for block in result.cfg.blocks:
        info: list[object] = [
            (ins.frames[0].method, ins.frames[0].bci, ins.bytecode)
            for ins in instructions[block.start : block.end]
            if ins.frames
        ]
        trap = result.traps.get(block.id)
        if trap is not None:
            info.append((trap.reason, trap.action))
        keys[block.id] = tuple(info)
    return keys


def _pair_blocks(
    old_keys: dict[int, tuple[object, ...]], new_keys: dict[int, tuple[object, ...]], loops: Sequence[LoopPair]
) -> tuple[tuple[int, int], ...]:
    mapping: dict[int, int] = {}
    buckets: dict[tuple[object, ...], list[int]] = {}
    for block in sorted(new_keys):
        if new_keys[block]:
            buckets.setdefault(new_keys[block], []).append(block)
    for block in sorted(old_keys):
        bucket = buckets.get(old_keys[block])
        if bucket:
            mapping[block] = bucket.pop(0)
    used = set(mapping.values())
    for loop in loops:
        if loop.old is None or loop.new is None:
            continue
        rest_old = [b for b in loop.old.blocks if b not in mapping]
        rest_new = [b for b in loop.new.blocks if b not in used]
        for o, n in zip(rest_old, rest_new, strict=False):
            mapping[o] = n
            used.add(n)
    return tuple(sorted(mapping.items()))
