"""`--skid previous`: each sample credited to the instruction before the one it names, within its block.

A sampling interrupt names the instruction about to run, so the cost of a slow instruction (a load that
misses) shows on the one after it. Profilers that document this advise reading a sample as the previous
instruction's; across a block boundary the previous instruction in address order may not have run, so the
first instruction of a block keeps its own samples.
"""

from __future__ import annotations

from dataclasses import replace

from asmcfg.model import Cfg, Profile


def credit_previous(cfg: Cfg) -> Cfg:
    """`cfg` with its method's measured heat moved one instruction back inside each block."""
    profile = cfg.method.profile
    if profile is None or profile.skid:
        return cfg
    instructions = cfg.method.instructions
    moved: dict[int, int] = {}
    for block in cfg.blocks:
        for i in range(block.start, block.end):
            moved[instructions[i].address] = instructions[max(i - 1, block.start)].address
    heat: dict[int, tuple[float, ...]] = {}
    samples: dict[int, int] = {}
    for address, values in profile.heat.items():
        to = moved.get(address, address)
        old = heat.get(to)
        heat[to] = values if old is None else tuple(a + b for a, b in zip(old, values, strict=False))
        if address in profile.samples:
            samples[to] = samples.get(to, 0) + profile.samples[address]
    shifted: Profile = replace(profile, heat=heat, samples=samples, skid=True)
    return replace(cfg, method=replace(cfg.method, profile=shifted))
