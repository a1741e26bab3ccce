"""One replay: `java -XX:+ReplayCompiles` of one replay file in a temporary folder, with the code printed into a
LogCompilation log; each run in a process group of its own, killed with it at its time limit or when asmcfg stops,
so nothing is left running. Its failures become one line each."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import stat
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from asmcfg.errors import InputError
from asmcfg.whatif.replayfile import Task

_RUNNING: set[subprocess.Popen[bytes]] = set()
"""The replays running now (several run side by side), so that a stop ends them all."""
_LOCK = threading.Lock()
TAIL = 64 << 10
"""How much of a replay's stdout and stderr is kept to explain a failure."""
_MESSAGES = (
    (re.compile(r"Can't find klass|Can't find holder klass|ClassNotFoundException|NoClassDefFoundError"),
     "a class of the compilation cannot be found: is the class path the recorded one (--classpath)?"),
    (re.compile(r"is develop and is available only in debug version|Unrecognized VM option 'ReplayCompiles'"),
     "this JDK replays no compilation (-XX:+ReplayCompiles is in debug builds only before JDK 20): record on "
     "JDK 21 or later"),
    (re.compile(r"wrong class files\?|no invoke found at bci|Can't find method|Didn't find method|"
                r"Error while parsing line|Failed on "),
     "the classes differ from those recorded (wrong class files? rebuilt since the recording?)"),
    (re.compile(r"Unrecognized VM option|Improperly specified VM option|Missing \+/- setting|is not a valid|"
                r"must be between|cannot be set|Error: VM option|outside the allowed range|Error: Could not create"),
     "the JVM refused an option"),
)


@dataclass(frozen=True, slots=True)
class Replay:
    """What one replay is asked to do."""

    label: str
    """`baseline`, `what-if`, or a sweep entry's option."""
    java: str
    """The `java` program."""
    replay_text: str
    """The replay file's text (edited or not)."""
    task: Task
    """Its compile task."""
    class_path: str | None
    """`-cp`, None for none."""
    module_path: str | None
    """`--module-path`, None for none."""
    options: tuple[str, ...]
    """The what-if's JVM options (already checked)."""


@dataclass(frozen=True, slots=True)
class Done:
    """A replay that ran to its end."""

    replay: Replay
    """What was asked."""
    log: Path
    """Its LogCompilation log (in the temporary folder)."""
    argv: tuple[str, ...]
    """The command run."""
    seconds: float
    """How long it ran."""


def argv(replay: Replay, folder: Path, name: str) -> list[str]:
    """The replay's command: the JVM's own options first, then the what-if's, then those that must hold whatever
    the what-if says (last wins): the replay file, the log, the printing, the error file, no files elsewhere."""
    words = [replay.java, "-XX:+UnlockDiagnosticVMOptions", "-XX:+UnlockExperimentalVMOptions"]
    if replay.class_path is not None:
        words += ["-cp", replay.class_path]
    if replay.module_path is not None:
        words += ["--module-path", replay.module_path]
    words += list(replay.options)
    words += [
        "-XX:+ReplayCompiles", f"-XX:ReplayDataFile={folder / (name + '.replay')}",
        f"-XX:CompileCommand=print,{replay.task.pattern}", "-XX:+LogCompilation",
        f"-XX:LogFile={folder / (name + '.xml')}", "-XX:-DisplayVMOutput", "-XX:+DebugNonSafepoints",
        "-Xlog:os=off", f"-XX:ErrorFile={folder / (name + '-hs_err%p.log')}", "-XX:-CreateCoredumpOnCrash",
        "-XX:-UsePerfData", "-XX:-DumpReplayDataOnError", "-XX:ReplaySuppressInitializers=2",
    ]
    return words


def run(replay: Replay, folder: Path, name: str, limit: float) -> Done:
    """Run the replay in `folder` (its working folder) within `limit` seconds; an InputError of one line when it
    fails, hangs, crashes or prints no code."""
    import time

    (folder / (name + ".replay")).write_text(replay.replay_text, encoding="utf-8")
    command = argv(replay, folder, name)
    out, err = folder / (name + ".out"), folder / (name + ".err")
    started = time.monotonic()
    with open(out, "wb") as stdout, open(err, "wb") as stderr:
        with _LOCK:
            child = subprocess.Popen(command, cwd=folder, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
                                     start_new_session=True, env=clean_env())
            _RUNNING.add(child)
        try:
            status = child.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            raise InputError(f"{replay.label}: the replay did not end within {limit:g} s (it was killed; "
                             "--timeout SECONDS gives it longer)", "whatif") from None
        finally:
            _kill(child)
            with _LOCK:
                _RUNNING.discard(child)
            remove_thread_logs(child.pid)
    seconds = time.monotonic() - started
    said = _tail(out) + _tail(err)
    log = folder / (name + ".xml")
    if list(folder.glob(name + "-hs_err*.log")) or status < 0 or status >= 128:
        raise InputError(f"{replay.label}: the JVM crashed replaying the compilation ({_crash(said, status)}; "
                         "classes rebuilt since the recording, or an option C2 cannot take?)", "whatif")
    printed = log.exists() and _printed(log)
    if status == 0 and printed:
        return Done(replay, log, tuple(command), seconds)
    said += _head(log) if log.exists() else ""  # ciReplay's own messages are in the log's <tty>
    for pattern, meaning in _MESSAGES:
        found = pattern.search(said)
        if found is not None:
            raise InputError(f"{replay.label}: {meaning}: the JVM says {_line_of(said, found.start())!r}", "whatif")
    if status != 0:
        raise InputError(f"{replay.label}: the replay failed ({_status(status)}){_why(_tail(out) + _tail(err))}",
                         "whatif")
    raise InputError(f"{replay.label}: the replay compiled nothing it could print{_why(_tail(out) + _tail(err))}",
                     "whatif")


THREAD_LOGS = Path("/tmp")
"""Where HotSpot writes each compiler thread's part of a LogCompilation log (`hs_c<TID>_pid<PID>.log`: merged into
the log and removed when the JVM exits, left behind when it is killed or crashes)."""


def remove_thread_logs(pid: int) -> None:
    """Remove the compiler threads' logs a replay JVM left (this user's plain files only; a link or another
    user's file stays)."""
    for path in THREAD_LOGS.glob(f"hs_c*_pid{pid}.log"):
        with contextlib.suppress(OSError):
            found = os.lstat(path)
            if stat.S_ISREG(found.st_mode) and found.st_uid == os.geteuid():
                os.unlink(path)


def stop_all() -> None:
    """End every replay still running (asmcfg is stopping, or another replay failed)."""
    with _LOCK:
        running = list(_RUNNING)
    for child in running:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.pid, signal.SIGKILL)


def clean_env() -> dict[str, str]:
    """asmcfg's environment without what would add options to the replay's JVM behind the check."""
    return {k: v for k, v in os.environ.items() if k not in ("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS")}


def _kill(child: subprocess.Popen[bytes]) -> None:
    """End the replay's process group (a JVM that still runs, and anything it started) and reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(child.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        child.wait(timeout=10)


def _printed(log: Path) -> bool:
    """True when the log holds a printed compilation."""
    with open(log, "rb") as stream:
        carry = b""
        while chunk := stream.read(1 << 20):
            if b"<print_nmethod" in carry + chunk:
                return True
            carry = chunk[-16:]
    return False


def _head(log: Path) -> str:
    """The start of a replay's log, where the replay's messages are (Resolving…, NoClassDefFoundError)."""
    with open(log, "rb") as stream:
        return stream.read(TAIL * 4).decode("utf-8", "replace")


def _tail(path: Path) -> str:
    with open(path, "rb") as stream:
        stream.seek(max(0, path.stat().st_size - TAIL))
        return stream.read().decode("utf-8", "replace")


def _line_of(text: str, at: int) -> str:
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    line = text[start:end if end >= 0 else len(text)].strip()
    return line if len(line) <= 200 else line[:197] + "..."


def _crash(said: str, status: int) -> str:
    """`SIGSEGV in Parse::do_one_bytecode()`, from the JVM's fatal error banner, else the exit status."""
    signal_name = re.search(r"#\s+(SIG[A-Z]+) \(0x", said)
    frame = re.search(r"# Problematic frame:\s*#\s+\w\s+\[[^\]]*\]\s+(\S.{0,120})", said)
    if signal_name is None and frame is None:
        return _status(status)
    where = f" in {frame.group(1).split('+0x')[0].strip()}" if frame else ""
    return f"{signal_name.group(1) if signal_name else 'a fatal error'}{where}"


def _why(said: str) -> str:
    """`: the JVM says LINE` with its last meaningful line, or nothing."""
    lines = [line.strip() for line in said.splitlines() if line.strip() and not line.startswith("#")]
    return f": the JVM says {_line_of(lines[-1], 0)!r}" if lines else ""


def _status(status: int) -> str:
    if status < 0:
        with contextlib.suppress(ValueError):
            return signal.Signals(-status).name
        return f"signal {-status}"
    if status < 128:
        return f"status {status}"
    try:
        return f"status {status}, {signal.Signals(status - 128).name}"
    except ValueError:
        return f"status {status}"
