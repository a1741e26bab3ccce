"""`asmcfg record`: check the command and the folder, run the command with the capture flags (under `perf record`
when perf may record), then leave the folder whole: perf script, the perf maps, what a killed JVM left, and
record.json. Returns the program's exit status."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from asmcfg.errors import CommandError, InputError
from asmcfg.model.words import Printing
from asmcfg.record import capture, folder as record_folder, launch, logs, perfrun, replay
from asmcfg.record.folder import RecordFolder
from asmcfg.record.manifest import Manifest, now
from asmcfg.terminal import visible

PREFIX = "asmcfg: record: "
_AT_ONCE = 1.0
"""A JVM whose log ends before this many seconds printed nothing because it had no time to."""
_FAILED_AT_ONCE = 5.0
"""A command that failed within this many seconds, its JVMs having printed nothing, failed as its JVM started."""


@dataclass(frozen=True, slots=True)
class RecordOptions:
    """What `asmcfg record` was asked to do."""

    command: list[str]
    """COMMAND and its arguments."""
    output: str | None
    """-o DIR, or None for a new dated folder in the current one."""
    asked: capture.Asked
    """What to print."""
    perf: bool | None
    """--perf (True), --no-perf (False), or neither (None: when perf may record)."""
    event: str
    """perf's event."""
    frequency: int
    """perf's sampling frequency, in Hz."""


def record(options: RecordOptions, err: TextIO | None = None) -> int:
    """Record the command into its folder; the command's exit status (128 + signal), or 1 when it recorded
    nothing asmcfg can show (no JVM, no printed code, perf failing)."""
    out = err or sys.stderr
    argv = options.command
    if shutil.which(argv[0]) is None:
        if os.sep in argv[0] and os.path.isfile(argv[0]):
            raise CommandError(f"cannot run {argv[0]}: it is not executable (chmod +x)", "record")
        raise CommandError(f"command not found: {argv[0]}", "record")
    path = record_folder.choose(options.output)
    capture.check_folder_path(path, argv)
    if capture.runs_java(argv):
        capture.refuse_jdk8(shutil.which(argv[0]) or argv[0])
    verdict = _perf_verdict(options, out)
    folder = record_folder.opened(path)  # before the JVM starts (else its log goes to a literal `jvm%p.xml#` path)
    try:
        return _recorded(options, verdict, folder, out)
    finally:
        folder.close()


def _recorded(options: RecordOptions, verdict: perfrun.Verdict, folder: RecordFolder, out: TextIO) -> int:
    """Run the command into the opened folder, leave the folder whole, and report; the exit status."""
    argv, path = options.command, folder.path
    jvmci = options.asked.printing is Printing.C2 and capture.uses_jvmci(argv, dict(os.environ))
    if options.asked.printing is Printing.C2:
        folder.write_text(capture.DIRECTIVES, capture.directives_text(options.asked, jvmci))
    perf_map = verdict.perf is not None and _perf_map_known(argv)
    flags = capture.jvm_flags(path, options.asked, perf_map)
    started = capture.launch(argv, flags, dict(os.environ))
    manifest = Manifest(list(argv), flags, started.passing, options.asked.describe(), now(),
                        _perf_record(options, verdict, path), working_folder=os.getcwd(),
                        replay=options.asked.replay)
    notes = [verdict.note] if verdict.note else []
    if jvmci:
        notes.append(capture.JVMCI_NOTE)
    if verdict.perf is not None and not perf_map:
        notes.append("this JDK has no -XX:+DumpPerfMapAtExit (JDK 17 and later): samples in stubs stay unnamed")
    if started.passing is capture.FlagPassing.COMMAND_LINE:
        notes.append(f"JVMs that {argv[0]} starts are not recorded: {capture.TOOL_OPTIONS} cannot carry a folder "
                     "path holding quotes, backslashes or control characters (choose another folder with -o)")
    for note in notes:
        manifest.notes.append(note)
        _say(out, note)
    manifest.write(folder)
    ended = _run(started, verdict.perf, options, folder)
    manifest.ended = now()
    manifest.exit_status, manifest.signal = ended.status, ended.signal_name
    problems, found = _after(manifest, verdict.perf, folder, options, ended)
    unusable = not found or not any(log.printed for log in found)
    last = _ended(ended, manifest, found)
    manifest.notes.extend([last] if last else [])
    manifest.write(folder)
    for problem in problems:
        _say(out, problem)
    if not unusable:
        _show(path, out, {jvm["pid"]: jvm["main"] for jvm in manifest.jvms if jvm["main"]})
    if last:
        _say(out, last)
    return ended.exit_code or (1 if problems else 0)


def _perf_map_known(argv: list[str]) -> bool:
    """False when COMMAND runs a `java` older than JDK 17, which would refuse -XX:+DumpPerfMapAtExit."""
    if not capture.runs_java(argv):
        return True
    major = capture.java_major(capture.java_release(shutil.which(argv[0]) or argv[0]))
    return major is None or major >= capture.PERF_MAP_SINCE


def _perf_verdict(options: RecordOptions, out: TextIO) -> perfrun.Verdict:
    """perf's verdict: --no-perf, else the probe; a refusal is an error with --perf, one line without."""
    if options.perf is False:
        return perfrun.Verdict(None, "--no-perf")
    verdict = perfrun.probe(options.event)
    if verdict.perf is None and options.perf:
        raise InputError(f"--perf: {verdict.why_not}", "record")
    if verdict.perf is None:
        _say(out, f"no heat: {verdict.why_not}; recording the compiled code only (--no-perf silences this)")
    return verdict


def _perf_record(options: RecordOptions, verdict: perfrun.Verdict, folder: Path) -> dict[str, object]:
    """record.json's `perf`."""
    command = perfrun.record_argv(verdict.perf, options.event, options.frequency, folder) if verdict.perf else []
    return {"used": verdict.perf is not None, "why_not": verdict.why_not, "command": command,
            "event": options.event, "frequency": options.frequency}


def _run(started: capture.Launch, perf: str | None, options: RecordOptions, folder: RecordFolder) -> launch.Ended:
    """Run the command, under `perf record` (its messages into perf-record.log) when perf records."""
    if perf is None:
        return launch.run(started.argv, started.env)
    record = perfrun.record_argv(perf, options.event, options.frequency, folder.path)
    with folder.create(perfrun.RECORD_LOG) as log:
        fd = perfrun.free_low_fd()  # after the log is open: it must not take the log's fd
        if fd is None:  # every fd up to 9 taken: perf's messages stay on stderr
            return launch.run([*record, *started.argv], started.env)
        os.dup2(2, fd)
        try:
            return launch.run([*record, *perfrun.with_own_stderr(started.argv, fd)], started.env,
                              stderr=log.fileno(), keep_fds=(fd,))
        finally:
            os.close(fd)


def _after(manifest: Manifest, perf: str | None, folder: RecordFolder, options: RecordOptions,
           ended: launch.Ended) -> tuple[list[str], list[logs.JvmLog]]:
    """Leave the folder whole, fill the manifest in, and return the problems to report (one line each) and the
    JVM logs."""
    problems = []
    path = folder.path
    if perf is not None:
        failed = perfrun.recorded(path)
        if failed is None and (path / perfrun.DATA).exists():
            failed = perfrun.script(perf, folder)
        else:
            failed = f"perf record failed: {failed} (its messages: {path / perfrun.RECORD_LOG})"
        if failed:
            problems.append(f"no heat: {failed}")
            manifest.perf["why_not"] = failed
    found = logs.found(path)
    for log in found:
        map_lost = perf is not None and not perfrun.move_map(log.pid, folder)
        moved = logs.move_thread_logs(log, folder, (perfrun.TMP, Path.cwd()), manifest.started.timestamp() - 1)
        salvaged = logs.salvage(log, moved, map_lost)
        kept = _replay(log, folder, options, manifest)
        manifest.jvms.append({"pid": log.pid, "main": log.main, "log": log.name, "complete": log.complete,
                              "salvaged": salvaged, "printed": log.printed, **(log.launched or {}),
                              "replay": kept})
        if salvaged:
            manifest.notes.append(f"{log.name}: {salvaged}")
    problems.extend(_nothing_to_show(found, path, options, ended, _seconds(manifest)))
    manifest.notes.extend(problems)
    return problems, found


def _replay(log: logs.JvmLog, folder: RecordFolder, options: RecordOptions,
            manifest: Manifest) -> dict[str, object] | None:
    """Keep the JVM's replay files (written into its working folder: the one asmcfg runs in, for a JVM it started
    itself) in the folder: record.json's `replay` of that JVM (`archive`, `compile_ids`), None without any."""
    if options.asked.replay is None:
        return None
    kept = replay.keep(log.pid, folder, (Path.cwd(),), manifest.started.timestamp() - 1)
    if kept is None:
        if log.printed:
            manifest.notes.append(f"{log.name}: no replay data found in {Path.cwd()} (the JVM ran in another "
                                  "folder, or its JDK wrote none): asmcfg whatif cannot replay its compilations")
        return None
    return {"archive": kept.archive, "compile_ids": list(kept.compile_ids)}


def _nothing_to_show(found: list[logs.JvmLog], folder: Path, options: RecordOptions, ended: launch.Ended,
                     seconds: float) -> list[str]:
    """One line when the folder holds no printed code, saying why (a JVM that failed as it started among the
    reasons: `seconds` is how long the command ran)."""
    if not found:
        return [f"{folder}: no JVM log: the command started no JVM (or none read "
                f"{'its flags' if capture.runs_java(options.command) else capture.TOOL_OPTIONS})"]
    last = found[-1]
    if any(log.printed for log in found):
        return []
    if any(log.jdk8 for log in found):
        return [f"{folder / last.name}: JDK 8 prints no assembly without hsdis: run the program on JDK 9 or later, "
                "or install hsdis-amd64.so into that JDK"]
    if _failed_at_once(found, ended, seconds):
        return [f"{folder / last.name}: the JVM exited at once ({_how(ended)} after {seconds:.2f} s), before "
                "anything was compiled and printed"]
    if last.complete and last.seconds is not None and last.seconds < _AT_ONCE:
        return [f"{folder / last.name}: the JVM ended after {last.seconds:.2f} s, before anything was compiled and "
                "printed"]
    if options.asked.printing is Printing.METHOD:
        return [f"{folder / last.name}: no compilation of {options.asked.pattern} was printed (the pattern is "
                "Class::method, as -XX:CompileCommand takes it; or it never got hot)"]
    return [f"{folder / last.name}: no compilation was printed"]


def _how(ended: launch.Ended) -> str:
    """`status 3`, `SIGKILL`."""
    return f"status {ended.status}" if ended.signal is None else f"{ended.signal_name}"


def _failed_at_once(found: list[logs.JvmLog], ended: launch.Ended, seconds: float) -> bool:
    """True when the command failed soon, its JVMs having printed nothing: it failed as its JVM started."""
    return bool(ended.exit_code) and seconds < _FAILED_AT_ONCE and not any(log.printed for log in found)


def _ended(ended: launch.Ended, manifest: Manifest, found: list[logs.JvmLog]) -> str | None:
    """How the command ended and after how long, when it failed (unless the JVM failed as it started: the line
    on its log says so)."""
    seconds = _seconds(manifest)
    if not ended.exit_code or (found and _failed_at_once(found, ended, seconds)):
        return None
    if ended.signal is not None:
        return f"the command was ended by {ended.signal_name} after {seconds:.2f} s"
    return f"the command exited with status {ended.status} after {seconds:.2f} s"


def _seconds(manifest: Manifest) -> float:
    """How long the command ran."""
    return ((manifest.ended or manifest.started) - manifest.started).total_seconds()


def _show(folder: Path, out: TextIO, mains: dict[int, str]) -> None:
    """Each recorded JVM's hottest compilations, and how to open the folder."""
    from asmcfg.record.report import after_record

    after_record(folder, out, mains)


def _say(out: TextIO, line: str, prefix: str = PREFIX) -> None:
    """One line on stderr (nothing when stderr is gone)."""
    with contextlib.suppress(OSError, ValueError):
        out.write(visible(prefix + line) + "\n")
        out.flush()
