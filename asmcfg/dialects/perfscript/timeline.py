"""A recorded JVM's samples per millisecond of its log's clock, each put in a `Category` by its thread's name and
by where it ran: the compilation that held its address then (the rule of `attribute.py`), the interpreter, the
JVM's other code, the kernel or another library."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from asmcfg.dialects.logcompilation.logxml import NMethodRecord
from asmcfg.dialects.perfscript.attribute import Occupants, occupants
from asmcfg.dialects.perfscript.codecache import CodeCache, Compiled
from asmcfg.dialects.perfscript.perfmap import PerfMap
from asmcfg.dialects.perfscript.samples import KERNEL_DSO, Sample
from asmcfg.model import Compiler
from asmcfg.model.timeline import Binned, Category, JitLog, Window

COMPILER_THREADS = ("C1 CompilerThre", "C2 CompilerThre", "JVMCI")
"""How perf's 15-character thread names of the JIT compiler threads begin."""
GC_THREADS = ("GC Thread", "G1 ", "ZDirector", "ZDriver", "ZStat", "ZWorker", "ZUnmapper", "ZUncommit",
              "ZRuntimeWorker", "Shenandoah", "ParGC", "Parallel GC", "Conc#", "GC ")
"""How the garbage collectors' thread names begin (G1, Parallel, ZGC, Shenandoah)."""
_BY_COMPILER = {Compiler.C1: Category.C1, Compiler.C2: Category.C2, Compiler.JVMCI: Category.JVMCI}


def code_cache(jit: JitLog) -> CodeCache:
    """The code cache of the log `jit` was read from: each installed compilation's bytes and install time, in the
    log's order (what `codecache.read_code_cache` reads, from the one pass `jit` took)."""
    assert jit.pid is not None and jit.time_ms is not None
    placed = sorted((t for t in jit.tasks if t.address is not None and t.size and t.installed_ms is not None),
                    key=lambda t: t.installed_line)
    compiled = tuple(
        Compiled(NMethodRecord(t.compile_id, t.compiler, t.level, t.kind, t.method, t.bytecode_size, t.address, t.size,
                               None, None, t.installed_line), (t.installed_ms or 0) * 1_000_000, order)
        for order, t in enumerate(placed))
    return CodeCache(jit.source, jit.pid, jit.time_ms, compiled, frozenset())


def thread_category(comm: str) -> Category | None:
    """The category a thread's samples go to wherever they ran (compiler and GC threads), else None."""
    if comm.startswith(COMPILER_THREADS) or "CompilerThre" in comm:
        return Category.COMPILER_THREADS
    if comm.startswith(GC_THREADS):
        return Category.GC
    return None


def bin_samples(samples: Iterable[Sample], cache: CodeCache, names: PerfMap | None, source: str,
                window: tuple[float | None, float | None] = (None, None)) -> Binned:
    """The samples of `cache`'s JVM per millisecond and category, and per compilation (those of `window`, ms on
    the log's clock, when it is bounded)."""
    held = occupants(cache)
    zero = cache.time_ms * 1_000_000
    low, high = window
    per_ms: dict[int, Counter[Category]] = {}
    per_compilation: dict[int, Counter[int]] = {}
    first: dict[int, float] = {}
    total = 0
    for sample in samples:
        if sample.pid != cache.pid:
            continue
        when = sample.time_ns - zero
        if (low is not None and when < low * 1e6) or (high is not None and when >= high * 1e6):
            continue
        total += 1
        ms = when // 1_000_000
        category, compile_id = _category(sample, when, held, names)
        per_ms.setdefault(ms, Counter())[category] += 1
        if compile_id is not None:
            per_compilation.setdefault(compile_id, Counter())[ms] += 1
            if compile_id not in first or when / 1e6 < first[compile_id]:
                first[compile_id] = when / 1e6
    problems = () if names is not None else (
        f"{source}: no perf map (perf-{cache.pid}.map) beside it: samples in the interpreter are counted as the "
        "JVM's other code",)
    return Binned(source, total, per_ms, per_compilation, first, problems)


def _category(sample: Sample, when: int, held: Occupants, names: PerfMap | None) -> tuple[Category, int | None]:
    """The sample's category, and the compile id of the compilation it ran in (None outside any)."""
    compiled, holders = held.holder(sample.ip, when)
    by_thread = thread_category(sample.comm)
    if compiled is not None:
        record = compiled.record
        return by_thread or _BY_COMPILER.get(record.compiler, Category.JVM_OTHER), record.compile_id
    if by_thread is not None:
        return by_thread, None
    if holders or sample.dso.startswith("/tmp/perf-") or sample.dso == "//anon":
        named = names.name(sample.ip) if names is not None and not holders else None
        return (Category.INTERPRETER if named == "Interpreter" else Category.JVM_OTHER), None
    if sample.dso == KERNEL_DSO or sample.dso.startswith("[kernel"):
        return Category.KERNEL, None
    library = sample.dso.rsplit("/", 1)[-1]
    return (Category.JVM_OTHER if library == "libjvm.so" else Category.OTHER), None


def read_binned(perf_script: str, log: str, jit: JitLog, window: Window = (None, None)) -> Binned:
    """The samples of `perf_script` of the JVM of `log` (read as `jit`), binned (its perf map named beside either
    file)."""
    from asmcfg.dialects.perfscript.heat import _perf_map
    from asmcfg.dialects.perfscript.samples import Reading, samples
    from asmcfg.sources.lines import display_name, read_lines

    cache = code_cache(jit)
    reading = Reading()
    return bin_samples(samples(read_lines(perf_script), reading), cache, _perf_map(cache, perf_script, log),
                       display_name(perf_script), window)
