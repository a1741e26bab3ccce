"""`record.json`: what a recording ran, how, and what it left (schema 1; docs/record.md describes each field)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from asmcfg.record.capture import FlagPassing
from asmcfg.record.folder import RecordFolder

NAME = "record.json"
SCHEMA = 1


@dataclass(slots=True)
class Manifest:
    """record.json's fields, filled in as the recording goes."""

    command: list[str]
    """The command as the user gave it (without the flags asmcfg added)."""
    jvm_flags: list[str]
    """The flags every JVM was given."""
    passing: FlagPassing
    """On java's command line, or through JAVA_TOOL_OPTIONS."""
    printing: str
    """`c2`, `method PATTERN` or `all`."""
    started: datetime
    """When the command started (local time, with its offset)."""
    perf: dict[str, Any]
    """`used`, `why_not`, `command` (perf record's, up to its `--`), `event` and `frequency`."""
    ended: datetime | None = None
    """When it ended."""
    exit_status: int | None = None
    """Its exit status, when it exited."""
    signal: str | None = None
    """The signal that ended it (`SIGKILL`), when one did."""
    jvms: list[dict[str, Any]] = field(default_factory=list)
    """Per JVM: `pid`, `log`, `complete`, `salvaged` (what a cut log still holds and what is lost), `printed`."""
    notes: list[str] = field(default_factory=list)
    """Everything asmcfg said about the recording, one sentence each."""
    working_folder: str = ""
    """The folder the command started in (a relative class path of a JVM it ran is relative to it)."""
    replay: str | None = None
    """`--replay`: the methods whose replay data was kept, or None for none."""

    def as_json(self) -> dict[str, Any]:
        """The record, keys in the documented order."""
        record: dict[str, Any] = {"schema": SCHEMA, "command": self.command}
        if self.signal is not None:
            record["signal"] = self.signal
        else:
            record["exit_status"] = self.exit_status
        record.update({
            "started": self.started.isoformat(timespec="milliseconds"),
            "ended": self.ended.isoformat(timespec="milliseconds") if self.ended else None,
            "jvm_flags": " ".join(self.jvm_flags),
            "how_flags_were_passed": str(self.passing),
            "printing": self.printing,
            "replay": self.replay,
            "working_folder": self.working_folder,
            "perf": self.perf,
            "jvms": self.jvms,
            "notes": self.notes,
        })
        return record

    def write(self, folder: RecordFolder) -> None:
        """Write record.json into the folder (through a temp file: a reader never sees half of it)."""
        folder.replace_text(NAME, json.dumps(self.as_json(), indent=2) + "\n")


def now() -> datetime:
    """The local time with its UTC offset."""
    return datetime.now().astimezone()
