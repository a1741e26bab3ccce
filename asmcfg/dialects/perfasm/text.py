"""The lines of JMH perfasm output: percentage columns, region titles, and what a region line holds.

JMH prints one column per event before every line, `%6.2f%%  ` (9 characters; newer JMH pads to 10) or
blanks when the event has no sample at that address, then the jump-arrow gutter, then HotSpot's own line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from asmcfg.dialects.header import parse_header
from asmcfg.hotspot import sections
from asmcfg.model import Compiler, Header
from asmcfg.sources.numbers import ADDRESS, DIGITS, HEX

_PREFIX = re.compile(r"^(?:\s+|\d{1,3}\.\d\d%)*")
_PERCENT = re.compile(r"(\d{1,3}\.\d\d)%")
_GUTTER = re.compile(r"^[\s╭│╰↗↘╵]*")
_ADDRESS = re.compile(rf"^({ADDRESS}):\s*(.*)$")
_CONSTANT = re.compile(rf"^{HEX}(?:\s+({HEX}))?\s*$")
_RAW_BYTES = re.compile(r"^(?:[0-9a-f]{2} )+\s+(?=[a-z])")
_RELATIVE = re.compile(rf"^(\S+)\s+-?\d+\s*;\s*({HEX})(.*)$")
_MARKER = re.compile(r"^\[([A-Za-z][^\]]*)\]$")
_STUB = re.compile(rf"^(StubRoutines::\S+) \[({HEX}), ({HEX})[\]\[]")
_TITLE = re.compile(
    rf"^(?P<compiler>[A-Za-z0-9]+), level (?P<level>{DIGITS}), (?P<name>\S+), version (?P<version>{DIGITS})"
    rf"(?:, compile id (?P<id>{DIGITS}))?(?: \(\d+ bytes\))?\s*$"
)
# A name runs to its last non-blank (what `.+?\s*$` takes, without trying `\s*$` at every blank); a source runs
# to its first gap of two blanks: linear on a line of blanks.
_OLD_TITLE = re.compile(r"^\[0x[0-9a-fA-F]+:0x[0-9a-fA-F]+\] in (?P<name>.*\S|.)\s*$")
_SHARE_ROW = re.compile(r"^(?P<source>\S+(?:\s\S+)*)\s{2,}(?P<name>\S(?:.*\S)?)\s*$")
_COMPILE_ID = re.compile(rf", compile id ({DIGITS})\s*$")
_NOISE = re.compile(
    r"^(?:$|-{10,}|={10,}|#|<|Address\s+hex4|Decoding CodeBlob|ImmutableOopMap|\[/?Disassembly\]|\[Constant)"
)


@dataclass(frozen=True, slots=True)
class Title:
    """What a region's title line (or a boundary line inside a region) says about the code that follows."""

    header: Header
    """The header to give the method."""
    ident: tuple[str, ...]
    """Grouping identity: (`id`, compile id), (`version`, name, version) or (`name`, name)."""
    share_name: str
    """The name as the `Hottest Methods` table prints it."""
    names: tuple[str, ...] = ()
    """Every method an old-style `[a:b] in A; B` title names."""


@dataclass(frozen=True, slots=True)
class Content:
    """One region line once the columns and the gutter are removed."""

    kind: str
    """`instruction`, `constant`, `comment`, `marker`, `stub`, `nmethod`, `label`, `gap`, `noise` or `other`."""
    text: str
    """The instruction body, comment, marker label or the line itself."""
    address: int | None = None
    """Address of an instruction or constant row."""
    value: int | None = None
    """The 8-byte value of a constant row, or a stub's start address."""


def split_columns(text: str) -> tuple[dict[int, float], str]:
    """Printed percentages by column index, and the rest of the line."""
    match = _PREFIX.match(text)
    prefix = match.group(0) if match else ""
    values: dict[int, float] = {}
    for found in _PERCENT.finditer(prefix):
        column = column_index(found.end() - 1)
        values[len(values) if column is None or column in values else column] = float(found.group(1))
    return values, text[len(prefix) :]


def column_index(position: int) -> int | None:
    """The event column whose `%` sign sits at `position`: 9-wide columns (JMH 1.x) or 10-wide (JMH 1.3x)."""
    if position >= 6 and (position - 6) % 9 == 0:
        return (position - 6) // 9
    if position >= 7 and (position - 7) % 10 == 0:
        return (position - 7) // 10
    return None


def estimate(printed: float, events: int | None) -> float:
    """The percentage behind a `%6.2f` figure: the midpoint of the sample counts that print as it.

    A printed `0.00%` still stands for at least one sample; without the event count the printed value is kept.
    """
    if not events:
        return printed
    hundredths = round(printed * 100)
    low = max(1, -((-(2 * hundredths - 1) * events) // 20000))
    high = -((-(2 * hundredths + 1) * events) // 20000) - 1
    if low > high:
        return printed
    return 100.0 * (low + high) / 2 / events


def parse_title(text: str, line: int) -> Title:
    """The header and identity a region title line gives."""
    text = text.strip()
    match = _TITLE.match(text)
    if match:
        name, version = match.group("name"), int(match.group("version"))
        compile_id = int(match.group("id")) if match.group("id") else None
        header = Header(Compiler.named(match.group("compiler")), compile_id, int(match.group("level")), "", name,
                        None, None, None, line)
        ident = ("id", str(compile_id)) if compile_id is not None else ("version", name, str(version))
        share = f"{name}, version {version}" + (f", compile id {compile_id}" if compile_id is not None else "")
        return Title(header, ident, share, (name,))
    old = _OLD_TITLE.match(text)
    names = tuple(n.strip() for n in (old.group("name") if old else text).split(";") if n.strip()) or ("<unknown>",)
    compiler = Compiler.STUB if names[0].startswith("StubRoutines::") else Compiler.UNKNOWN
    first = names[0]
    if first.endswith("[Falcon]"):
        compiler, first = Compiler.FALCON, first[: -len("[Falcon]")]
    header = Header(compiler, None, None, "", first, None, None, None, line)
    return Title(header, ("name", first), old.group("name") if old else text, names)


def stub_title(name: str, line: int) -> Title:
    """The title of a `StubRoutines::x [a, b[` boundary inside a region."""
    return Title(Header(Compiler.STUB, None, None, "", name, None, None, None, line), ("name", name), name, (name,))


def nmethod_title(text: str, line: int) -> Title | None:
    """The title of a `Compiled method (c2) …` boundary inside a region."""
    header = parse_header(text, line)
    if header is None or header.compile_id is None:
        return None
    return Title(header, ("id", str(header.compile_id)), "", (header.name,))


def share_row(text: str) -> tuple[str, int | None]:
    """(name, compile id) of a `Hottest Methods` row once its columns are removed."""
    text = text.strip()
    match = _SHARE_ROW.match(text)
    name = match.group("name") if match else text
    compile_id = _COMPILE_ID.search(name)
    return name, int(compile_id.group(1)) if compile_id else None


def classify(rest: str) -> Content:
    """What a region line holds, after its columns."""
    text = _GUTTER.sub("", rest, count=1).rstrip()
    address = _ADDRESS.match(text)
    if address:
        return _address_line(int(address.group(1), 16), address.group(2))
    if text.startswith(";"):
        return Content("comment", text)
    if text == "...." or set(text) == {"."}:
        return Content("gap", text)
    marker = _MARKER.match(text)
    if marker and marker.group(1) in sections.KEPT:
        return Content("marker", marker.group(1))
    stub = _STUB.match(text)
    if stub:
        return Content("stub", stub.group(1), int(stub.group(2), 16), int(stub.group(3), 16))
    if "Compiled method (" in text:
        return Content("nmethod", text)
    if text.startswith("# {method}"):
        return Content("label", text)
    if _NOISE.match(text) or _MARKER.match(text) or ("[0x" in text and "] = " in text):
        return Content("noise", text)
    return Content("other", text)


def _address_line(address: int, body: str) -> Content:
    constant = _CONSTANT.match(body)
    if constant:
        value = int(constant.group(1), 16) if constant.group(1) else None
        return Content("constant", body, address, value)
    raw = _RAW_BYTES.match(body)
    if raw:
        # Zing prints the encoding before the mnemonic and relative branch offsets with the target as comment.
        body = body[raw.end() :]
        relative = _RELATIVE.match(body.strip())
        if relative:
            note = relative.group(3).strip()
            body = f"{relative.group(1)} {relative.group(2)}" + (f" ; {note}" if note else "")
    if not body.strip():
        return Content("other", body, address)
    return Content("instruction", body, address)
