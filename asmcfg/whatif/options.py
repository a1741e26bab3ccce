"""The JVM options a what-if may pass to a replay: each one `-XX:+Name`, `-XX:-Name` or `-XX:Name=value`, checked
here, passed as one word of an argv list (never through a shell). Options that read or write files, load code or
run commands are refused by name, so a replay reads only its replay file and classes and writes only into its
temporary folder."""

from __future__ import annotations

import re

from asmcfg.errors import InputError

OPTION = re.compile(r"-XX:(?:[+-](?P<flag>[A-Za-z][A-Za-z0-9_]{0,79})|(?P<name>[A-Za-z][A-Za-z0-9_]{0,79})="
                    r"(?P<value>[A-Za-z0-9_.,:+*$/<>()\[\];-]{0,300}))\Z")
"""The one shape an option may have: a boolean switched on or off, or a name given a value of plain characters
(no space, quote, `=`, control character)."""
REFUSED = re.compile(r"File|Path|Dir|Dump|Replay|Log|Archive|Shared|AOT|Flight|JFR|Agent|Library|Options|Flags|"
                     r"^On[A-Z]|^Error|^Print(?:Flags|VMOptions)|^Unlock|Perf|Heap")
"""Names refused: they read or write files (`ErrorFile`, `LogFile`, `HeapDumpPath`, `SharedArchiveFile`,
`CompileCommandFile`, `DumpPerfMapAtExit`, `StartFlightRecording`), run commands (`OnError`,
`OnOutOfMemoryError`), load code (`AgentLibrary`) or replace what asmcfg sets for the replay (`ReplayDataFile`,
`LogCompilation`); asmcfg unlocks the diagnostic options itself."""
INLINING = re.compile(r"Inline|Inlining|InlineSize|InlineLevel|InlineSmallCode|ClipInlining")
"""Flags that change C2's inlining decisions: with one of them the replay decides its inlining afresh."""


def check(option: str) -> str:
    """`option` when a replay may be given it; an InputError saying why not."""
    found = OPTION.match(option)
    if found is None:
        shown = option if len(option) <= 80 else option[:77] + "..."
        raise InputError(f"{shown!r}: a what-if takes JVM options of the form -XX:+Name, -XX:-Name or "
                         "-XX:Name=value (letters, digits and _ . , : + * $ / < > ( ) [ ] ; - in the value)",
                         "whatif")
    name = found.group("flag") or found.group("name") or ""
    value = found.group("value") or ""
    refused = REFUSED.search(name) or (name == "CompileCommand" and re.search("File|Path|Dir", value))
    if refused:
        raise InputError(f"{option}: this option reads or writes files, runs commands or replaces what the replay "
                         "needs, and a what-if does not pass it", "whatif")
    return option


def name_of(option: str) -> str:
    """The flag's name (`UseSuperWord` of `-XX:-UseSuperWord`)."""
    body = option[len("-XX:"):]
    return body[1:] if body[:1] in "+-" else body.partition("=")[0]


def changes_inlining(options: tuple[str, ...]) -> bool:
    """True when an option changes an inlining limit (the recorded inlining list would hide it)."""
    return any(INLINING.search(name_of(option)) and not name_of(option).startswith("CompileCommand")
               for option in options)


def compile_command(kind: str, target: str) -> str:
    """`-XX:CompileCommand=KIND,TARGET` for `--inline`, `--dontinline` and `--disable-intrinsic` (checked like any
    option)."""
    if kind == "DisableIntrinsic":
        return check(f"-XX:DisableIntrinsic={target}")
    return check(f"-XX:CompileCommand={kind},{target}")
