"""The bytecode of the methods in a compilation, read from their class files (`--classpath`, a record folder's)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Bytecode:
    """One bytecode instruction of a method: `17: iaload`."""

    bci: int
    """Its bytecode index (offset in the method's code)."""
    name: str
    """The opcode's mnemonic (`iaload`, `invokevirtual`)."""
    operands: str
    """What follows it, as javap shows it in spirit (`Findings.add:(II)I`, `-> 34`, `1, 1`); empty for none."""
    line: int | None
    """The source line the class file's LineNumberTable gives it, None without one."""

    def as_dict(self) -> dict[str, Any]:
        """The bytecode as the page's model writes it."""
        return {"bci": self.bci, "name": self.name, "operands": self.operands, "line": self.line}


@dataclass(frozen=True, slots=True)
class MethodCode:
    """One method's code as its class file holds it."""

    method: str
    """`pkg.Class::name`, as the debug info names it."""
    descriptor: str
    """Its JVM descriptor (`([II)I`): tells overloads apart."""
    codes: tuple[Bytecode, ...]
    """Its bytecodes in bci order."""

    def at(self, bci: int) -> Bytecode | None:
        """The bytecode that starts at `bci`, None when none does."""
        low, high = 0, len(self.codes)
        while low < high:
            mid = (low + high) // 2
            if self.codes[mid].bci < bci:
                low = mid + 1
            else:
                high = mid
        return self.codes[low] if low < len(self.codes) and self.codes[low].bci == bci else None


@dataclass(frozen=True, slots=True)
class ClassFiles:
    """What the class path gave for the classes of a set of methods."""

    methods: dict[str, tuple[MethodCode, ...]]
    """`pkg.Class::name` -> each method of that name with code (overloads apart by descriptor)."""
    read_from: dict[str, str]
    """Class name (`pkg.Class`) -> where its class file was read (a file, or `jar!entry`)."""
    absent: dict[str, str]
    """Class name -> why it has no class file here (a hidden class, not on the class path, unreadable)."""
