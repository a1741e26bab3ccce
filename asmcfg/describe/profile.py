"""Human words for measured heat: perfasm regions, samples on no printed line, hot-path ranks."""

from __future__ import annotations


def percent(values: tuple[float, ...]) -> str:
    """`12.34%`, one figure per event joined by ` / `."""
    return " / ".join(f"{v:.2f}%" for v in values)


EVEX_CAUSE = (
    "likely cause: hsdis mis-decoded EVEX (AVX-512) instructions ({count} `.byte 0x62` lines followed by garbage, "
    "the mark of an hsdis built on capstone 4); samples on the real instructions inside those bytes are on no "
    "printed line"
)
EVEX_ADVICE = (
    "to place them, decode the same code with something that knows EVEX: an hsdis built on capstone 5 or "
    "binutils, or the `[MachCode]` hex a JVM without hsdis prints (asmcfg decodes it with capstone 5) with "
    "`--profile` carrying the perfasm output of that same run"
)
EVEX_ON_HEX = (
    "this graph is decoded from `[MachCode]` hex with a capstone that knows EVEX, so its instructions are right, "
    "but perfasm printed these samples on no line, so no address says where they go"
)
UNATTRIBUTED = "samples on no printed line (region totals minus the printed lines)"
SKID_SAMPLED = (
    "a sample names the instruction about to run (skid): the cost of a slow instruction, such as a load that "
    "misses the cache, shows on the instruction after it; --skid previous credits each sample to the instruction "
    "before it in its block"
)
SKID_PREVIOUS = (
    "--skid previous: each sample is credited to the instruction before the one it names, in its block (a "
    "block's first instruction keeps its own)"
)


PLACE_LABELS = {
    "nmethod": "compiled code",
    "JIT compiler in compiled code": "the JIT compiler's own compiled code (JVMCI compiler threads)",
    "code cache, not an nmethod": "JIT-made code that is no compilation",
    "libjvm.so": "the JVM (libjvm.so: JIT compilers, GC, runtime)",
    "kernel": "kernel",
    "other": "other libraries",
}
"""Where a recorded JVM's samples ran (`Place` values), as the summary says it."""


def skid_note(previous: bool) -> str:
    """What a measured sample names, said beside `perf` heat."""
    return SKID_PREVIOUS if previous else SKID_SAMPLED


def share_basis(counted: bool) -> str:
    """What a share of measured heat is a share of: the JVM's `perf` samples, or (perfasm) the run's."""
    return "the JVM's samples" if counted else "the run"


def unprinted(name: str, share: tuple[float, ...], lines: int, threshold: int, compile_id: int | None) -> str:
    """Why a compilation perfasm measured is missing, and how to get it."""
    select = f"--compile-id {compile_id}" if compile_id is not None else f"--method '{name}'"
    return (
        f"not printed by perfasm: {name} holds {percent(share)} of the run, but its region is too big to display "
        f"({lines} lines, threshold {threshold}); to see it rerun with -prof 'perfasm:tooBigThreshold={lines + 1}', "
        f"or read the saveLog of the same run (-prof 'perfasm:saveLog=true'): asmcfg SAVELOG {select} "
        "(its lines carry the percentages), adding --profile PERFASM for the event names"
    )

HOT_PATHS_TITLE = "Hot paths (measured: 1 goes round the hottest loop, or from the entry; 2.. by share, highest first)"
FIRST_PATH = {"loop": "1 loop", "entry": "1 entry", "cycle": "1 cycle"}
"""The first hot path's rank cell: it goes round the hottest loop (or starts at the entry), whatever its share; a
`cycle` is a loop of the printed regions that the method's loops do not count."""
UNCOUNTED_CYCLE = (
    "hot path 1 goes round a cycle of the printed regions that the loops count above leaves out: perfasm printed "
    "none of the code that enters it, so no loop header of the method is seen to reach it"
)


def run_label(benchmark: str, parameters: str) -> str:
    """A JMH run as the listing names it: `EnumSwitchBenchmark.chained_ifs (branches = 3)` (the benchmark's class
    and method, without its package), empty when JMH printed neither."""
    short = ".".join(benchmark.split(".")[-2:])
    return f"{short} ({parameters})" if parameters else short
