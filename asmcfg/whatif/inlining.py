"""Which inlining a what-if replayed as recorded and which it changed: the replay file's inlining list (what C2
inlined in the recording) against the calls the diff of the two replays finds inlined or not."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from asmcfg.compare.facts import Inlined
from asmcfg.compare.items import CallItem
from asmcfg.compare.match import Diff
from asmcfg.whatif.replayfile import Task

_CALL_CHANGES = ("inlined", "not_inlined", "added", "removed", "kind")


@dataclass(frozen=True, slots=True)
class Inlining:
    """The recorded inlining and what the what-if changed of it."""

    recorded: tuple[str, ...]
    """The callees the recording inlined (`Class::method@bci`), from the replay file's list; empty without one."""
    changed: tuple[tuple[str, str], ...]
    """(change, callee) of each call the what-if inlined, stopped inlining, added or removed."""

    @property
    def kept(self) -> tuple[str, ...]:
        """The recorded inlining the what-if left as it was."""
        gone = {_short(callee) for _, callee in self.changed}
        return tuple(entry for entry in self.recorded if _short(entry.split("@")[0]) not in gone)

    def sentence(self) -> str:
        """One line: how many recorded inlinings were replayed as recorded, and what changed."""
        if not self.recorded and not self.changed:
            return "inlining: the recording inlined no callee, and the what-if inlined none"
        kept = f"{len(self.kept)} of {len(self.recorded)} recorded inlined callees replayed as recorded"
        if not self.changed:
            return f"inlining: {kept}; the what-if changed none"
        changes = ", ".join(f"{change.replace('_', ' ')} {callee}" for change, callee in self.changed)
        return f"inlining: {kept}; the what-if changed: {changes}"

    def as_dict(self) -> dict[str, Any]:
        return {"recorded": list(self.recorded), "kept": list(self.kept),
                "changed": [{"change": change, "callee": callee} for change, callee in self.changed]}


def compare(task: Task, result: Diff) -> Inlining:
    """The recorded inlining list against the call changes between the baseline and the what-if."""
    recorded = tuple(f"{entry.callee}@{entry.bci}" for entry in task.inlining or () if entry.depth > 0)
    changed = []
    for change in result.changes:
        if change.what != "call" or change.change not in _CALL_CHANGES:
            continue
        item = change.new if change.new is not None else change.old
        if isinstance(item, CallItem | Inlined):
            changed.append((change.change, item.callee))
    return Inlining(recorded, tuple(dict.fromkeys(changed)))


def _short(name: str) -> str:
    """A callee's method name, as both the replay file's full names and the diff's short ones end."""
    return name.rsplit("::", 1)[-1].rsplit(".", 1)[-1]
