"""What a recording says of the whole JVM: where its samples ran, and its hottest compilations."""

from __future__ import annotations

from dataclasses import dataclass

from asmcfg.dialects.heat import Recording, Sampled
from asmcfg.model import Place

NAMED = 3
"""Names shown inside a place (the busiest stubs, libraries)."""


@dataclass(frozen=True, slots=True)
class PlaceShare:
    """The JVM's samples in one place."""

    place: Place
    """Where they ran."""
    samples: int
    """How many."""
    share: float
    """Percent of the JVM's samples."""
    parts: tuple[tuple[str, float], ...]
    """The busiest names inside it (a stub, a library) with their percent of the JVM's samples."""


@dataclass(frozen=True, slots=True)
class HotCompilation:
    """One compilation that took samples, with its share of the JVM's."""

    sampled: Sampled
    """What it is and how many samples it took."""
    share: float
    """Percent of the JVM's samples."""


def places(heat: Recording) -> list[PlaceShare]:
    """The JVM's samples per place, in the order of `Place`, with the busiest names inside each."""
    rows = []
    for place in Place:
        counts: dict[str, int] = {}
        for label, count in heat.places.items():
            if label == place.value or (place is Place.OTHER and label.startswith(f"{Place.OTHER.value}: ")):
                counts[label.removeprefix(f"{Place.OTHER.value}: ")] = count
        if place is Place.CODE_CACHE:
            counts = dict(heat.code_cache)
        total = sum(counts.values()) if place in (Place.CODE_CACHE, Place.OTHER) else heat.places.get(place.value, 0)
        if not total:
            continue
        named = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:NAMED]
        parts = tuple((name, heat.share(n)) for name, n in named) if place in (Place.CODE_CACHE, Place.OTHER) else ()
        rows.append(PlaceShare(place, total, heat.share(total), parts))
    return rows


def hottest(heat: Recording, count: int) -> list[HotCompilation]:
    """The `count` compilations that took the most samples."""
    return [HotCompilation(c, heat.share(c.samples)) for c in heat.sampled()[:count]]
