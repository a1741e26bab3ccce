"""The properties every run over a mutated dump must keep: shared by tests/test_fuzz.py and fuzz/fuzz.py.

`run_case` reads a case through the library path (open_input -> analyse_method), renders each method to DOT and
JSON, and checks the properties. An AsmcfgError is an allowed answer; a failed property raises Violation;
anything else escaping is a bug.
"""

from __future__ import annotations

import io
import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from asmcfg import isa
from asmcfg.analyses.traps import trap_kind
from asmcfg.hotspot.stubs import RUNTIME_STUB_CALLS
from asmcfg.isa.base import Isa
from asmcfg.model import Analysis, DialectName, EdgeKind, Flow
from asmcfg.render import dot, json as json_render
from asmcfg.run.pipeline import analyse_method, open_input

MAX_METHODS = 6
"""Methods checked per case: enough to reach every reader state, few enough to keep cases fast."""


class Violation(AssertionError):
    """A property of the graph or of its renderings does not hold."""


def require(condition: bool, what: str) -> None:
    """Raise Violation(what) unless `condition`."""
    if not condition:
        raise Violation(what)



@dataclass(frozen=True, slots=True)
class Outcome:
    """What one case gave."""

    methods: int
    """Methods read and checked."""
    empty: int
    """Methods among them with no instruction at all (a graph of no block: reported, not a property failure)."""


def run_case(path: str, forced: str | None = None, also: Callable[[Analysis], None] | None = None) -> Outcome:
    """Read, analyse, render and check every method (up to MAX_METHODS) of the input at `path`.

    `also` is called with each analysed method after the checks, for more renderers to try.
    """
    stream = open_input(path, DialectName(forced) if forced else None)
    count = empty = 0
    methods = list(itertools.islice(stream.methods, MAX_METHODS))
    for _ in stream.methods:  # read to the end: a LogCompilation log's trap records follow all the code
        pass
    for method in methods:
        result = analyse_method(stream.complete(method))
        check_graph(result)
        check_tags(result)
        check_trap_log(result)
        check_dot(result)
        check_json(result)
        if also is not None:
            also(result)
        count += 1
        empty += not method.instructions
    return Outcome(count, empty)


def check_trap_log(result: Analysis) -> None:
    """Log evidence sits on decoded C2 and JVMCI traps only, with a known verdict and records of their own site."""
    require(set(result.trap_log) <= set(result.traps), "log evidence on a block without a trap")
    for block, evidence in result.trap_log.items():
        trap = result.traps[block]
        require(trap.request is not None, "log evidence on a trap without a request")
        require(evidence.verdict in ("agrees", "differs", "unlogged", "no_records"),
                f"unknown verdict {evidence.verdict}")
        require(all(r.bci == trap.bci for r in evidence.logged), "logged records of another bci")
        require((evidence.verdict in ("unlogged", "no_records")) == (not evidence.logged),
                "unlogged with records, or the reverse")
    require(result.cfg.method.log_traps is not None or not result.trap_log, "log evidence without a log")


def check_graph(result: Analysis) -> None:
    """Blocks partition the instructions; every edge starts at a block and ends at a block or a named exit."""
    cfg, count = result.cfg, len(result.cfg.method.instructions)
    bounds = [(b.start, b.end) for b in cfg.blocks] or [(0, 0)]
    require(bounds[0][0] == 0 and bounds[-1][1] == count, "blocks do not cover the instructions")
    require(len(cfg.blocks) > 0 or count == 0, "instructions but no block")
    require(all(s < e for s, e in bounds) or count == 0, "an empty block")
    require(all(a[1] == b[0] for a, b in itertools.pairwise(bounds)), "blocks overlap or leave a gap")
    require([b.id for b in cfg.blocks] == list(range(len(cfg.blocks))), "block ids are not 0..n-1")
    ids = range(len(cfg.blocks))
    for edge in cfg.edges:
        require(edge.src in ids, f"edge from unknown block {edge.src}")
        require(edge.dst in ids if isinstance(edge.dst, int) else bool(edge.dst.strip()), f"edge to {edge.dst!r}")
        block = cfg.blocks[edge.src]
        require(block.start <= edge.site < block.end, "edge site outside its source block")
    require(set(cfg.roots) <= set(ids), "a root that is not a block")


def _block_has(result: Analysis, block_id: int, test: Callable[[int], bool]) -> bool:
    block = result.cfg.blocks[block_id]
    return any(test(i) for i in range(block.start, block.end))


def _jvmci_deopt(result: Analysis, block_id: int) -> bool:
    """A JVMCI deopt site: its DeoptimizationBlob call is in the block, or in a block the block leads to (a shared
    store-and-call, each predecessor loading its own request)."""
    trap = result.traps.get(block_id)
    if trap is None or "DeoptimizationBlob" not in result.cfg.method.instructions[trap.site].runtime_call():
        return False
    blocks = {block_id} | {e.dst for e in result.cfg.edges if e.src == block_id and isinstance(e.dst, int)}
    return any(result.cfg.blocks[b].start <= trap.site < result.cfg.blocks[b].end for b in blocks)


def check_tags(result: Analysis) -> None:
    """Every tag has its evidence in the block, and every check edge is what its name says."""
    table = isa.for_name(result.cfg.method.isa)
    instructions = result.cfg.method.instructions
    evidence: dict[str, Callable[[int], bool]] = {
        "uncommon_trap": lambda i: trap_kind(instructions[i]) == "uncommon_trap",
        "safepoint_poll": lambda i: instructions[i].poll,
        "return_poll": lambda i: instructions[i].poll_return,
    }
    for block_id, tags in result.tags.items():
        for tag, test in evidence.items():
            if tag in tags and not (tag == "uncommon_trap" and _jvmci_deopt(result, block_id)):
                require(_block_has(result, block_id, test), f"{tag} block B{block_id} without its instruction")
        _check_marker_tags(result, block_id, tags)
        if "stub" in tags:
            require(_stub_evidence(result, block_id), f"stub block B{block_id} without a stub call or section")
    _check_loops(result)
    _check_checks(result, table)


_MARKER_TAGS = {"entry": "Entry Point", "verified_entry": "Verified Entry Point"}
_SECTION_TAGS = {
    "exception_handler": ("Exception Handler",),
    "deopt_handler": ("Deopt Handler Code", "Deopt MH Handler Code"),
}


def _check_marker_tags(result: Analysis, block_id: int, tags: frozenset[str]) -> None:
    start = result.cfg.blocks[block_id].start
    markers = result.cfg.method.markers
    for tag, label in _MARKER_TAGS.items():
        if tag in tags:
            require((start, label) in markers, f"{tag} block B{block_id} does not start at its marker")
    for tag, labels in _SECTION_TAGS.items():
        if tag in tags:
            require(any(i <= start and name in labels for i, name in markers), f"{tag} B{block_id} outside section")
    if "osr_entry" in tags:
        require(result.cfg.method.header.osr_bci is not None, f"osr_entry B{block_id} in a method that is not OSR")
    if "ic_miss" in tags:
        require(any(isinstance(e.dst, str) and "ic_miss" in e.dst for e in result.cfg.edges if e.src == block_id),
                f"ic_miss B{block_id} without an edge to the ic-miss stub")


def _stub_evidence(result: Analysis, block_id: int) -> bool:
    method = result.cfg.method
    start = result.cfg.blocks[block_id].start
    if any(i <= start and name == "Stub Code" for i, name in method.markers):
        return True
    if any(isinstance(e.dst, str) and "SafepointBlob" in e.dst for e in result.cfg.edges if e.src == block_id):
        return True

    def calls_stub(i: int) -> bool:
        ins = method.instructions[i]
        stubs = RUNTIME_STUB_CALLS
        return trap_kind(ins) == "throw" or any(n in ins.runtime_call() or n in ins.operands for n in stubs)

    return _block_has(result, block_id, calls_stub)


def _check_loops(result: Analysis) -> None:
    headers = {loop.header for loop in result.loops}
    for block_id, tags in result.tags.items():
        if "loop_header" in tags:
            require(block_id in headers, f"loop_header B{block_id} heads no loop")
    for loop in result.loops:
        body = set(loop.blocks)
        require(loop.header in body and set(loop.back_edges) <= body, f"loop at B{loop.header} misses its header")
        require(any(e.src in body and e.dst == loop.header for e in result.cfg.edges), "a loop without a back edge")


def _check_checks(result: Analysis, table: Isa) -> None:
    edges = set(result.cfg.edges)
    instructions = result.cfg.method.instructions
    for edge, reason in result.checks.items():
        require(edge in edges, f"{reason} on an edge that is not in the graph: {edge}")
        ins = instructions[edge.site]
        if reason == "range_check":
            either = edge.kind is EdgeKind.TAKEN or (edge.kind is EdgeKind.FALLTHROUGH and table.flow(ins) is Flow.COND)
            require(either, "range_check on an edge that is not a branch's taken or not-taken side")
            require(table.base_mnemonic(ins.mnemonic) in table.unsigned_conditional,
                    f"range_check on {ins.mnemonic!r}, not an unsigned branch")
        elif reason == "null_check":
            implicit = edge.kind is EdgeKind.EXCEPTION and ins.implicit_target is not None
            branch = edge.kind is EdgeKind.TAKEN and table.flow(ins) is Flow.COND
            require(implicit or branch, f"null_check on a {edge.kind.value} edge: no implicit exception, no branch")
        require(reason in ("range_check", "null_check"), f"unknown check {reason!r}")
    for block_id, tags in result.tags.items():
        for reason in {"range_check", "null_check"} & tags:
            require(reason in result.checks.values(), f"{reason} block B{block_id} without a {reason} edge")


_STRING = r'"(?:[^"\\]|\\[^\n])*"'
_ATTRS = rf"\[(?:\w+={_STRING} ?)*\]"
_DOT_LINE = re.compile(
    rf"^(?:digraph {_STRING} \{{|  graph {_ATTRS};|  (?:node|edge) \[[^\n]*\];|  (\w+) {_ATTRS};"
    rf"|  (\w+) -> (\w+) {_ATTRS};|  subgraph cluster_legend \{{|    label=\"legend\";[ -~]*|    \w+ {_ATTRS};"
    rf"|    \w+ -> \w+ (?:{_ATTRS}|\[style=invis\]);|  \}}|\}}"
    rf"| +subgraph cluster_loop\d+ \{{| +graph {_ATTRS};| +(?:b\d+ )*b\d+;| +\}})$"
)


def check_dot(result: Analysis) -> None:
    """The DOT is printable ASCII, every line a statement whose strings are closed, every edge between nodes."""
    out = io.StringIO()
    dot.write_dot(result, out)
    declared: set[str] = set()
    for line in out.getvalue().splitlines():
        require(all(" " <= c <= "~" for c in line), f"DOT line with raw control or non-ASCII text: {line[:80]!r}")
        match = _DOT_LINE.match(line)
        require(match is not None, f"DOT line that breaks the grammar: {line[:120]!r}")
        assert match is not None
        node, src, dst = match.groups()
        if node:
            declared.add(node)
        if src:
            require(src in declared and dst in declared, f"DOT edge to an undeclared node: {line[:80]!r}")


def _no_constant(name: str) -> None:
    raise Violation(f"JSON holds {name}, which is not JSON")


def check_json(result: Analysis) -> None:
    """The JSON parses strictly and holds every block, instruction and edge of the graph."""
    out = io.StringIO()
    json_render.write_json([result], out)
    document = json.loads(out.getvalue(), parse_constant=_no_constant)
    (method,) = document["methods"]
    require(len(method["blocks"]) == len(result.cfg.blocks), "JSON block count differs")
    shown = sum(len(b["instructions"]) for b in method["blocks"])
    require(shown == len(result.cfg.method.instructions), "JSON loses instructions")
    require(len(method["edges"]) == len(result.cfg.edges), "JSON edge count differs")
