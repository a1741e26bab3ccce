"""Measured heat: what a JMH perfasm profile, or the `perf` samples of a recorded run, say of one compilation."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Profile:
    """Measured heat for one compilation, from JMH perfasm or from `perf script` samples."""

    source: str
    """The perfasm or `perf script` file it came from."""
    events: tuple[str, ...]
    """Event names, one per percentage column (`cycles`, `cpu-clock`)."""
    heat: dict[int, tuple[float, ...]]
    """Percent of each event per instruction address."""
    region_totals: tuple[tuple[float, ...], ...] = ()
    """The `<total for region N>` figures perfasm printed for this compilation's regions."""
    method_share: tuple[float, ...] | None = None
    """The compilation's share of the run per event, where perfasm printed it."""
    regions: tuple[RegionHeat, ...] = ()
    """The perfasm regions of this compilation: what each totals and what its printed lines hold."""
    samples: dict[int, int] = field(default_factory=dict)
    """Samples per instruction address, every event together, when the heat was counted from `perf` samples
    (empty for perfasm's percentages); `heat` is then each event's samples as a percent of the process's."""
    skid: bool = False
    """True when each sample was credited to the instruction before the one it names (`--skid previous`)."""

    @property
    def run_share(self) -> tuple[float, ...]:
        """The compilation's share of the run per event: perfasm's `Hottest Methods` row, else the sum of its
        region totals, else the sum of its instructions' heat."""
        if self.method_share is not None:
            return self.method_share
        width = len(self.events)
        rows = self.region_totals or tuple(self.heat.values())
        return tuple(sum(row[i] for row in rows if i < len(row)) for i in range(width))


@dataclass(frozen=True, slots=True)
class RegionHeat:
    """One `[Hottest Region N]` of a compilation: its total against the samples its printed lines show."""

    number: int
    """N of `Hottest Region N`."""
    total: tuple[float, ...]
    """The `<total for region N>` percentages: every sample in the region's address range."""
    printed: tuple[float, ...]
    """The percentages printed on the region's lines of this compilation, summed per event."""
    misdecoded: int = 0
    """Lines `.byte 0x62` (the first byte of an EVEX instruction hsdis could not decode)."""
    too_big: int = 0
    """Lines of a region perfasm did not print (`<region is too big to display, has N lines …>`), else 0."""
    spilled: tuple[float, ...] = ()
    """The percentages printed on the region's lines of other code it runs into (a stub), counted in its total."""
