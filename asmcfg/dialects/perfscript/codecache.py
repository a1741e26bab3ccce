"""What a LogCompilation log says of the code cache: the JVM's pid and clock, and each compilation's bytes.

Every installed compilation has an `<nmethod compile_id= address= size= stamp= …>` record, printed or not;
`<hotspot_log process= time_ms=>` names the JVM and the wall-clock time of the log's time zero, so a `perf`
sample's CLOCK_REALTIME time can be put on the log's clock (`stamp` is seconds from that zero, in ms).
"""

from __future__ import annotations

from dataclasses import dataclass

from asmcfg.dialects.logcompilation.logxml import NMethodRecord, line_attrs, nmethod_record
from asmcfg.errors import InputError
from asmcfg.sources.lines import display_name, open_binary, raw_lines
from asmcfg.sources.numbers import number

_MAX_LINE = 1 << 16
"""An `<nmethod>` or `<hotspot_log>` record is one short line; longer lines are not read as records."""


@dataclass(frozen=True, slots=True)
class Compiled:
    """One installed compilation's place in the code cache and time."""

    record: NMethodRecord
    """What its `<nmethod>` record says (compile id, compiler, level, kind, method, address, size)."""
    stamp_ns: int
    """When it was installed: nanoseconds from the log's time zero (the record's `stamp`, ms resolution)."""
    order: int
    """Its position among the log's records, from 0 (a tie on `stamp` goes to the later one)."""

    @property
    def start(self) -> int:
        """First byte of the nmethod."""
        return self.record.address or 0

    @property
    def end(self) -> int:
        """One past its last byte."""
        return self.start + (self.record.size or 0)


@dataclass(frozen=True, slots=True)
class CodeCache:
    """The JVM a log is of, and every compilation it installed."""

    source: str
    """The log's name."""
    pid: int
    """The JVM's process id (`process`)."""
    time_ms: int
    """Wall-clock milliseconds since 1970 of the log's time zero (`time_ms`)."""
    compiled: tuple[Compiled, ...]
    """Every `<nmethod>` record with an address and a size, in the log's order."""
    printed: frozenset[int]
    """Compile ids whose code the log prints (`<print_nmethod compile_id=…>`)."""


def read_code_cache(path: str) -> CodeCache:
    """The code cache records of the LogCompilation log `path` (one pass over its lines)."""
    name = display_name(path)
    pid = time_ms = None
    found: list[Compiled] = []
    printed: set[int] = set()
    with open_binary(path) as stream:
        for raw in raw_lines(stream, name):
            if len(raw) - raw.endswith(b"\n") >= _MAX_LINE:
                continue
            if raw.startswith(b"<nmethod "):
                compiled = _compiled(raw, len(found))
                if compiled is not None:
                    found.append(compiled)
            elif raw.startswith(b"<print_nmethod "):
                shown = number(line_attrs(raw).get("compile_id"))
                if shown is not None:
                    printed.add(shown)
            elif raw.startswith(b"<hotspot_log ") and pid is None:
                attrs = line_attrs(raw)
                pid, time_ms = number(attrs.get("process")), number(attrs.get("time_ms"))
    if pid is None or time_ms is None:
        raise InputError("no `<hotspot_log process=… time_ms=…>`: `perf` samples are placed by the same run's "
                         "-XX:+LogCompilation log (the input, or --log LOG)", name)
    return CodeCache(name, pid, time_ms, tuple(found), frozenset(printed))


def _compiled(raw: bytes, order: int) -> Compiled | None:
    attrs = line_attrs(raw)
    record = nmethod_record(attrs, 0)
    stamp = stamp_ns(attrs.get("stamp"))
    if record is None or record.address is None or not record.size or stamp is None:
        return None
    return Compiled(record, stamp, order)


def stamp_ns(text: str | None) -> int | None:
    """A log `stamp` (`12.345`, seconds) in nanoseconds; None when it is not one."""
    if text is None:
        return None
    seconds, _, fraction = text.partition(".")
    if not text.isascii() or not seconds.isdigit() or len(seconds) > 9 or not (fraction.isdigit() or not fraction) \
            or len(fraction) > 9:
        return None
    return int(seconds) * 1_000_000_000 + int(fraction.ljust(9, "0") or "0")

