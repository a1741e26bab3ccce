"""What a run's other files put on the compilations read from its input, as interfaces: the heat `--profile` (JMH
perfasm output, or `perf script` text) and a record folder's samples measured (`HeatSource`), and the records of a
`--log` (`CompileLog`).

A JMH saveLog's percentage columns are read with the input itself (`Dialect.methods`). The files are read by
`dialects.heatfiles`; the sources are `perfasm.profile.Perfasm` (`Profiled`) and `perfscript.heat.PerfHeat`
(`Recording`), whose folders no code outside `dialects/` imports.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from asmcfg.model import Compiler, Header, Method, Profile, Unprinted


class CompileLog(Protocol):
    """A LogCompilation log of the same run (`--log`): its trap records and inlining decisions per compile id."""

    def attach(self, method: Method, strict: bool = False) -> Method:
        """`method` with the log's records of its compile id. When the log's task of that id is another method (a log
        of another run), the method is returned as it was, or, with `strict`, that is an error."""
        ...


class Measured(Protocol):
    """One compilation a profile measured: what names it, and its heat."""

    @property
    def header(self) -> Header:
        """The compilation as the profile names it (compile id and version when printed)."""
        ...

    @property
    def key(self) -> str:
        """Identity within the file (`run 1: compile id 568`)."""
        ...

    @property
    def profile(self) -> Profile:
        """The measured heat."""
        ...


@dataclass(frozen=True, slots=True)
class OverlayReport:
    """Whether a source's heat fits a method, and how well."""

    matched: bool
    """True when every sampled address lands on an instruction and the names agree."""
    candidate: Measured | None
    """The profile whose addresses land best (None when there were no profiles, or for a recording)."""
    sampled: int
    """Sampled addresses in the candidate."""
    landed: int
    """Of those, the ones that are instruction addresses of the method."""
    missed: tuple[int, ...] = field(repr=False)
    """Sampled addresses that land on no instruction."""
    heat: tuple[float, ...]
    """Percent of the run per event that landed."""
    message: str
    """One sentence for the user."""


class HeatSource(ABC):
    """Heat of one run, measured apart from its compiled code, put on the compilations read from it."""

    __slots__ = ()

    @abstractmethod
    def put(self, method: Method) -> tuple[Method, OverlayReport]:
        """`method` with the heat this source measured of it (unchanged when none fits), and how it fitted."""

    def measure(self, method: Method) -> Method:
        """`method` with its heat before a compilation is chosen, where the source knows a compilation by its
        compile id alone (the choice rule then picks the hottest); unchanged where it does not."""
        return method


class Profiled(HeatSource):
    """The heat a profiler printed of some compilations, each known by the addresses its samples hit (perfasm)."""

    __slots__ = ()

    profiles: Sequence[Measured]
    """The compilations it printed, with their heat."""
    unprinted: list[Unprinted]
    """Compilations it measured but printed no line of."""

    @abstractmethod
    def hottest_unprinted(self) -> int | None:
        """The compile id of the run's hottest compilation when it printed none of it, else None."""


@dataclass(frozen=True, slots=True)
class Sampled:
    """One compilation that took samples of a recording."""

    compile_id: int
    """Its compile id."""
    compiler: Compiler
    """C1, C2 or a native wrapper."""
    level: int | None
    """Tier."""
    kind: str
    """`osr`, `c2n` or empty."""
    method: str
    """`pkg.Class::name`."""
    samples: int
    """Samples it took."""
    printed: bool
    """True when the log holds its code."""


class Recording(HeatSource):
    """The samples of one recorded JVM (`perf script`), binned to the compilations of its log by compile id."""

    __slots__ = ()

    source: str
    """The samples' file, as named."""
    unparsed: int
    """Lines of the samples' file that were no sample."""

    @property
    @abstractmethod
    def pid(self) -> int:
        """The JVM's process id."""

    @property
    @abstractmethod
    def events(self) -> tuple[str, ...]:
        """The recorded events, in the order they first appear."""

    @property
    @abstractmethod
    def total(self) -> int:
        """The JVM's samples, every event together."""

    @property
    @abstractmethod
    def places(self) -> Mapping[str, int]:
        """The JVM's samples per place label (`nmethod`, `libjvm.so`, `other: libc.so.6`)."""

    @property
    @abstractmethod
    def others(self) -> Mapping[int, int]:
        """The samples of the recording's other processes, per process id."""

    @property
    @abstractmethod
    def code_cache(self) -> Mapping[str, int]:
        """Samples in JIT-made code that is no compilation, per name."""

    @abstractmethod
    def share(self, count: int) -> float:
        """`count` samples as a percent of the JVM's."""

    @abstractmethod
    def sampled(self) -> list[Sampled]:
        """The compilations that took samples, hottest first (ties: the later compile id)."""

    def shares(self) -> dict[int, float]:
        """Each sampled compile id's share of the JVM's samples."""
        return {each.compile_id: self.share(each.samples) for each in self.sampled()}
