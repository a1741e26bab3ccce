"""`--findings`: the selected compilations analysed on all cores, each one's findings made where it was analysed,
then ranked together and written (text on stdout, or `--json FILE`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from asmcfg.errors import SelectionError
from asmcfg.model.findings import Finding, FindingKind
from asmcfg.run.log import Log
from asmcfg.run.options import Options
from asmcfg.sources.lines import display_name

if TYPE_CHECKING:
    from asmcfg.model import Analysis, Method
    from asmcfg.model.timeline import JitLog
    from asmcfg.run.progress import Progress

INTERPRETER = "Interpreter"
"""The code-cache blob of HotSpot's template interpreter, as the perf map names it."""
STUBS = "vtable chunks"
"""The code-cache blob HotSpot's vtable and itable stubs live in, as the perf map names it."""


@dataclass(frozen=True, slots=True)
class FindingsOf:
    """The findings of one analysed compilation (picklable: it runs in the workers)."""

    source: str
    """The input as the whatif commands name it."""
    measured: bool = False
    """The run was measured: a compilation without heat took no samples."""
    class_path: tuple[str, ...] = ()
    """Where the class files are: each finding then cites its bytecode (`iaload@17`)."""

    def __call__(self, result: Analysis) -> list[Finding]:
        from asmcfg.facts.findings import findings

        found = findings(result, self.source, self.measured)
        if not found or not self.class_path:
            return found
        from asmcfg.facts import bytecode
        from asmcfg.sources.classpath import find_classes

        matched = bytecode.match(result, find_classes(list(self.class_path), bytecode.methods_named(result)))
        return [replace(f, bytecode=bytecode.cite(matched, f.scope, f.bci)) for f in found]


@dataclass(frozen=True, slots=True)
class WithFindings:
    """A `--jsonl` record serializer whose records carry the compilation's findings (picklable)."""

    serialize: Any
    """The record's own serializer (`jsonl.record_line` or `facts.facts_record`)."""
    source: str
    """The input as the whatif commands name it."""
    measured: bool = False
    """The run was measured."""
    class_path: tuple[str, ...] = ()
    """Where the class files are: each finding then cites its bytecode."""

    def __call__(self, result: Analysis) -> Any:
        from asmcfg.render.jsonl import COMPACT

        listed = [f.as_dict() for f in FindingsOf(self.source, self.measured, self.class_path)(result)]
        record = self.serialize(result)
        if isinstance(record, str):  # compact JSON text of one object
            return f'{record[:-1]},"findings":{COMPACT.encode(listed)}}}'
        return {**record, "findings": listed}


@dataclass(frozen=True, slots=True)
class Sampled:
    """The compilations of a recording that took at least `MIN_SHARE` percent of its samples (picklable)."""

    ids: frozenset[int]

    def __call__(self, method: Method) -> bool:
        return method.header.compile_id in self.ids


def run(options: Options, log: Log, progress: Progress) -> int:
    """Find, rank and write the findings of the selected compilations."""
    from asmcfg.facts.findings import ranked
    from asmcfg.facts.findings_frame import MIN_SHARE
    from asmcfg.render import findings as render
    from asmcfg.render.files import write_to
    from asmcfg.run import parallel

    source = log.folder or options.input
    perf = log.enrichment.perf
    select: Any = options.selector if options.selector.any else None
    if perf is not None and select is None:  # only compilations that took enough samples can hold a hot finding
        hot = frozenset(cid for cid, share in perf.shares().items() if share >= MIN_SHARE)
        select = Sampled(hot)
    stats = parallel.RunStats()
    found: list[Finding] = []
    measured = measured_run(log)
    for record in log.records(FindingsOf(display_name(source), measured, options.class_path), select,
                              stats=stats):
        if isinstance(record, list):
            found.extend(record)
    progress.close()
    if perf is not None:
        found = _stub_share(found, perf.share(perf.code_cache.get(STUBS, 0)))
    jit = _jit_log(log) if stats.analysed or not options.selector.any or perf is not None else None
    if jit is not None:
        found += _deopt_cycles(jit, options, perf.shares() if perf is not None else None)
        if perf is not None:  # a method never compiled has no compilation to select: these may still name it
            found += _tiers(jit, options, perf.shares(), perf.share(perf.code_cache.get(INTERPRETER, 0)))
    if stats.analysed == 0 and options.selector.any and not found:
        raise SelectionError("no compilation matches the selection (see --list)", display_name(options.input))
    found = ranked(found)
    if options.json is not None:
        write_to(options.json, lambda out: render.write_json(found, out))
    if options.json != "-":
        measured = measured or any(f.share is not None for f in found)
        write_to("-", lambda out: render.write_text(found, out, stats.analysed, measured))
        compile_id = options.selector.compile_id
        if compile_id is not None and stats.analysed == 1:
            from asmcfg.facts.inlining_tree import text_lines

            lines = text_lines(log.analyse(compile_id).analysis)
            write_to("-", lambda out: render.write_tree(lines, compile_id, out))
    return 0


def _jit_log(log: Log) -> JitLog | None:
    """The compilations and events of the LogCompilation log (the input or `--log`), None without one."""
    from asmcfg.dialects.heatfiles import is_compile_log, read_jit_log

    path = log.log or log.path
    return None if path == "-" or not is_compile_log(path) else read_jit_log(path)


def _deopt_cycles(jit: JitLog, options: Options, shares: dict[int, float] | None) -> list[Finding]:
    """The deopt cycles the log shows, of the selected methods."""
    from asmcfg.facts.deopt_findings import deopt_findings
    from asmcfg.model import Compiler

    selector = options.selector

    def wanted(method: str, compile_id: int) -> bool:
        return ((selector.compile_id is None or selector.compile_id == compile_id)
                and selector.compiler in (None, Compiler.C2) and selector.name_matches(method))

    return deopt_findings(jit, shares, wanted if selector.any else None)


def _tiers(jit: JitLog, options: Options, shares: dict[int, float], interpreter: float) -> list[Finding]:
    """The methods of a recording the log shows kept from the JIT (`interpreted`) or from C2 (`c1-hot`)."""
    from asmcfg.facts.tier_findings import tier_findings
    from asmcfg.model import Compiler

    selector = options.selector
    if selector.compiler not in (None, Compiler.C1):
        return []
    if selector.compile_id is not None:
        named = {task.method for task in jit.tasks if task.compile_id == selector.compile_id}
        return tier_findings(jit, shares, interpreter, lambda method: method in named)
    return tier_findings(jit, shares, interpreter, selector.name_matches if selector.any else None)


def measured_run(log: Log) -> bool:
    """True when the run's samples are on its compilations (a record folder's, or `--profile`)."""
    how = log.enrichment
    return how.perf is not None or how.profile is not None


def _stub_share(found: list[Finding], stubs: float) -> list[Finding]:
    """The megamorphic findings with the run's samples in vtable and itable stubs: counted toward the one such
    finding of the run, else said beside each."""
    if not stubs:
        return found
    mega = [f for f in found if f.kind is FindingKind.MEGAMORPHIC]
    figure = f"the run spent {stubs:.2f}% of its samples in vtable and itable stubs ({STUBS})"
    out = []
    for each in found:
        if each.kind is FindingKind.MEGAMORPHIC and len(mega) == 1:
            each = replace(each, share=(each.share or 0.0) + stubs,
                           evidence=(*each.evidence, figure + ": counted toward this call, the run's only one"))
        elif each.kind is FindingKind.MEGAMORPHIC:
            each = replace(each, evidence=(*each.evidence, figure + f", shared by {len(mega)} megamorphic calls"))
        out.append(each)
    return out
