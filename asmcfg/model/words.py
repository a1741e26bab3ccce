"""asmcfg's vocabularies as types: block tags, checks, compilers, log verdicts, dialect, ISA and syntax names,
layout features, call kinds, loop copy roles, vector instruction sets and runtime path kinds.

Every vocabulary is a `Word` enum, whose members ARE their text: they hash, compare, print and format as the
string they stand for (`"loop_header" in tags` holds for `Tag.LOOP_HEADER`, `f"{tag}"` is `loop_header`) and
the JSON writer serialises them as that string. A plain `(str, Enum)` gives none of that for sure: its
`format()` and `str()` spell `Cls.NAME`, so an f-string would change the output without an error.
"""

from __future__ import annotations

import enum


class Word(str, enum.Enum):
    """A member of one of asmcfg's vocabularies; it is its value for hashing, equality, `str()` and `format()`."""

    __hash__ = str.__hash__

    def __str__(self) -> str:
        return str.__str__(self)

    def __format__(self, spec: str) -> str:
        return str.__format__(self, spec)


class Tag(Word):
    """What a block is for; members in the order labels list them (and the legend shows them)."""

    ENTRY = "entry"
    VERIFIED_ENTRY = "verified_entry"
    OSR_ENTRY = "osr_entry"
    LOOP_HEADER = "loop_header"
    SAFEPOINT_POLL = "safepoint_poll"
    RETURN_POLL = "return_poll"
    RANGE_CHECK = "range_check"
    NULL_CHECK = "null_check"
    UNCOMMON_TRAP = "uncommon_trap"
    EXCEPTION_HANDLER = "exception_handler"
    DEOPT_HANDLER = "deopt_handler"
    STUB = "stub"
    IC_MISS = "ic_miss"
    PADDING = "padding"
    VECTOR = "vector"
    JAVA_CALL = "java_call"
    RUNTIME_CALL = "runtime_call"
    TYPE_CHECK = "type_check"
    ALLOCATION = "allocation"
    ALLOCATION_SLOW = "allocation_slow"
    LOCK = "lock"
    LOCK_SLOW = "lock_slow"
    UNLOCK = "unlock"
    UNLOCK_SLOW = "unlock_slow"
    GC_BARRIER = "gc_barrier"
    GC_BARRIER_SLOW = "gc_barrier_slow"


class Check(Word):
    """What a check edge guards: the reason of the trap its failure path ends in."""

    RANGE = "range_check"
    NULL = "null_check"

    @property
    def tag(self) -> Tag:
        """The tag of the blocks on the check's failure path."""
        return Tag(self.value)


class Compiler(Word):
    """Which compiler made a compilation (`Compiled method (c2)`, the log's `compiler=`, a banner)."""

    C1 = "c1"
    C2 = "c2"
    JVMCI = "jvmci"
    FALCON = "falcon"
    """Azul's Falcon (perfasm names its code `…[Falcon]`)."""
    NATIVE = "native"
    """A native wrapper (`nm`, `c2n`)."""
    STUB = "stub"
    """Generated code perfasm names (`StubRoutines::…`)."""
    UNKNOWN = "unknown"

    @classmethod
    def named(cls, text: str) -> Compiler:
        """The compiler `text` names (any case; `nm`, `n/a` are native wrappers), UNKNOWN for anything else."""
        text = text.strip().lower()
        text = {"nm": "native", "n/a": "native"}.get(text, text)
        return cls(text) if text in cls._value2member_map_ else cls.UNKNOWN


class Verdict(Word):
    """What a LogCompilation log says of one decoded trap."""

    AGREES = "agrees"
    """A record of the compiler names the same scope, bci, reason and action."""
    DIFFERS = "differs"
    """Records at that scope and bci name another reason or action."""
    UNLOGGED = "unlogged"
    """The compiler logged no trap there."""
    NO_RECORDS = "no_records"
    """The compiler logs no trap records at all (a JVMCI compiler such as Graal): only firings are compared."""


class TrapOrigin(Word):
    """Where an `<uncommon_trap>` record of the log comes from."""

    PARSE = "parse"
    """The compiler emitted the trap (in `<task>`)."""
    RUNTIME = "runtime"
    """The trap fired (in `<tty>`)."""


class DialectName(Word):
    """An input dialect's name, as `--input-format` takes it and the JSON's `dialect` writes it."""

    HSDIS = "hsdis"
    MACHCODE = "machcode"
    LOGCOMPILATION = "logcompilation"
    PERFASM = "perfasm"


class IsaName(Word):
    """An instruction set."""

    X86_64 = "x86_64"
    X86_32 = "x86_32"
    AARCH64 = "aarch64"


class Syntax(Word):
    """How instructions are spelled."""

    ATT = "att"
    INTEL = "intel"
    AARCH64 = "aarch64"


class Feature(Word):
    """A property of a method's printed layout that dates the JDK or limits what can be read from it."""

    IMMUTABLE_DATA = "immutable_data"
    """An `immutable data` section: JDK 24+."""
    POST_CALL_NOP = "post_call_nop"
    """`{post_call_nop}` relocations: JDK 21+."""
    REEXECUTE = "reexecute"
    """`{reexecute=…}` in the scope comments."""
    LEGACY = "legacy"
    """The JDK 8-12 layout (`Decoding compiled method`, no section table)."""
    PARTIAL = "partial"
    """Only part of the code was printed (perfasm's hottest regions)."""
    FRAGMENT = "fragment"
    """Code printed without the method it belongs to."""
    INTERLEAVED = "interleaved"
    """Another thread's output was printed inside the method."""
    INCOMPLETE = "incomplete"
    """The method's printout was cut short."""
    UNDATED_LAYOUT = "undated_layout"
    """PrintAssembly text (hsdis, LogCompilation) whose layout alone does not date the JDK: without other evidence
    (`{reexecute=…}`, `{post_call_nop}`, …) JDK 17 is assumed; other layouts are taken for JDK 13-23's."""
    DECODED = "decoded"
    """asmcfg decoded the instructions from `[MachCode]` hex itself, with a capstone that knows EVEX."""


class CallKind(Word):
    """What a call calls."""

    STATIC = "static"
    OPTIMIZED_VIRTUAL = "optimized_virtual"
    VIRTUAL = "virtual"
    INTERFACE = "interface"
    RUNTIME = "runtime"
    """A VM function."""
    STUB = "stub"
    """Generated code: StubRoutines, C2/C1 runtime stubs."""
    UNKNOWN = "unknown"

    @property
    def java(self) -> bool:
        """True for a call of a Java method (one C2 could have inlined)."""
        return self in _JAVA_CALLS


_JAVA_CALLS = frozenset({CallKind.STATIC, CallKind.OPTIMIZED_VIRTUAL, CallKind.VIRTUAL, CallKind.INTERFACE})


class LoopRole(Word):
    """What a natural loop is among C2's copies of a source loop."""

    NONE = ""
    """Not recognised."""
    PRE = "pre"
    MAIN = "main"
    POST = "post"
    DRAIN = "drain"
    """A vector post-loop."""
    STRIP_MINED_OUTER = "strip_mined_outer"


class VectorIsa(Word):
    """The instruction-set extension a vectorized loop's packed instructions need."""

    NONE = ""
    """Not vectorized (or not known to be)."""
    SSE = "sse"
    """x86 SSE: legacy-encoded `xmm` instructions."""
    AVX = "avx"
    """x86 AVX/AVX2: VEX-encoded `xmm`/`ymm` instructions."""
    AVX512 = "avx512"
    """x86 AVX-512: a `zmm` register, `xmm16`-`ymm31`, a mask register (`{%k7}`) or an EVEX-only mnemonic
    (`vmovdqu64`, `vpternlogd`)."""
    NEON = "neon"
    """AArch64 Advanced SIMD."""
    SVE = "sve"
    """AArch64 SVE (scalable vector length)."""


class PathKind(Word):
    """What a runtime path does."""

    GC_BARRIER = "gc_barrier"
    ALLOCATION = "allocation"
    LOCK = "lock"
    UNLOCK = "unlock"

    @property
    def fast_tag(self) -> Tag:
        """The tag of the blocks of its inline fast path."""
        return Tag(self.value)

    @property
    def slow_tag(self) -> Tag:
        """The tag of the block holding its slow-path call."""
        return Tag(f"{self.value}_slow")


class Drawn(Word):
    """How Graphviz drew a compilation for `--svg` and `--html`."""

    AS_ASKED = "drawn"
    """By the renderer asked for, loops as clusters."""
    WITHOUT_CLUSTERS = "without_clusters"
    """By the renderer asked for, once the loop clusters were left out."""
    OTHER_RENDERER = "other_renderer"
    """By the other renderer (system `dot` or graphviz-pure) after the one asked for failed."""
    NOT_DRAWN = "not_drawn"
    """By none: the page lists its blocks instead."""


class Place(Word):
    """Where a `perf` sample of a recorded JVM ran."""

    NMETHOD = "nmethod"
    """In a compilation of the log: the compiled code asmcfg draws."""
    JIT_COMPILER = "JIT compiler in compiled code"
    """In compiled code a JVMCI compiler thread ran: a Java JIT compiler's own work (jargraal's C1-compiled
    `jdk.graal.*` methods), not the program's."""
    CODE_CACHE = "code cache, not an nmethod"
    """In JIT-made code that is no compilation: the interpreter, `vtable chunks`, stubs, adapters."""
    LIBJVM = "libjvm.so"
    """In the JVM itself: the JIT compilers, the garbage collector, the runtime."""
    KERNEL = "kernel"
    """In the kernel."""
    OTHER = "other"
    """In another library (`libc.so.6`) or mapping."""


class Printing(Word):
    """Which compilations `asmcfg record` asks the JVM to print."""

    C2 = "c2"
    """Every C2 compilation (a compiler directives file with `c2: { PrintAssembly: true }`)."""
    METHOD = "method"
    """The compilations of one method pattern (`-XX:CompileCommand=print,PATTERN`), by every compiler."""
    ALL = "all"
    """All code the JVM compiles (`-XX:+PrintAssembly`)."""


class ChoiceRule(Word):
    """Why `Log.choose` chose a compilation: the most measured heat among the matching ones (`hottest`: perfasm, a
    JMH saveLog, a recording), else the last C2 one (`last_c2`), else the last (`last`); with a perfasm `--profile`
    and no criterion, the one most of its sampled addresses land on (`profile`) or the run's hottest, which perfasm
    did not print (`unprinted`)."""

    HOTTEST = "hottest"
    LAST_C2 = "last_c2"
    LAST = "last"
    PROFILE = "profile"
    UNPRINTED = "unprinted"


class NoteKind(Word):
    """What a `Log` tells (`Log.notes`): which JVM of a record folder is read; a decompression into the cache."""

    JVM_CHOSEN = "jvm_chosen"
    DECOMPRESSED = "decompressed"
