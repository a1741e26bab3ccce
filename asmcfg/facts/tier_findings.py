"""`interpreted` and `c1-hot` findings: a method the log shows the JIT would not compile (or failed to) while the
run's samples say the interpreter, or the method's C1 code, took a share of the run.

Both need a recording and the LogCompilation log. The interpreter is one code blob: perf cannot tell which method
it was running, so an `interpreted` finding's share is the interpreter's share of the run, an upper bound, and
says so. A method's C1 code is its own: a `c1-hot` finding's share is that code's samples."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from asmcfg.facts.findings_frame import MIN_SHARE
from asmcfg.model import Compiler
from asmcfg.model.findings import Finding, FindingKind
from asmcfg.model.timeline import JitLog, JitTask, Refusal

C2_LEVEL = 4
"""C2's tier."""
NOT_REASONS = frozenset({"stale task"})
"""Failures that say the method cooled, not that the compiler refused it."""
EXCLUDED = "excluded by CompileCommand"
"""The reason HotSpot logs for a method a CompileCommand (or a compiler directive's `Exclude`) keeps out."""


@dataclass(frozen=True, slots=True)
class _Why:
    """What the log says kept a method from a compiler."""

    refusals: tuple[Refusal, ...]
    failed: tuple[JitTask, ...]
    queued: tuple[JitTask, ...]
    """Compilations queued that neither installed code nor failed before the log ended."""

    def evidence(self, compiler: str) -> list[str]:
        said = []
        for refusal in self.refusals:
            counts = (f", after {refusal.invocations:,} calls and {refusal.backedges or 0:,} loop back-edges"
                      if refusal.invocations is not None else "")
            tier = "every tier" if refusal.level == 0 else f"tier {refusal.level}"
            osr = " (OSR)" if refusal.osr else ""
            when = f" at {refusal.t_ms} ms" if refusal.t_ms is not None else ""
            said.append(f"log line {refusal.line}: made not compilable at {tier}{osr}{when}, reason "
                        f"'{refusal.reason or 'none given'}'{counts}")
        for task in self.failed:
            said.append(f"log line {task.line}: {compiler} compilation {task.compile_id} (tier {task.level}) failed: "
                        f"'{task.failure}'")
        for task in self.queued:
            said.append(f"log line {task.line}: {compiler} compilation {task.compile_id} queued"
                        + (f" at {task.queued_ms} ms" if task.queued_ms is not None else "")
                        + ", never finished before the log ended")
        return said

    def reasons(self) -> list[str]:
        named = [r.reason or "made not compilable" for r in self.refusals] + [t.failure for t in self.failed]
        if self.queued:
            named.append("still in the compile queue when the run ended")
        return list(dict.fromkeys(named))

    def __bool__(self) -> bool:
        return bool(self.refusals or self.failed or self.queued)


def tier_findings(jit: JitLog, shares: Mapping[int, float], interpreter: float,
                  wanted: Callable[[str], bool] | None = None) -> list[Finding]:
    """The interpreted and c1-hot findings of a recorded run: `jit` is its log's compilations, `shares` the
    percent of the run's samples per compile id, `interpreter` the interpreter's percent; `wanted(method)` keeps
    the methods a selection names."""
    tasks: dict[str, list[JitTask]] = {}
    for task in jit.tasks:
        if task.method:
            tasks.setdefault(task.method, []).append(task)
    refused: dict[str, list[Refusal]] = {}
    for refusal in jit.refusals:
        refused.setdefault(refusal.method, []).append(refusal)
    found = []
    for method in sorted(set(tasks) | set(refused)):
        if wanted is not None and not wanted(method):
            continue
        mine = tasks.get(method, [])
        made = _interpreted(method, mine, refused.get(method, []), interpreter) if interpreter >= MIN_SHARE else None
        made = made or _c1_hot(method, mine, refused.get(method, []), shares)
        if made is not None:
            found.append(made)
    return found


def _installed(task: JitTask) -> bool:
    return task.installed_ms is not None or task.address is not None


def _why(tasks: list[JitTask], refusals: list[Refusal], c2: bool) -> _Why:
    """The refusals and failures that kept the method from C2 (`c2`), or from every compiler, and (C2 only) its
    compilations still queued when the log ended. A stale task (dropped from the queue because the method had
    cooled) is no reason: the method was no longer hot."""
    picked = tuple(r for r in refusals if not c2 or r.level in (0, C2_LEVEL))
    failed = tuple(t for t in tasks if t.failure and t.failure not in NOT_REASONS and not _installed(t)
                   and (not c2 or t.level == C2_LEVEL))
    queued = tuple(t for t in tasks if c2 and not t.failure and not _installed(t) and t.done_ms is None
                   and t.level == C2_LEVEL)
    return _Why(picked, failed, queued)


def _interpreted(method: str, tasks: list[JitTask], refusals: list[Refusal], interpreter: float) -> Finding | None:
    """A method no compilation of which installed code, though the log shows one refused, failed or queued: it ran
    in the interpreter after it got hot enough to compile."""
    if any(_installed(t) for t in tasks):
        return None
    why = _why(tasks, refusals, c2=False)
    if not why:
        return None
    reasons = why.reasons()
    evidence = [f"the log records no compilation of {method} that installed code", *why.evidence("a"),
                f"the run spent {interpreter:.2f}% of its samples in the interpreter; perf cannot tell which "
                "interpreted method took them (the interpreter is one code blob): an upper bound for this method"]
    cause = (f"{method} got hot enough to compile but was never compiled ({'; '.join(reasons)}), so every call "
             "of it runs in the interpreter, far slower than compiled code")
    return Finding(FindingKind.INTERPRETED, None, method, None, None, None, method, interpreter, None, cause,
                   tuple(evidence), _advice(reasons, "compile the method"))


def _c1_hot(method: str, tasks: list[JitTask], refusals: list[Refusal],
            shares: Mapping[int, float]) -> Finding | None:
    """A method whose C1 code took `MIN_SHARE` of the run while no C2 compilation of it installed code, with the
    log's reason: C2 refused it, its C2 compilation failed, or it was still queued."""
    if any(t.compiler is Compiler.C2 and _installed(t) for t in tasks):
        return None
    c1 = [t for t in tasks if t.compiler is Compiler.C1 and _installed(t)]
    share = sum(shares.get(t.compile_id, 0.0) for t in c1)
    if share < MIN_SHARE:
        return None
    why = _why(tasks, refusals, c2=True)
    if not why:
        return None  # the log says nothing of C2 and this method: no finding, rather than a guess
    sampled = sorted(((shares.get(t.compile_id, 0.0), t) for t in c1 if shares.get(t.compile_id)),
                     key=lambda pair: (-pair[0], pair[1].compile_id))
    hottest = sampled[0][1]
    reasons = why.reasons()
    evidence = [", ".join(f"C1 compilation {t.compile_id} (tier {t.level}{', OSR' if t.osr_bci is not None else ''})"
                          f" took {s:.2f}%" for s, t in sampled) + " of the run's samples",
                f"the log records no C2 compilation of {method} that installed code", *why.evidence("C2")]
    profiled = (" and spends time profiling (tiers 2 and 3 count every branch and call)"
                if hottest.level in (2, 3) else "")
    cause = (f"{method} runs in C1 code ({share:.2f}% of the run) because C2 never compiled it "
             f"({'; '.join(reasons)}): C1 code lacks C2's optimisations{profiled}")
    return Finding(FindingKind.C1_HOT, hottest.compile_id, method, None, None, None, method, share, None, cause,
                   tuple(evidence), _advice(reasons, "compile the method with C2"))


def _advice(reasons: list[str], what: str) -> str:
    """What to try, by the log's reasons."""
    if any(EXCLUDED in r for r in reasons):
        return (f"a CompileCommand (exclude) or a compiler directive (Exclude) keeps the JIT from it: remove it so "
                f"HotSpot can {what}")
    if any("queue" in r for r in reasons):
        return ("the compile queue was still busy: give the JIT more threads (-XX:CICompilerCount) or the run "
                "more time to warm up")
    return (f"split the method into smaller ones (the log's reason says what the compiler gave up on), so HotSpot "
            f"can {what}")
