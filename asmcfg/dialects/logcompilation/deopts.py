"""Which compilations a LogCompilation log says were made not entrant, and the traps that fired in them: the
`<nmethod>`, `<make_not_entrant>` and run-time `<uncommon_trap>` records (with the `<jvms>` after each), read in one
linear pass over the log's bytes (`--findings`' deopt-cycle)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from asmcfg.dialects.logcompilation.logxml import method_name, tags, to_int
from asmcfg.model.log import LogDeopts, LogFired
from asmcfg.sources.split import CHUNK, chunks, open_binary

_RECORD = re.compile(rb"<(?:nmethod|make_not_entrant|uncommon_trap thread=|jvms )[^\n]*")
"""A record the pass reads, and the rest of its line."""
XML_HEAD = b"<?xml"


@dataclass(slots=True)
class Deopts:
    """A log's compilations, the ones made not entrant, and the traps that fired."""

    compiled: dict[int, tuple[str, str, int | None]] = field(default_factory=dict)
    """compile id → (compiler, `pkg.Class::name`, 0 for an OSR compilation else None), from `<nmethod>`."""
    not_entrant: dict[int, str] = field(default_factory=dict)
    """compile id → the stamp it was made not entrant at."""
    fired: list[LogFired] = field(default_factory=list)
    """Run-time traps, in log order."""
    _open: dict[str, str] | None = None

    def feed(self, line: str) -> None:
        """Take one record's line."""
        for tag in tags(line):
            attrs = tag.attrs
            if tag.name in ("nmethod", "make_not_entrant"):
                self._open = None
            if tag.name == "nmethod":
                cid = to_int(attrs.get("compile_id"))
                if cid is not None:
                    osr = attrs.get("compile_kind") == "osr"
                    self.compiled[cid] = (attrs.get("compiler", ""), method_name(attrs.get("method", "")),
                                          0 if osr else None)
            elif tag.name == "make_not_entrant":
                cid = to_int(attrs.get("compile_id"))
                if cid is not None:
                    self.not_entrant.setdefault(cid, attrs.get("stamp", ""))
            elif tag.name == "uncommon_trap" and not tag.closing and not tag.empty and "thread" in attrs:
                self._open = attrs
            elif tag.name == "jvms" and self._open is not None:
                trap, self._open = self._open, None
                cid = to_int(trap.get("compile_id"))
                if cid is not None:
                    self.fired.append(LogFired(cid, trap.get("reason", ""), trap.get("action", ""),
                                            method_name(attrs.get("method", "")), to_int(attrs.get("bci"))))


def read_deopts(path: str) -> LogDeopts | None:
    """The records of the log at `path`, or None when it is no XML log."""
    found = Deopts()
    rest = b""
    with open_binary(path) as stream:
        for n, block in enumerate(chunks(stream, CHUNK, path)):
            data = rest + block
            if n == 0 and not data.lstrip()[:5].startswith(XML_HEAD):
                return None
            cut = data.rfind(b"\n") + 1
            for match in _RECORD.finditer(data, 0, cut):
                found.feed(match.group().decode("utf-8", "replace"))
            rest = data[cut:]
        for match in _RECORD.finditer(rest):
            found.feed(match.group().decode("utf-8", "replace"))
    return LogDeopts(found.compiled, found.not_entrant, tuple(found.fired))
