"""The records of the parsed code and its graph: instructions, methods, blocks and edges."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from asmcfg.model.profile import Profile


class EdgeKind(str, enum.Enum):
    """How control reaches the target block."""

    FALLTHROUGH = "fallthrough"
    TAKEN = "taken"
    JUMP = "jump"
    EXCEPTION = "exception"
    INDIRECT = "indirect"


class Flow(str, enum.Enum):
    """What an instruction does to control flow, as the ISA table says."""

    NONE = "none"
    COND = "cond"
    JUMP = "jump"
    INDIRECT = "indirect"
    CALL = "call"
    RETURN = "return"
    HALT = "halt"


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

    @property
    def poll(self) -> bool:
        """True for a loop safepoint poll (`{poll}`)."""
        return "poll" in self.relocs

    @property
    def poll_return(self) -> bool:
        """True for a method-return safepoint poll (`{poll_return}`)."""
        return "poll_return" in self.relocs

    def runtime_call(self) -> str:
        """The `runtime_call` target named in the comment, or an empty string."""
        for reloc in self.relocs:
            if reloc.startswith("runtime_call"):
                return reloc[len("runtime_call") :].strip()
        return ""


@dataclass(frozen=True, slots=True)
class Header:
    """The `Compiled method (c2) …` line, or what is known without one."""

    compiler: str
    """`c1`, `c2`, `jvmci`, or `unknown`."""
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


@dataclass(frozen=True, slots=True)
class LogTrap:
    """An `<uncommon_trap>` record of the log, to set beside the traps decoded from the code."""

    compile_id: int
    """The compilation it belongs to."""
    origin: str
    """`parse`: the compiler emitted the trap (in `<task>`); `runtime`: the trap fired (in `<tty>`)."""
    method: str
    """`pkg.Class::name` of the scope the trap is in (an inlined method for inlined code), or empty."""
    bci: int | None
    """Bytecode index in that method."""
    reason: str
    """Deoptimization reason (`range_check`)."""
    action: str
    """Deoptimization action (`make_not_entrant`)."""
    comment: str
    """The record's `comment` attribute, if any."""
    line: int
    """Line of the record in the log."""


@dataclass(frozen=True, slots=True)
class LogInline:
    """One inlining decision of a LogCompilation `<task>`: a `<call>` and its `<inline_success>`/`<inline_fail>`."""

    compile_id: int
    """The compilation it belongs to."""
    caller: str
    """`pkg.Class::name` of the method being parsed at the call (an inlined method for a call inside inlined code)."""
    bci: int | None
    """Bytecode index of the call in the caller (from the last `<bc>` of that parse)."""
    callee: str
    """`pkg.Class::name` of the method called (the `<call method=…>`)."""
    inlined: bool
    """True for `<inline_success>`, False for `<inline_fail>`."""
    reason: str
    """The record's reason (`inline (hot)`, `hot method too big`, `virtual call`, `no static binding`)."""
    line: int
    """Line of the decision in the log."""

    def as_dict(self) -> dict[str, str | int | bool | None]:
        """The decision's fields but its compile id, as the JSON model writes them."""
        return {"caller": self.caller, "bci": self.bci, "callee": self.callee, "inlined": self.inlined,
                "reason": self.reason, "line": self.line}


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
    isa: str
    """`x86_64`, `x86_32` or `aarch64`."""
    syntax: str
    """`att`, `intel` or `aarch64`."""
    code_begin: int | None = None
    """Start of `main code` from the section table."""
    code_end: int | None = None
    """End of `stub code` (or `main code`) from the section table."""
    constants: tuple[tuple[int, int], ...] = ()
    """Constant-pool rows as (address, 8-byte value), where jump tables live."""
    jdk_hint: int | None = None
    """JDK feature version the layout or a nearby banner names, if any."""
    skipped: tuple[tuple[int, str], ...] = ()
    """Unparseable lines inside the method: (line, text)."""
    dialect: str = "hsdis"
    """Name of the dialect that read it."""
    profile: Profile | None = None
    """Measured heat, when a perfasm profile was read or overlaid."""
    features: frozenset[str] = frozenset()
    """Layout features seen (`immutable_data`, `post_call_nop`, `legacy`, `reexecute`) that date the JDK."""
    log_traps: tuple[LogTrap, ...] | None = None
    """The LogCompilation log's `<uncommon_trap>` records of this compilation; None when there is no such log."""
    log_inlines: tuple[LogInline, ...] | None = None
    """The log's inlining decisions of this compilation (its `<task>`'s parse tree); None when there is no log."""


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
