"""The run over time: what a LogCompilation log stamps (compilations, code made not entrant, traps that fired) and
where a recording's samples went, millisecond by millisecond, on the log's clock."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from asmcfg.model.words import Compiler, Word


class Category(Word):
    """Where a sample of the JVM went, in the order the timeline stacks them."""

    INTERPRETER = "interpreter"
    """The template interpreter (the code cache blob the perf map names `Interpreter`)."""
    C1 = "c1"
    """A C1 compilation (tiers 1 to 3)."""
    C2 = "c2"
    """A C2 compilation."""
    JVMCI = "jvmci"
    """A JVMCI (Graal) compilation."""
    COMPILER_THREADS = "compiler_threads"
    """A JIT compiler thread (`C1 CompilerThre`, `C2 CompilerThre`, `JVMCI…`), wherever it ran."""
    GC = "gc"
    """A garbage collector's thread (`GC Thread#0`, `G1 …`, `ZGC …`), wherever it ran."""
    JVM_OTHER = "jvm_other"
    """The JVM's own code otherwise: libjvm.so, stubs, adapters, `vtable chunks`, native wrappers."""
    KERNEL = "kernel"
    """The kernel."""
    OTHER = "other"
    """Another library or mapping (`libc.so.6`)."""


Window = tuple[float | None, float | None]
"""A stretch of the run, ms from the JVM's start: from the first (None: the start) to before the second (None: the
end)."""
CATEGORIES = tuple(Category)
"""Every category, in the order of the JSON counts and the text rows."""


class EventKind(Word):
    """What happened at one moment of the run."""

    MAKE_NOT_ENTRANT = "make_not_entrant"
    """A compilation was made not entrant (`<make_not_entrant>`): no new call enters it."""
    UNCOMMON_TRAP = "uncommon_trap"
    """An uncommon trap fired (`<uncommon_trap thread=…>` in the log's `<tty>`)."""
    DEOPTIMIZED = "deoptimized"
    """A frame of a compilation was deoptimized (`<deoptimized>`)."""
    OSR_MIGRATION = "osr_migration"
    """The first sample in an OSR compilation: a running loop moved into it (known from the samples only)."""


@dataclass(frozen=True, slots=True)
class JitTask:
    """One compilation of the log: its task's times and what it installed."""

    compile_id: int
    """Compile id."""
    method: str
    """`pkg.Class::name`."""
    compiler: Compiler
    """C1, C2, JVMCI, or a native wrapper."""
    level: int | None
    """Tier."""
    kind: str
    """`osr`, `c2n` or empty."""
    osr_bci: int | None
    """The loop's bci of an OSR compilation."""
    queued_ms: int | None
    """When it was queued (`<task_queued stamp=…>`), ms from the JVM's start."""
    started_ms: int | None
    """When a compiler thread began it (`<task stamp=…>`)."""
    done_ms: int | None
    """When it finished (`<task_done stamp=…>`)."""
    installed_ms: int | None
    """When its code was installed (`<nmethod stamp=…>`); None when it installed none."""
    size: int | None
    """The nmethod's size in bytes."""
    bytecode_size: int | None
    """The method's bytecode size."""
    failure: str
    """Why the compilation failed (`<failure reason=…>`), or empty."""
    line: int
    """Line of its first record in the log."""
    address: int | None = None
    """Where its code begins in the code cache (the `<nmethod>` record's `address`)."""
    installed_line: int = 0
    """Line of its `<nmethod>` record (0: none)."""


@dataclass(frozen=True, slots=True)
class JitEvent:
    """One event of the run on the log's clock."""

    t_ms: int
    """When, ms from the JVM's start."""
    kind: EventKind
    """What happened."""
    compile_id: int | None
    """The compilation it concerns."""
    method: str
    """`pkg.Class::name` of the compilation's method; for a trap, of its innermost scope."""
    reason: str
    """The log's reason (`unstable_if`, `not used`), or empty where it gives none."""
    action: str
    """A trap's action (`reinterpret`, `make_not_entrant`), else empty."""
    bci: int | None
    """A trap's or deoptimization's bci in `method`; an OSR migration's loop bci."""
    line: int
    """Line of the record in the log (0 for an event known from the samples)."""
    source_line: int | None = None
    """The Java source line of `method`'s `bci`, where the log's printed code names it (`; - Cls::m@15 (line 8)`)."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """A method the JIT would not compile at a tier (`<make_not_compilable>`): excluded by a CompileCommand or a
    compiler directive, or left after its compilations failed."""

    t_ms: int | None
    """When, ms from the JVM's start."""
    method: str
    """`pkg.Class::name`."""
    level: int | None
    """The tier refused: 0 every tier, 1 to 3 C1's, 4 C2's."""
    osr: bool
    """Only its OSR compilations were refused."""
    reason: str
    """The log's reason (`excluded by CompileCommand`), or empty."""
    invocations: int | None
    """The method's invocation count then (`count`)."""
    backedges: int | None
    """Its loops' back-edge count then (`backedge_count`)."""
    line: int
    """Line of the record in the log."""


@dataclass(frozen=True, slots=True)
class JitLog:
    """What a LogCompilation log stamps, in the order it stamps it."""

    source: str
    """The log's name."""
    pid: int | None
    """The JVM's process id (`<hotspot_log process=…>`)."""
    time_ms: int | None
    """Wall-clock ms of the log's time zero (`<hotspot_log time_ms=…>`), None when the log lacks it."""
    end_ms: int | None
    """The JVM's last stamp (`<destroy_vm>`, `<tty_done>`, `<hotspot_log_done>` or the latest record)."""
    tasks: tuple[JitTask, ...]
    """Every compilation, by compile id."""
    events: tuple[JitEvent, ...]
    """Every `make_not_entrant`, fired trap and deoptimization, in the log's order."""
    problems: tuple[str, ...]
    """One sentence per thing wrong with the log's times (stamps going backwards, no time zero)."""
    refusals: tuple[Refusal, ...] = ()
    """Every `<make_not_compilable>`, in the log's order."""


@dataclass(frozen=True, slots=True)
class Binned:
    """A recording's samples of one JVM per millisecond of the log's clock."""

    source: str
    """The samples' file."""
    total: int
    """The JVM's samples."""
    per_ms: dict[int, Counter[Category]] = field(repr=False)
    """Samples per category in each millisecond (floored; before the JVM's start negative)."""
    per_compilation: dict[int, Counter[int]] = field(repr=False)
    """Samples of each compile id per millisecond."""
    first_ms: dict[int, float] = field(repr=False)
    """Each compile id's first sample, ms."""
    problems: tuple[str, ...] = ()
    """One sentence per thing wrong with the samples (no perf map: the interpreter unknown)."""
