"""The JVM logs a recording left: which JVMs ran, whether each log is whole, what it printed, and the compiler
threads' files a killed JVM leaves behind."""

from __future__ import annotations

import html
import os
import re
from dataclasses import dataclass
from pathlib import Path

from asmcfg.record.folder import RecordFolder

_CLOSE = b"</hotspot_log>"
_PRINTED = b"<print_nmethod"
_PRINTED_END = b"</print_nmethod>"
_STAMP = re.compile(rb"stamp='(\d+(?:\.\d+)?)'")
_RELEASE = re.compile(rb"<release>\s*([^<\s]+)\s*</release>")
_COMMAND = re.compile(rb"<command>([^<]*)</command>")
_PROPERTIES = re.compile(rb"<properties>([^<]*)</properties>")
_KEPT_PROPERTIES = {"java.home": "java_home", "java.class.path": "class_path", "jdk.module.path": "module_path"}
"""The properties of a log's head that record.json keeps (what a replay of its compilations needs), by their
field's name."""
_JDK8_VM = re.compile(r"1\.8\.|25\.\d+-b\d+")
"""JDK 8's releases: `1.8.0_392` (the JDK) or `25.392-b08` (its VM's own numbering, which a log names)."""
_CHUNK = 8 << 20
_EDGE = 64 << 10


@dataclass(frozen=True, slots=True)
class JvmLog:
    """One JVM's LogCompilation log in the folder."""

    pid: int
    """The JVM's process id (from the file name: `%p` expands to `pid<PID>`)."""
    name: str
    """`jvmpid<PID>.xml`."""
    complete: bool
    """The log ends with `</hotspot_log>`: the JVM exited and merged its compiler threads' records."""
    printed: int
    """Compilations whose code it printed (`<print_nmethod>` elements)."""
    cut_printing: bool
    """The last printing was cut off (the JVM died while printing it)."""
    release: str | None
    """The JVM's release (`17.0.15+6-Debian-1deb12u1`), from the log's head."""
    seconds: float | None
    """The last stamp in the log: about how long the JVM ran, in seconds."""
    main: str | None = None
    """The JVM's main class or jar (the first word of its command), when the log names it."""
    launched: dict[str, str | None] | None = None
    """`java_home`, `class_path`, `module_path` and `command` (main class or jar and arguments) from the log's
    head, each None when the log names none."""

    @property
    def jdk8(self) -> bool:
        """A JDK 8 VM, which prints no code without hsdis."""
        return self.release is not None and _JDK8_VM.match(self.release) is not None


def found(folder: Path) -> list[JvmLog]:
    """Every `jvmpid<PID>.xml` in the folder (as the JVMs wrote them: plain), by pid."""
    from asmcfg.run.recorded import logs

    return [read(Path(path), pid) for pid, path in sorted(logs(str(folder)).items())
            if path.endswith(".xml") and os.path.isfile(path)]


def read(path: Path, pid: int) -> JvmLog:
    """What asmcfg record says about one log: its head, its tail, and its printings counted in one pass."""
    opened = closed = 0
    with open(path, "rb") as stream:
        head = stream.read(_EDGE)
        stream.seek(0)
        carry = b""
        while chunk := stream.read(_CHUNK):
            text = carry + chunk
            opened += text.count(_PRINTED)
            closed += text.count(_PRINTED_END)
            keep = len(_PRINTED_END) - 1
            carry = text[-keep:]
            opened -= carry.count(_PRINTED)  # counted again with the next chunk
            closed -= carry.count(_PRINTED_END)
        opened += carry.count(_PRINTED)
        closed += carry.count(_PRINTED_END)
        size = stream.seek(0, 2)
        stream.seek(max(0, size - _EDGE))
        tail = stream.read()
    release = _RELEASE.search(head)
    stamps = _STAMP.findall(tail)
    return JvmLog(pid, path.name, tail.rstrip().endswith(_CLOSE), opened, opened > closed,
                  release.group(1).decode("ascii", "replace") if release else None,
                  float(stamps[-1]) if stamps else None, main_of(head), launched_of(head))


def main_of(head: bytes) -> str | None:
    """The main class or jar a log's head names (`<command>` holds the program's words after the JVM's options:
    `Main arg`, `app.jar arg`; a jar's path is cut to its name)."""
    found = _COMMAND.search(head)
    words = html.unescape(found.group(1).decode("utf-8", "replace")).split() if found else []
    if not words:
        return None
    return os.path.basename(words[0]) or words[0]


def launched_of(head: bytes) -> dict[str, str | None]:
    """What a replay of the JVM's compilations needs from a log's head: its `java.home`, class path, module path
    (the `<properties>` HotSpot logs), and its command after the JVM's options (`sun.java.command`)."""
    found = _PROPERTIES.search(head)
    kept: dict[str, str | None] = dict.fromkeys((*_KEPT_PROPERTIES.values(), "command"))
    for line in html.unescape(found.group(1).decode("utf-8", "replace")).splitlines() if found else ():
        name, _, value = line.partition("=")
        if name in _KEPT_PROPERTIES:
            kept[_KEPT_PROPERTIES[name]] = value
        elif name == "sun.java.command":
            kept["command"] = value
    return kept


def salvage(log: JvmLog, moved: list[str], map_lost: bool) -> str | None:
    """For a log cut short (the JVM killed, SIGKILL or a crash): what can still be read and what is lost (the
    compiler threads' files `moved` into the folder; with `map_lost`, the perf map); None for a whole log."""
    if log.complete:
        return None
    whole = log.printed - (1 if log.cut_printing else 0)
    parts = [f"the JVM did not finish its log (killed?): {whole} printed compilation(s) can be read"]
    if log.cut_printing:
        parts.append("the last printing is cut off")
    if moved:
        parts.append(f"the compiler threads' records (inlining, traps) were not merged: {', '.join(moved)}")
    if map_lost:
        parts.append("no perf map (written at exit): samples in stubs stay unnamed")
    return "; ".join(parts)


def move_thread_logs(log: JvmLog, folder: RecordFolder, places: tuple[Path, ...], since: float) -> list[str]:
    """Move the `hs_c<TID>_pid<PID>.log` files of a JVM that died before merging them (HotSpot writes them to the
    temp folder, else to its working folder) into the record folder; their names. Only for a cut log, and only
    this user's files written since `since` (a timestamp): an older file is another process's that had the same
    pid, and another user's file or a link is left where it is."""
    moved: list[str] = []
    if log.complete:  # the JVM merged its threads' files into the log and deleted them
        return moved
    for place in places:
        for path in sorted(place.glob(f"hs_c*_pid{log.pid}.log")):
            try:
                stale = path.lstat().st_mtime < since
            except OSError:
                continue
            if not stale and folder.adopt(path):
                moved.append(path.name)
    return moved
