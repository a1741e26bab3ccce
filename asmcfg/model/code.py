"""The records of the parsed code and its graph: instructions, methods, blocks and edges."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from asmcfg.model.make import quick
from asmcfg.model.words import Compiler, DialectName, Feature, IsaName, Syntax, Word

if TYPE_CHECKING:
    from asmcfg.model.log import LogBranch, LogInline, LogTrap
    from asmcfg.model.profile import Profile


class EdgeKind(Word):
    """How control reaches the target block."""

    FALLTHROUGH = "fallthrough"
    TAKEN = "taken"
    JUMP = "jump"
    EXCEPTION = "exception"
    INDIRECT = "indirect"


class Flow(Word):
    """What an instruction does to control flow, as the ISA table says."""

    NONE = "none"
    COND = "cond"
    JUMP = "jump"
    INDIRECT = "indirect"
    CALL = "call"
    RETURN = "return"
    HALT = "halt"


@dataclass(frozen=True, slots=True)
class SourceLoc:
    """Where something was printed in the input: the input's name and a line number."""

    path: str
    """Input name (path or `<stdin>`)."""
    line: int
    """Line number from 1; 0 when no line is known."""

    def __str__(self) -> str:
        """`path:line`, as the summaries name a place."""
        return f"{self.path}:{self.line}"

    def as_dict(self) -> dict[str, str | int]:
        """`source` and `line`, as the JSON model writes them."""
        return {"source": self.path, "line": self.line}


@dataclass(frozen=True, slots=True)
class Frame:
    """One level of an inlining chain: `; - pkg.Class::m@bci (line N)`."""

    method: str
    """The method, as printed (`pkg.Class::m`)."""
    bci: int
    """Bytecode index inside that method."""
    line: int | None
    """Java source line, when the JVM printed one."""

    def as_dict(self) -> dict[str, str | int | None]:
        """The frame's fields by name, as the JSON model writes them."""
        return {"method": self.method, "bci": self.bci, "line": self.line}


@dataclass(frozen=True, slots=True)
class Instruction:
    """One machine instruction with what HotSpot printed beside it."""

    address: int
    """Address of the first byte."""
    mnemonic: str
    """Mnemonic as printed, prefixes included (`lock cmpxchgl`)."""
    operands: str
    """Operand text as printed, comment removed."""
    line: int
    """Line number in the input where the instruction was printed."""
    comment: str = ""
    """The whole comment, continuation lines joined by newlines."""
    relocs: tuple[str, ...] = ()
    """Relocation texts without braces (`runtime_call UncommonTrapBlob`, `poll`)."""
    bytecode: str = ""
    """Bytecode from the scope line (`aaload`, `invokevirtual foo`)."""
    frames: tuple[Frame, ...] = ()
    """Inlining chain, innermost first."""
    implicit_target: int | None = None
    """Handler of an implicit exception (`dispatches to 0x…`)."""
    size: int | None = None
    """Length in bytes when known (decoded from bytes or the next address)."""
    patching_stub: int | None = None
    """At a C1 patching site: the stub call that the `jmp` C1 wrote over the site goes to until the first
    execution patches it; the instruction itself is the stub's copy of what the site holds once patched."""

    @property
    def poll(self) -> bool:
        """True for a loop safepoint poll (`{poll}`)."""
        return "poll" in self.relocs

    @property
    def poll_return(self) -> bool:
        """True for a method-return safepoint poll (`{poll_return}`)."""
        return "poll_return" in self.relocs

    def as_dict(self, heat: dict[str, float] | None = None) -> dict[str, Any]:
        """The instruction as the JSON model writes it: what was printed, then `heat` (share per event) if
        measured, then its line."""
        item: dict[str, Any] = {"address": f"0x{self.address:x}", "mnemonic": self.mnemonic, "operands": self.operands}
        if self.relocs:
            item["relocs"] = list(self.relocs)
        if self.bytecode:
            item["bytecode"] = self.bytecode
        if self.frames:
            item["frames"] = [f.as_dict() for f in self.frames]
        if self.implicit_target is not None:
            item["implicit_exception"] = f"0x{self.implicit_target:x}"
        if self.patching_stub is not None:
            item["patching_stub"] = f"0x{self.patching_stub:x}"
        if heat is not None:
            item["heat"] = heat
        item["line"] = self.line
        return item

    def runtime_call(self) -> str:
        """The `runtime_call` target named in the comment, or an empty string."""
        for reloc in self.relocs:
            if reloc.startswith("runtime_call"):
                return reloc[len("runtime_call") :].strip()
        return ""



@dataclass(frozen=True, slots=True)
class Header:
    """The `Compiled method (c2) …` line, or what is known without one."""

    compiler: Compiler
    """`c1`, `c2`, `jvmci`, `native`, `stub` (perfasm) or `unknown`."""
    compile_id: int | None
    """Compile id, None when the layout does not print it."""
    level: int | None
    """Tier level (1-4), None without tiered compilation."""
    flags: str
    """Attribute characters present: `%` OSR, `s` synchronized, `!` handlers, `b`, `n`."""
    name: str
    """`pkg.Class::method` as printed."""
    osr_bci: int | None
    """Bytecode index of an OSR compilation's entry."""
    bytecode_size: int | None
    """Size of the method's bytecode (`(97 bytes)`)."""
    timestamp: int | None = None
    """Milliseconds since VM start."""
    line: int = 0
    """Line of the header in the input."""


@dataclass(frozen=True, slots=True)
class Unprinted:
    """A compilation perfasm measured but printed no line of (`<region is too big to display …>`)."""

    header: Header
    """The compilation as the region title names it."""
    run: int
    """Run number in the perfasm file, from 1."""
    benchmark: str
    """The benchmark of that run, when JMH printed it."""
    region: int
    """N of its (first) `Hottest Region N`."""
    lines: int
    """Lines perfasm would have printed."""
    threshold: int
    """perfasm's `tooBigThreshold` in force."""
    events: tuple[str, ...]
    """Event names, one per share figure."""
    share: tuple[float, ...]
    """The compilation's share of the run per event."""
    parameters: str = ""
    """The JMH parameters of that run (`branches = 3`), when JMH printed them."""


@dataclass(frozen=True, slots=True)
class Method:
    """One compilation: header, instructions and the markers between them."""

    header: Header
    """What the compilation is."""
    instructions: tuple[Instruction, ...]
    """Instructions in address order as printed."""
    markers: tuple[tuple[int, str], ...]
    """(instruction index, label) for each section marker (`Verified Entry Point`)."""
    source: str
    """Input name (path or `<stdin>`)."""
    isa: IsaName
    """`x86_64`, `x86_32` or `aarch64`."""
    syntax: Syntax
    """`att`, `intel` or `aarch64`."""
    code_begin: int | None = None
    """Start of `main code` from the section table."""
    code_end: int | None = None
    """End of `stub code` (or `main code`) from the section table."""
    main_code_size: int | None = None
    """Bytes of `main code`, HotSpot's insts section (`nmethod::insts_size()`): the section table's `main code` row,
    else a LogCompilation `<nmethod>` record's `insts_offset` to its next section; None when the input says neither
    (the stubs after it are not counted). Every code size asmcfg shows is this one."""
    constants: tuple[tuple[int, int], ...] = ()
    """Constant-pool rows as (address, 8-byte value), where jump tables live."""
    jdk_hint: int | None = None
    """JDK feature version the layout or a nearby banner names, if any."""
    skipped: tuple[tuple[int, str], ...] = ()
    """Unparseable lines inside the method: (line, text)."""
    dialect: DialectName = DialectName.HSDIS
    """Name of the dialect that read it."""
    profile: Profile | None = None
    """Measured heat, when a perfasm profile was read or overlaid."""
    features: frozenset[Feature] = frozenset()
    """Layout features seen (`immutable_data`, `post_call_nop`, `legacy`, `reexecute`, `partial`, …)."""
    log_traps: tuple[LogTrap, ...] | None = None
    """The LogCompilation log's `<uncommon_trap>` records of this compilation; None when there is no such log."""
    log_inlines: tuple[LogInline, ...] | None = None
    """The log's inlining decisions of this compilation (its `<task>`'s parse tree); None when there is no log."""
    log_branches: tuple[LogBranch, ...] | None = None
    """The log's `<branch>` records of this compilation (the branch profile C2 read); None when there is no log."""
    skipped_beyond: int = 0
    """Lines not understood inside the method beyond those `skipped` keeps (the first 1,000): only counted."""

    @property
    def skipped_total(self) -> int:
        """All the lines not understood inside the method, those kept and those only counted."""
        return len(self.skipped) + self.skipped_beyond

    @property
    def loc(self) -> SourceLoc:
        """Where the compilation was printed: the input and the line of its header."""
        return SourceLoc(self.source, self.header.line)

    def at(self, line: int) -> SourceLoc:
        """A place in the input the method was read from."""
        return SourceLoc(self.source, line)


@dataclass(frozen=True, slots=True)
class Block:
    """A basic block: a run of instructions entered only at the top."""

    id: int
    """Block number, in address order from 0."""
    start: int
    """Index of the first instruction in the method."""
    end: int
    """Index one past the last instruction."""


@dataclass(frozen=True, slots=True)
class Edge:
    """A control-flow edge between blocks, or from a block to a named exit."""

    src: int
    """Source block id."""
    dst: int | str
    """Target block id, or the name of an exit node (`SafepointBlob`)."""
    kind: EdgeKind
    """How control gets there."""
    site: int
    """Index of the instruction that makes the edge."""

    def as_dict(self, check: str | None = None) -> dict[str, Any]:
        """The edge as the JSON model writes it, with the check it makes (`range_check`, `null_check`) if any."""
        return {"from": self.src, "to": self.dst, "kind": self.kind, "check": check}


@dataclass(frozen=True, slots=True)
class Cfg:
    """Blocks and edges of one method."""

    method: Method
    """The method the graph was built from."""
    blocks: tuple[Block, ...]
    """Blocks in address order."""
    edges: tuple[Edge, ...]
    """Edges in a stable order (by source, then site)."""
    roots: tuple[int, ...]
    """Blocks control enters from outside: entries and handlers."""


for _hot in (Instruction, Block, Edge):  # a call, not a decorator: mypyc keeps a decorated class out of C
    quick(_hot)
