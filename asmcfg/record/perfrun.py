"""Linux `perf` for a recording: whether it may record here, the `perf record` command around the program, then
`perf script` into the folder and the JVMs' perf maps moved in beside it."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from asmcfg.record.folder import RecordFolder

DATA = "perf.data"
"""perf's own recording, kept in the folder."""
SCRIPT = "perf-script.txt"
"""`perf script` text: one sample a line."""
SCRIPT_FIELDS = "comm,pid,tid,time,period,event,ip,sym,dso"
RECORD_LOG = "perf-record.log"
"""perf record's own messages (its "[ perf record: … ]" lines, warnings, errors), kept off the user's terminal."""
SCRIPT_LOG = "perf-script.log"
"""perf script's messages."""
HEADER = "perf-header.txt"
"""`perf report --header-only`: perf's version, the command, the event's attributes."""
CAPTURED = "[ perf record: Captured and wrote"
"""The line perf record ends with when it wrote its data."""
TMP = Path("/tmp")
"""Where HotSpot writes its perf maps and its compiler threads' logs (os::get_temp_directory() on Linux)."""
_PROBE_TIMEOUT = 20
_PARANOID = Path("/proc/sys/kernel/perf_event_paranoid")
_CAP_PERFMON, _CAP_SYS_ADMIN = 38, 21


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether perf records this run, and why not."""

    perf: str | None
    """The perf program, when it may record."""
    why_not: str | None
    """Why it does not, in a few words."""
    note: str | None = None
    """Something to say although it records (an event perf replaces)."""


def probe(event: str) -> Verdict:
    """Whether `perf` is on PATH and may count `event` here: `perf stat -e EVENT -- true` (tens of ms, where a
    `perf record` probe costs a second). `cycles` in a VM without a PMU is `<not supported>`, and `perf record`
    silently records `cpu-clock` for it; other unsupported events make perf refuse."""
    perf = shutil.which("perf")
    if perf is None:
        return Verdict(None, "perf is not on PATH (Debian: apt install linux-perf)")
    try:
        done = subprocess.run([perf, "stat", "-x,", "-e", event, "--", "true"], capture_output=True, text=True,
                              errors="replace", timeout=_PROBE_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError) as error:
        return Verdict(None, f"perf could not be run: {error}")
    lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    if done.returncode != 0:
        return Verdict(None, _refusal(event, lines))
    counted = [line for line in lines if line.count(",") >= 2]
    if any(line.startswith("<not supported>") for line in counted):
        if event.split(":")[0] in ("cycles", "cpu-cycles"):
            return Verdict(perf, None, f"{event} is not supported here (no PMU): perf records cpu-clock instead")
        return Verdict(None, f"perf cannot count {event} here (<not supported>): try --event cpu-clock")
    return Verdict(perf, None)


def _refusal(event: str, lines: list[str]) -> str:
    """Why perf refused to count, naming perf_event_paranoid when that is the reason."""
    paranoid = paranoid_level()
    if paranoid is not None and paranoid > 2 and not privileged():
        return (f"kernel.perf_event_paranoid is {paranoid}: this user may not record "
                "(sysctl kernel.perf_event_paranoid=2 lets it record its own programs)")
    detail = next((line for line in lines if "rror" in line or "denied" in line or "not" in line), None)
    return f"perf refused to count {event}: {detail or (lines[0] if lines else 'no reason given')}"


def paranoid_level() -> int | None:
    """kernel.perf_event_paranoid, or None when it cannot be read."""
    try:
        return int(_PARANOID.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None


def privileged() -> bool:
    """True for root, or a process holding CAP_PERFMON or CAP_SYS_ADMIN."""
    if os.geteuid() == 0:
        return True
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    for line in status.splitlines():
        if line.startswith("CapEff:"):
            caps = int(line.split()[1], 16)
            return bool(caps >> _CAP_PERFMON & 1 or caps >> _CAP_SYS_ADMIN & 1)
    return False


def record_argv(perf: str, event: str, frequency: int, folder: Path) -> list[str]:
    """`perf record` up to its `--`: no `-g` (call chains multiply the data and gain nothing here); realtime
    stamps so that samples line up with the JVM log's wall-clock `time_ms` and `stamp`; `--no-bpf-event`: the
    side-band thread that tracks BPF programs polls with a 1 s timeout and holds perf's exit for up to a second,
    for nothing a Java program needs."""
    return [perf, "record", "-e", event, "-F", str(frequency), "-k", "CLOCK_REALTIME", "--no-bpf-event",
            "-o", str(folder / DATA), "--"]


def with_own_stderr(command: list[str], fd: int) -> list[str]:
    """`command` behind a /bin/sh that gives it back the user's stderr (`fd`) before exec'ing it: perf's stderr
    goes to its log, the program's to the terminal; the program keeps sh's pid."""
    return ["/bin/sh", "-c", f'exec 2>&{fd} {fd}>&-; exec "$@"', "sh", *command]


def free_low_fd() -> int | None:
    """An unused fd in 3..9 (dash redirects only single-digit fds), or None."""
    for fd in range(3, 10):
        try:
            os.fstat(fd)
        except OSError:
            return fd
    return None


def recorded(folder: Path) -> str | None:
    """None when perf record wrote its data, else its last message (the reason it failed)."""
    try:
        lines = (folder / RECORD_LOG).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    if any(line.startswith(CAPTURED) for line in lines):
        return None
    with contextlib.suppress(OSError):
        if not lines and (folder / DATA).stat().st_size > 0:  # its messages went to stderr (no fd to spare)
            return None
    messages = [line.strip() for line in lines if line.strip() and not line.startswith("[ perf record:")]
    return messages[-1] if messages else "it wrote no data"


def script(perf: str, folder: RecordFolder) -> str | None:
    """`perf script` of the folder's perf.data into perf-script.txt, and the header into perf-header.txt (each
    created new in the folder); None when it worked, else why not."""
    data = str(folder.path / DATA)
    try:
        with folder.create(SCRIPT) as out, folder.create(SCRIPT_LOG) as log:
            done = subprocess.run([perf, "script", "-i", data, "-F", SCRIPT_FIELDS, "--ns"], stdout=out,
                                  stderr=log, stdin=subprocess.DEVNULL, check=False)
        with folder.create(HEADER) as out, contextlib.suppress(OSError):
            subprocess.run([perf, "report", "-i", data, "--header-only"], stdout=out, stderr=subprocess.DEVNULL,
                           stdin=subprocess.DEVNULL, check=False)
    except OSError as error:
        return f"perf script could not write into the folder: {error}"
    if done.returncode != 0:
        return f"perf script failed (status {done.returncode}): see {folder.path / SCRIPT_LOG}"
    return None


def move_map(pid: int, folder: RecordFolder, place: Path = TMP) -> bool:
    """Move the JVM's `perf-<pid>.map` (written at exit by -XX:+DumpPerfMapAtExit into /tmp) into the folder when
    it is this user's; False when there is none (a JVM killed before its exit) or it is not."""
    return folder.adopt(place / f"perf-{pid}.map")
