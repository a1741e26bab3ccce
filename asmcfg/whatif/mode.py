"""`asmcfg whatif`: replay one compilation as recorded (the baseline) and with the what-if's JVM options, in a
temporary folder removed afterwards, and report what changed as `asmcfg diff` reports two compilations; the
baseline compared with the recorded compilation first (fidelity)."""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from asmcfg.compare import items, report
from asmcfg.compare.match import Diff, diff
from asmcfg.errors import InputError
from asmcfg.model import Analysis
from asmcfg.run.log import Log
from asmcfg.run.pipeline import Selector
from asmcfg.whatif import fidelity, inlining, runner
from asmcfg.whatif.options import changes_inlining
from asmcfg.whatif.replayfile import without_inlining
from asmcfg.whatif.source import Source, check_jdk


@dataclass(frozen=True, slots=True)
class WhatifOptions:
    """Everything a what-if needs, validated by the CLI."""

    input: str
    """A record folder, or a replay file."""
    selector: Selector = field(default_factory=Selector)
    """Which compilation of a record folder (the hottest C2 one by default)."""
    pid: int | None = None
    """Which JVM of a record folder."""
    jvm_options: tuple[str, ...] = ()
    """The what-if's options, checked, CompileCommands of --inline/--dontinline/--disable-intrinsic included."""
    java: str | None = None
    """The `java` to replay with."""
    class_path: str | None = None
    """The class path (required for a replay file given alone)."""
    timeout: float = 60.0
    """Seconds a replay may take."""
    json: str | None = None
    """Write the JSON here (`-` for stdout)."""
    html: str | None = None
    """Write the side-by-side page here."""
    quiet: bool = False
    """No tables on stderr."""
    sweep: bool = False
    """Replay once per switch of the built-in list instead (the what-if's options are then none)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """A what-if's result."""

    source: Source
    """What was replayed."""
    result: Diff
    """Baseline → what-if."""
    fidelity: list[str] | None
    """How the baseline differs from the recording (empty: it matches; None: nothing recorded to compare)."""
    runs: tuple[runner.Done, ...]
    """The replays run."""
    inlining: inlining.Inlining
    """Which inlining was replayed as recorded and which the run changed."""
    fresh_inlining: bool
    """The what-if's replay decided its inlining afresh (an option changes an inlining limit)."""


def replay_pair(source: Source, options: tuple[str, ...], timeout: float, folder: Path) -> tuple[runner.Done, ...]:
    """The baseline and the what-if replays, run side by side."""
    from concurrent.futures import ThreadPoolExecutor

    fresh = changes_inlining(options)
    changed_text = without_inlining(source.text, source.task) if fresh and source.task.inlining else source.text
    asked = (runner.Replay("baseline", source.java, source.text, source.task, source.class_path,
                           source.module_path, ()),
             runner.Replay("what-if " + " ".join(options), source.java, changed_text, source.task,
                           source.class_path, source.module_path, options))
    with ThreadPoolExecutor(2) as pool:
        futures = [pool.submit(runner.run, replay, folder, name, timeout)
                   for replay, name in zip(asked, ("baseline", "whatif"), strict=True)]
        try:
            return tuple(future.result() for future in futures)
        finally:
            runner.stop_all()


def analysed(done: runner.Done) -> Analysis:
    """The replayed compilation, read from its log as any compilation is."""
    log = Log(str(done.log))
    task = done.replay.task
    rows = [row for row in log.compilations()
            if row.printed and row.method == task.name and row.osr_bci == task.osr_bci]
    if not rows:
        raise InputError(f"{done.replay.label}: the replay's log holds no printed compilation of {task.name}",
                         "whatif")
    result = log.analyse(rows[-1]).analysis
    label = f"{done.replay.label.split(' ')[0]} replay"  # its log is gone with the temporary folder
    method = dataclasses.replace(result.cfg.method, source=label)
    return dataclasses.replace(result, cfg=dataclasses.replace(result.cfg, method=method))


def whatif(source: Source, options: tuple[str, ...], timeout: float) -> Outcome:
    """Replay, read and compare; the temporary folder is removed whatever happens."""
    check_jdk(source)
    folder = Path(tempfile.mkdtemp(prefix="asmcfg-whatif-"))
    try:
        runs = replay_pair(source, options, timeout, folder)
        baseline, changed = (analysed(done) for done in runs)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    result = diff(items.side(baseline), items.side(changed))
    found = None if source.recorded is None else fidelity.differences(diff(items.side(source.recorded),
                                                                            items.side(baseline)))
    return Outcome(source, result, found, runs, inlining.compare(source.task, result),
                   changes_inlining(options) and source.task.inlining is not None)


def document(outcome: Outcome, options: tuple[str, ...]) -> dict[str, Any]:
    """The JSON document: the diff of the two replays (diff schema), and a `whatif` object."""
    whole = report.document(outcome.result)
    whole["whatif"] = {
        "compilation": outcome.source.what,
        "jvm_options": list(options),
        "jdk": outcome.source.release,
        "java": outcome.source.java,
        "baseline_matches_recorded": None if outcome.fidelity is None else not outcome.fidelity,
        "baseline_differences": outcome.fidelity,
        "fidelity": fidelity.sentence(outcome.fidelity),
        "inlining": outcome.inlining.as_dict(),
        "inlining_decided_afresh": outcome.fresh_inlining,
        "commands": [{"replay": done.replay.label, "argv": list(done.argv), "seconds": round(done.seconds, 3)}
                     for done in outcome.runs],
    }
    return whole
