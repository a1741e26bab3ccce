"""A HotSpot replay file (`replay_pid<PID>_compid<N>.log`, what `DumpReplay` writes): its `compile` line read, and
its recorded inlining list taken out for a replay whose inlining the heuristics decide again.

The line is `compile KLASS METHOD SIGNATURE ENTRY_BCI LEVEL [inline COUNT (DEPTH BCI [LATE] KLASS METHOD
SIGNATURE)*]` (LATE from version 2 on). With the list, ciReplay forces each listed callee in ("force inline by
ciReplay") and keeps every other one out ("disallowed by ciReplay"); without `inline` at all, C2 decides as usual
from the replayed profile. CompileCommands are checked before both."""

from __future__ import annotations

import re
from dataclasses import dataclass

from asmcfg.errors import InputError

_NAME = re.compile(r"[^\x00-\x20,'\"\\\x7f]{1,1000}")
"""A class, method or signature as a replay file writes it: no control character, space, comma, quote or backslash
(the class and method go into a CompileCommand)."""
LARGEST_LINE = 1 << 20
"""A `compile` line longer than this is no replay file's (a real one is some hundred bytes)."""


@dataclass(frozen=True, slots=True)
class Inline:
    """One entry of the recorded inlining list."""

    depth: int
    """0 for the compiled method itself, 1 for a callee it inlines, and so on."""
    bci: int
    """The call's bytecode index in its caller (-1 for the method itself)."""
    callee: str
    """`pkg.Class::method`."""


@dataclass(frozen=True, slots=True)
class Task:
    """A replay file's compile task."""

    klass: str
    """The class as HotSpot names it there (`java/lang/String`)."""
    method: str
    """The method's name."""
    signature: str
    """Its signature, `([I)I`."""
    entry_bci: int
    """-1 for a normal compilation, the loop's bci for an OSR one."""
    level: int
    """The tier: 4 for C2, 1-3 for C1."""
    inlining: tuple[Inline, ...] | None
    """The recorded inlining list (the method itself first), None when the line holds none."""
    line: int
    """The `compile` line's number in the file."""

    @property
    def name(self) -> str:
        """`pkg.Class::method`, as asmcfg names a compilation."""
        return f"{self.klass.replace('/', '.')}::{self.method}"

    @property
    def pattern(self) -> str:
        """The method as a CompileCommand names it (`pkg/Class.method`)."""
        return f"{self.klass}.{self.method}"

    @property
    def osr_bci(self) -> int | None:
        """The OSR entry's bci, None for a normal compilation."""
        return None if self.entry_bci < 0 else self.entry_bci


def task(text: str, source: str) -> Task:
    """The compile task of a replay file's text; an InputError naming file:line when it holds none or a broken
    one."""
    version = 0
    found: tuple[int, str] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("version "):
            version = _int(line.split()[1:2], f"{source}:{number}")
        elif line.startswith("compile "):
            found = (number, line)
    if found is None:
        if text.startswith("\x7fELF") or "\0" in text[:4096]:
            raise InputError(f"{source}: not a replay file (binary data)", "whatif")
        raise InputError(f"{source}: no `compile` line: not a replay file of a compilation (HotSpot writes them "
                         "as replay_pid<PID>_compid<N>.log)", "whatif")
    number, line = found
    where = f"{source}:{number}"
    if len(line) > LARGEST_LINE:
        raise InputError(f"{where}: the compile line is {len(line)} characters long: not a replay file", "whatif")
    words = line.split()
    if len(words) < 6:
        raise InputError(f"{where}: a compile line names the class, method, signature, entry bci and tier",
                         "whatif")
    if words[1].startswith("@"):
        raise InputError(f"{where}: the compiled method's class is a hidden class ({words[1]} …): a replay "
                         "cannot print it by name", "whatif")
    if any(not _NAME.fullmatch(word) for word in words[1:4]):
        raise InputError(f"{where}: the class, method or signature holds characters no JVM name has", "whatif")
    return Task(words[1], words[2], words[3], _int(words[4:5], where), _int(words[5:6], where),
                _inlining(words[6:], version, where), number)


def _inlining(words: list[str], version: int, where: str) -> tuple[Inline, ...] | None:
    """The `inline COUNT ...` list, None when there is none. An entry's class is one word, or a dynamic one (a
    hidden class named by its call site: `@bci CLASS METHOD SIGNATURE BCI ... ;`) that runs to its `;`."""
    if not words or words[0] != "inline":
        return None
    count = _int(words[1:2], where)
    if count < 0 or count > len(words):
        raise InputError(f"{where}: the inline list says {count} entries but holds {len(words) - 2} words", "whatif")
    found: list[Inline] = []
    at = 2
    for _ in range(count):
        if at + 3 > len(words):
            raise InputError(f"{where}: the inline list says {count} entries but ends after {len(found)}", "whatif")
        depth, bci = _int(words[at:at + 1], where), _int(words[at + 1:at + 2], where)
        at += 3 if version >= 2 else 2
        klass, at = _klass(words, at, where)
        if at + 2 > len(words):
            raise InputError(f"{where}: the inline list says {count} entries but ends after {len(found)}", "whatif")
        found.append(Inline(depth, bci, f"{klass.replace('/', '.')}::{words[at]}"))
        at += 2
    if at != len(words):
        raise InputError(f"{where}: the inline list says {count} entries but holds more words", "whatif")
    return tuple(found)


def _klass(words: list[str], at: int, where: str) -> tuple[str, int]:
    """The class at `at` (a dynamic one named by its call site's class) and where what follows it starts."""
    if at >= len(words):
        raise InputError(f"{where}: the inline list ends where a class is expected", "whatif")
    if not words[at].startswith("@"):
        return words[at], at + 1
    try:
        end = words.index(";", at)
    except ValueError:
        raise InputError(f"{where}: a dynamic class ({words[at]} …) without its closing `;`", "whatif") from None
    return (words[at + 1] if at + 1 < end else "?") + "$hidden", end + 1


def without_inlining(text: str, found: Task) -> str:
    """The replay file with its compile line's inlining list removed: C2 then decides the inlining itself."""
    lines = text.splitlines(keepends=True)
    words = lines[found.line - 1].split()
    lines[found.line - 1] = " ".join(words[:6]) + "\n"
    return "".join(lines)


def _int(words: list[str], where: str) -> int:
    try:
        return int(words[0])
    except (IndexError, ValueError):
        raise InputError(f"{where}: expected a number, found {words[0] if words else 'nothing'!r}",
                         "whatif") from None
