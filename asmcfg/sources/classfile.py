"""A class file's methods and their bytecode (JVMS chapter 4), read by a small reader of our own.

The bytes may be anything: every read is bounds-checked, every count is checked against the bytes left before
anything is made for it, and each byte is visited once, so a crafted file costs time linear in its size and ends in
`ClassFormatError`, never in another exception. The text made is linear in the size too: a class, method or
descriptor name longer than `_LONGEST_NAME` is refused, and an operand's names are cut at `_SHOWN` characters, each
entry described once."""

from __future__ import annotations

import struct

from asmcfg.model.bytecode import Bytecode, MethodCode
from asmcfg.sources.opcodes import OPCODES, Operand

MAGIC = 0xCAFEBABE
_WIDE = 196
_TABLESWITCH, _LOOKUPSWITCH = 170, 171
_LONGEST_NAME = 1024
"""Characters, at most, of a class, method or descriptor name read (each method repeats its class's name)."""
_SHOWN = 200
"""Characters, at most, of each name or string an operand shows (one entry may be cited by every instruction)."""


class ClassFormatError(ValueError):
    """The bytes are not a class file this reader understands."""


class _Bytes:
    """A cursor over bytes that fails with ClassFormatError past their end."""

    def __init__(self, data: bytes, start: int = 0, end: int | None = None) -> None:
        self.data, self.pos, self.end = data, start, len(data) if end is None else end

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > self.end:
            raise ClassFormatError("truncated")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def u1(self) -> int:
        return self.take(1)[0]

    def u2(self) -> int:
        return int.from_bytes(self.take(2), "big")

    def u4(self) -> int:
        return int.from_bytes(self.take(4), "big")

    def s4(self) -> int:
        return int.from_bytes(self.take(4), "big", signed=True)


def read_class(data: bytes) -> tuple[str, list[MethodCode]]:
    """The class's binary name (`pkg.Outer$Inner`) and its methods that have code."""
    cur = _Bytes(data)
    if cur.u4() != MAGIC:
        raise ClassFormatError("not a class file (no CAFEBABE)")
    cur.take(4)  # minor, major version
    pool = _Pool(cur)
    cur.take(2)  # access flags
    name = pool.name(pool.ref(cur.u2(), 7)).replace("/", ".")
    cur.take(2)  # super class
    cur.take(2 * _count(cur, 2))  # interfaces
    for _ in range(_count(cur, 8)):  # fields: access, name, descriptor, attributes
        cur.take(6)
        _skip_attributes(cur)
    methods = []
    for _ in range(_count(cur, 8)):
        cur.take(2)
        method, descriptor = pool.name(cur.u2()), pool.name(cur.u2())
        code = _method_code(cur, pool)
        if code is not None:
            methods.append(MethodCode(f"{name}::{method}", descriptor, code))
    _skip_attributes(cur)
    if cur.pos != cur.end:
        raise ClassFormatError("bytes after the class file's end")
    return name, methods


def _count(cur: _Bytes, least: int) -> int:
    """A u2 count of items at least `least` bytes each, refused when the bytes left cannot hold them."""
    n = cur.u2()
    if n * least > cur.end - cur.pos:
        raise ClassFormatError("a count larger than the file")
    return n


def _skip_attributes(cur: _Bytes) -> None:
    for _ in range(_count(cur, 6)):
        cur.take(2)
        cur.take(cur.u4())


def _method_code(cur: _Bytes, pool: _Pool) -> tuple[Bytecode, ...] | None:
    """The method's bytecodes (its attributes read past), None when it has no Code attribute."""
    found = None
    for _ in range(_count(cur, 6)):
        kind, length = pool.utf8(cur.u2()), cur.u4()
        body = _Bytes(cur.data, cur.pos, cur.pos + length)
        cur.take(length)
        if kind == "Code" and found is None:
            found = _code(body, pool)
    return found


def _code(cur: _Bytes, pool: _Pool) -> tuple[Bytecode, ...]:
    cur.take(4)  # max stack, max locals
    length = cur.u4()
    start = cur.pos
    cur.take(length)
    cur.take(8 * _count(cur, 8))  # exception table
    lines: dict[int, int] = {}
    for _ in range(_count(cur, 6)):
        kind, size = pool.utf8(cur.u2()), cur.u4()
        body = _Bytes(cur.data, cur.pos, cur.pos + size)
        cur.take(size)
        if kind == "LineNumberTable":
            for _ in range(_count(body, 4)):
                pc, line = body.u2(), body.u2()
                lines.setdefault(pc, line)
    return tuple(_instructions(_Bytes(cur.data, start, start + length), start, pool, lines))


def _instructions(cur: _Bytes, base: int, pool: _Pool, lines: dict[int, int]) -> list[Bytecode]:
    """Each instruction of the code between `cur.pos` and `cur.end` (code offset 0 at `base`), its line the
    LineNumberTable's entry at or before it."""
    out, line = [], None
    while cur.pos < cur.end:
        bci = cur.pos - base
        line = lines.get(bci, line)
        op = cur.u1()
        if op == _WIDE:
            name, operands = _wide(cur)
        elif op in (_TABLESWITCH, _LOOKUPSWITCH):
            name, operands = _switch(cur, op, bci, base)
        elif op < len(OPCODES):
            name, forms = OPCODES[op]
            operands = ", ".join(_operand(cur, form, bci, pool) for form in forms)
        else:
            raise ClassFormatError(f"unknown opcode {op} at bci {bci}")
        out.append(Bytecode(bci, name, operands, line))
    return out


def _wide(cur: _Bytes) -> tuple[str, str]:
    op = cur.u1()
    if op >= len(OPCODES):
        raise ClassFormatError("wide: unknown opcode")
    name = OPCODES[op][0]
    if name == "iinc":
        index, delta = cur.u2(), int.from_bytes(cur.take(2), "big", signed=True)
        return "iinc_w", f"{index}, {delta}"
    return f"{name}_w", str(cur.u2())


def _switch(cur: _Bytes, op: int, bci: int, base: int) -> tuple[str, str]:
    cur.take((4 - (cur.pos - base) % 4) % 4)
    default = bci + cur.s4()
    if op == _TABLESWITCH:
        low, high = cur.s4(), cur.s4()
        count = high - low + 1
        if count < 0 or count * 4 > cur.end - cur.pos:
            raise ClassFormatError("tableswitch larger than the code")
        targets = [f"{low + n}: {bci + cur.s4()}" for n in range(count)]
        return "tableswitch", "{" + ", ".join([*targets, f"default: {default}"]) + "}"
    pairs = cur.s4()
    if pairs < 0 or pairs * 8 > cur.end - cur.pos:
        raise ClassFormatError("lookupswitch larger than the code")
    targets = [f"{cur.s4()}: {bci + cur.s4()}" for _ in range(pairs)]
    return "lookupswitch", "{" + ", ".join([*targets, f"default: {default}"]) + "}"


def _operand(cur: _Bytes, form: Operand, bci: int, pool: _Pool) -> str:
    if form is Operand.BRANCH2:
        return f"-> {bci + int.from_bytes(cur.take(2), 'big', signed=True)}"
    if form is Operand.BRANCH4:
        return f"-> {bci + cur.s4()}"
    if form is Operand.POOL1:
        return pool.describe(cur.u1())
    if form is Operand.POOL2:
        return pool.describe(cur.u2())
    if form is Operand.SIGNED1:
        return str(int.from_bytes(cur.take(1), "big", signed=True))
    if form is Operand.SIGNED2:
        return str(int.from_bytes(cur.take(2), "big", signed=True))
    if form is Operand.ZERO:
        cur.take(1)
        return ""
    return str(cur.u1())  # a local variable's index, a count, an array type


class _Pool:
    """The constant pool: each entry's tag and fields, read once; text made on demand."""

    def __init__(self, cur: _Bytes) -> None:
        count = _count(cur, 1)
        self.entries: list[tuple[int, object]] = [(0, None)] * max(count, 1)
        self._described: dict[int, str] = {}
        index = 1
        while index < count:
            tag = cur.u1()
            self.entries[index] = (tag, self._entry(cur, tag))
            index += 2 if tag in (5, 6) else 1  # a long or double takes two slots

    @staticmethod
    def _entry(cur: _Bytes, tag: int) -> object:
        if tag == 1:
            return cur.take(cur.u2()).decode("utf-8", "replace")
        if tag in (3, 4):
            raw = cur.take(4)
            return struct.unpack(">i" if tag == 3 else ">f", raw)[0]
        if tag in (5, 6):
            raw = cur.take(8)
            return struct.unpack(">q" if tag == 5 else ">d", raw)[0]
        if tag in (7, 8, 16, 19, 20):
            return cur.u2()
        if tag in (9, 10, 11, 12, 17, 18):
            return (cur.u2(), cur.u2())
        if tag == 15:
            return (cur.u1(), cur.u2())
        raise ClassFormatError(f"unknown constant pool tag {tag}")

    def _get(self, index: int, *tags: int) -> object:
        if not 0 < index < len(self.entries) or self.entries[index][0] not in tags:
            raise ClassFormatError(f"constant pool entry {index} is not of the kind named")
        return self.entries[index][1]

    def utf8(self, index: int) -> str:
        return str(self._get(index, 1))

    def name(self, index: int) -> str:
        """A class, method or descriptor name, refused when longer than `_LONGEST_NAME`."""
        text = self.utf8(index)
        if len(text) > _LONGEST_NAME:
            raise ClassFormatError(f"a name longer than {_LONGEST_NAME} characters (constant pool entry {index})")
        return text

    def _shown(self, index: int) -> str:
        """A name or string as an operand shows it: at most `_SHOWN` characters."""
        text = self.utf8(index)
        return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"

    def class_name(self, index: int) -> str:
        return self._shown(self.ref(index, 7))

    def ref(self, index: int, *tags: int) -> int:
        value = self._get(index, *tags)
        assert isinstance(value, int)
        return value

    def _pair(self, index: int, *tags: int) -> tuple[int, int]:
        value = self._get(index, *tags)
        assert isinstance(value, tuple)
        return int(value[0]), int(value[1])

    def _name_type(self, index: int) -> str:
        name, kind = self._pair(index, 12)
        return f"{self._shown(name)}:{self._shown(kind)}"

    def describe(self, index: int) -> str:
        """The entry as a bytecode's operand reads (`Findings.add:(II)I`, `class java/lang/String`, `"text"`)."""
        described = self._described.get(index)
        if described is None:
            described = self._described[index] = self._describe(index)
        return described

    def _describe(self, index: int) -> str:
        if not 0 < index < len(self.entries):
            raise ClassFormatError(f"constant pool index {index} out of range")
        tag, value = self.entries[index]
        if tag in (9, 10, 11):
            owner, name_type = self._pair(index, tag)
            return f"{self.class_name(owner).replace('/', '.')}.{self._name_type(name_type)}"
        if tag == 7:
            return "class " + self.class_name(index)
        if tag == 8:
            text = self.utf8(self.ref(index, 8))
            return '"' + (text if len(text) <= 40 else text[:40] + "…") + '"'
        if tag in (17, 18):
            return "#" + self._name_type(self._pair(index, tag)[1])
        if tag in (3, 4, 5, 6):
            return repr(value)
        return f"#{index}"
