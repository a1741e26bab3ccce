"""C1 patching sites in `[MachCode]` hex: found from their stubs, decoded as the instruction they hold.

C1 compiles a field access or class load it cannot resolve yet as an instruction with a zero placeholder
(often a 10-byte `movabs`), copies it into a patching stub and writes a 5-byte `jmp` to the stub over its
first bytes; the rest of the instruction's bytes are dead until the first execution patches the site back.
Decoding straight through such a site gives phantom instructions (`addb %al,(%rax)`), phantom branches into
the middle of real instructions and loses the real instructions after it; the stub's jump back to the site
makes a bogus loop. The stub says exactly where the site is and how long it is (x86
`PatchingStub::emit_code`): `movl $0x00XXYYZZ, %eax` (the patch record: ZZ bytes were copied, YY bytes of
the stub lie between the copy and the call), `call` the patching runtime stub, `jmp` back to the site.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, replace

from asmcfg.dialects.machcode.hexdump import DATA, Decoded, sweep
from asmcfg.model import Instruction, IsaName, Syntax

_RECORD = re.compile(rb"\xb8\x00(.)(.)(.)\xe8(.{4})\xe9(.{4})", re.S)
_JMP = 5
"""Size of the `jmp rel32` C1 writes over the site."""


@dataclass(frozen=True, slots=True)
class Site:
    """One patching site and where its stub keeps the original bytes."""

    address: int
    """First byte of the site: where the `jmp` to the stub is."""
    size: int
    """Bytes of the patched instruction(s); decoding resumes at `address + size`."""
    copy: int
    """Address of the stub's copy of those bytes (what the site holds once patched)."""
    call: int
    """Address of the stub's call to the patching runtime stub (the site's `jmp` target)."""


def sites(regions: list[tuple[int, bytes]]) -> dict[int, Site]:
    """The patching sites of an x86 method's byte regions, by address; only those the bytes confirm."""
    memory = _Memory(regions)
    found: dict[int, Site] = {}
    for start, data in regions:
        for match in _RECORD.finditer(data):
            skip, size = match.group(2)[0], match.group(3)[0]
            call = start + match.start() + 5
            site = call + 10 + int.from_bytes(match.group(5), "little", signed=True)
            if size >= _JMP and memory.jumps_to(site, call) and memory.holds(call - skip - size, size):
                found[site] = Site(site, size, call - skip - size, call)
    return found


class _Memory:
    """The method's bytes by address."""

    def __init__(self, regions: list[tuple[int, bytes]]) -> None:
        self.regions = regions

    def read(self, address: int, size: int) -> bytes | None:
        for start, data in self.regions:
            if start <= address and address + size <= start + len(data):
                return data[address - start : address - start + size]
        return None

    def holds(self, address: int, size: int) -> bool:
        return self.read(address, size) is not None

    def jumps_to(self, site: int, target: int) -> bool:
        """True when the bytes at `site` are `jmp rel32` to `target`."""
        code = self.read(site, _JMP)
        if code is None or code[0] != 0xE9:
            return False
        return site + _JMP + int.from_bytes(code[1:], "little", signed=True) == target


def decode(regions: list[tuple[int, bytes]], isa: IsaName, syntax: Syntax) -> tuple[list[Decoded], dict[int, Site]]:
    """Sweep `regions`; on x86, each patching site is decoded as the instruction(s) its stub's copy holds and
    the code after it from its real start. Also the sites so decoded, by address."""
    found = sites(regions) if isa is IsaName.X86_64 else {}
    starts = {a for site in found.values() for a in (site.address, site.address + site.size)}
    decoded = [d for start, data in regions for d in sweep(data, start, isa, syntax, starts)]
    if not found:
        return decoded, found
    memory = _Memory(regions)
    patched: dict[int, Site] = {}
    out: list[Decoded] = []
    for unit in decoded:
        site = _site_of(found, unit.address)
        if site is None:
            out.append(unit)
            continue
        if unit.address != site.address:
            continue  # the rest of the site: replaced below or kept as the dead bytes they are
        copy = sweep(memory.read(site.copy, site.size) or b"", site.address, IsaName.X86_64, syntax)
        if copy and all(d.mnemonic != DATA for d in copy) and sum(d.size for d in copy) == site.size:
            out.extend(copy)
            patched[site.address] = site
        else:
            out.extend(d for d in decoded if site.address <= d.address < site.address + site.size)
    return out, patched


def _site_of(found: dict[int, Site], address: int) -> Site | None:
    """The site whose bytes include `address`."""
    starts = sorted(found)
    index = bisect_right(starts, address) - 1
    site = found[starts[index]] if index >= 0 else None
    return site if site is not None and address < site.address + site.size else None


def mark(instructions: tuple[Instruction, ...], patched: dict[int, Site]) -> tuple[Instruction, ...]:
    """Each patched site's first instruction, with the stub call its `jmp` goes to until patched."""
    if not patched:
        return instructions
    return tuple(
        replace(ins, patching_stub=patched[ins.address].call) if ins.address in patched else ins
        for ins in instructions
    )
