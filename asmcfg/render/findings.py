"""`--findings` written out: the ranked list as text, and as JSON (`{"schema": 1, "findings": [...]}`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from asmcfg import describe
from asmcfg.model.findings import Finding, FindingKind
from asmcfg.render import indented
from asmcfg.render.json import SCHEMA
from asmcfg.terminal import visible


def write_json(found: Sequence[Finding], out: TextIO) -> None:
    """The findings, ranked, as one JSON document."""
    basis = "measured" if any(f.share is not None for f in found) else "static"
    out.write(indented.dumps({"schema": SCHEMA, "ranked_by": basis, "findings": [f.as_dict() for f in found]}))
    out.write("\n")


def heading(found: Sequence[Finding], analysed: int, measured: bool) -> str:
    """What the list is and how it is ranked."""
    how = ("ranked by measured share of the run's samples" if measured else
           "no measured heat: ranked by a static estimate, loop depth × the loop's instructions")
    counted = f"{describe.count(len(found), 'finding')} in {describe.count(analysed, 'compilation')} analysed"
    return f"{counted} ({how})" if found else counted


def write_text(found: Sequence[Finding], out: TextIO, analysed: int, measured: bool) -> None:
    """The ranked list, one finding a paragraph; every text from the input made visible."""
    out.write(visible(heading(found, analysed, measured)) + "\n")
    for rank, each in enumerate(found, 1):
        out.write("\n" + visible(title(rank, each)) + "\n")
        out.write(visible(f"   cause: {each.cause}") + "\n")
        for line in each.evidence:
            out.write(visible(f"   - {line}") + "\n")
        out.write(visible(f"   try: {each.suggestion}") + "\n")
        if each.whatif:
            out.write(visible(f"   test: {each.whatif}") + "\n")


def write_tree(lines: Sequence[str], compile_id: int, out: TextIO) -> None:
    """The inlining tree of the one compilation `--findings --compile-id N` analysed (`inlining_tree.text_lines`)."""
    out.write("\n" + visible(f"inlining tree of compile id {compile_id} (share: the run's samples on the instructions "
                      "whose debug info names each inlined frame)") + "\n")
    for line in lines:
        out.write(visible(f"   {line}") + "\n")


def title(rank: int, each: Finding) -> str:
    """`1. 21.04% check-in-loop HotLoop::run (compile id 16) loop B6, iaload@21 line 17`."""
    if each.share is not None:
        cost = f"{each.share:.2f}%"
    else:
        cost = f"est. {each.estimate}" if each.estimate is not None else "unmeasured"
    place = f"B{each.block}" if each.block is not None else ""
    if (each.kind.value.endswith("-in-loop") or each.kind is FindingKind.NOT_VECTORIZED) and each.block is not None:
        place = f"loop B{each.block}"
    at = f"{each.scope}@{each.bci}" if each.scope and each.bci is not None else ""
    if at and each.bytecode is not None:
        at = f"{each.scope} {each.bytecode}"
    line = f" line {each.line}" if each.line is not None else ""
    cid = f" (compile id {each.compile_id})" if each.compile_id is not None else ""
    return " ".join(part for part in (f"{rank}.", cost, str(each.kind), f"{each.method}{cid}", place, f"{at}{line}")
                    if part.strip())
