"""Print the five hottest loops of an `asmcfg record` folder, with what asmcfg found in each.

    asmcfg record -o rec -- java -cp classes HotLoop 3
    python examples/hottest_loops.py rec

Every compilation is analysed once, on every core; a loop's heat is the share of the run's samples that landed in
its blocks.
"""

from __future__ import annotations

import sys

import asmcfg
from asmcfg.model import Analysis, Loop

SHOWN = 5


def labels(analysis: Analysis, loop: Loop) -> str:
    """What the loop is: C2's copy role, unroll and vector width, and the checks, polls and calls in it."""
    facts = analysis.loop_facts.get(loop.header)
    found = []
    if facts is not None:
        if facts.role:
            found.append(str(facts.role) + (f" x{facts.unroll}" if facts.unroll and facts.unroll > 1 else ""))
        if facts.vectorized:
            found.append(f"{facts.vector_bits or 'scalable'}-bit {facts.element} ({facts.vector_isa})")
    inside = set(loop.blocks)
    checks = [str(check) for edge, check in analysis.checks.items() if edge.src in inside]
    found += [f"{checks.count(kind)} {kind}" for kind in sorted(set(checks))]
    calls = [call for call in analysis.calls if call.block in inside]
    if calls:
        found.append(f"{len(calls)} call{'s' if len(calls) > 1 else ''}")
    if loop.has_poll:
        found.append("safepoint poll")
    return ", ".join(found) or "-"


def main(folder: str) -> int:
    log = asmcfg.open(folder)
    for note in log.notes:
        print(note.text, file=sys.stderr)
    loops = []
    for analysis in log.stream(workers=None):
        for loop in analysis.loops if analysis.block_heat else ():
            heat = sum(analysis.block_heat.get(block, (0.0,))[0] for block in loop.blocks)
            loops.append((heat, loop, analysis))
    loops.sort(key=lambda found: -found[0])
    for heat, loop, analysis in loops[:SHOWN]:
        header = analysis.cfg.method.header
        print(f"{heat:6.2f}%  {header.compiler} id {header.compile_id} {header.name}  loop B{loop.header}: "
              f"{labels(analysis, loop)}")
    if not loops:
        print("no measured compilation has a loop", file=sys.stderr)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} RECORD_FOLDER")
    sys.exit(main(sys.argv[1]))
