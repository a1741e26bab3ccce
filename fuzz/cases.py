"""The cases of a fuzz run: seeds cut from real dumps, and case N's bytes, always the same for a given --seed.

Cases go round the dialects in turn. One round of the dialects in DIFF_EVERY is of diff cases: two mutations
of seeds of the same dialect, read as the old and the new side of `asmcfg diff`; the others are single cases.
One case in GRAPHVIZ_EVERY has the real Graphviz draw its graphs (a process start each: too slow for every
case).
"""

from __future__ import annotations

import hashlib
import pickle
import random
import tempfile
from dataclasses import dataclass
from pathlib import Path

import mutations

MAX_SEED_BYTES = 60_000
SEEDS_PER_DIALECT = 80
DIFF_EVERY = 4
GRAPHVIZ_EVERY = 200


@dataclass(frozen=True, slots=True)
class Case:
    """One case's input."""

    number: int
    """Its number in the run."""
    dialect: str
    """The dialect the sniffer picks for its seed."""
    data: bytes
    """The mutated dump (the old side of a diff case)."""
    other: bytes | None
    """The new side of a diff case; None for a single case."""
    forced: str | None
    """The dialect to force (`--input-format`), or None to sniff."""

    @property
    def kind(self) -> str:
        """`diff` or `single`."""
        return "single" if self.other is None else "diff"

    @property
    def graphviz(self) -> bool:
        """Whether the real Graphviz draws this case's graphs."""
        return self.number % GRAPHVIZ_EVERY == 0

    @property
    def facts(self) -> bool:
        """Whether its `--jsonl` path writes `--facts` records rather than full ones."""
        return self.number % 2 == 1

    def files(self, folder: Path, stem: str = "case") -> list[Path]:
        """Write the case's input(s) into `folder`; the paths, old side first."""
        paths = [folder / f"{stem}.txt"] if self.other is None else [folder / f"{stem}.old.txt",
                                                                        folder / f"{stem}.new.txt"]
        for path, data in zip(paths, (self.data, self.other), strict=False):
            path.write_bytes(data or b"")
        return paths


def cached_seeds(roots: list[Path], cache: Path) -> dict[str, list[bytes]]:
    """build_seeds, kept in `cache` (a folder) for the same files of the same sizes and times, and the same
    asmcfg (cutting seeds reads every dump: over a minute)."""
    files = [(str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in mutations.corpus_files(*roots)]
    code = [(p.name, p.stat().st_mtime_ns) for p in sorted(Path(mutations.__file__).parent.glob("*.py"))]
    key = hashlib.sha1(repr((files, code, MAX_SEED_BYTES, SEEDS_PER_DIALECT)).encode()).hexdigest()[:16]
    path = cache / f"seeds-{key}.pickle"
    if path.exists():
        seeds: dict[str, list[bytes]] = pickle.loads(path.read_bytes())
        return seeds
    with tempfile.TemporaryDirectory() as folder:
        seeds = build_seeds(roots, Path(folder))
    path.write_bytes(pickle.dumps(seeds))
    return seeds


def build_seeds(roots: list[Path], folder: Path) -> dict[str, list[bytes]]:
    """Up to SEEDS_PER_DIALECT distinct seeds per dialect, spread over sizes up to MAX_SEED_BYTES."""
    found: dict[str, set[bytes]] = {}
    for path in mutations.corpus_files(*roots):
        data = mutations.read_bytes(path)
        if len(data) > 40 * MAX_SEED_BYTES:
            continue
        windows = mutations.windows(data, folder)
        found.setdefault(mutations.dialect_of(data), set()).update(w for w in windows if len(w) <= MAX_SEED_BYTES)
    seeds: dict[str, list[bytes]] = {}
    for dialect, group in found.items():
        ordered = sorted(group, key=lambda w: (len(w), w))
        step = max(1, len(ordered) // SEEDS_PER_DIALECT)
        seeds[dialect] = ordered[::step][:SEEDS_PER_DIALECT]
    return seeds


def make_case(number: int, seeds: dict[str, list[bytes]], run_seed: int) -> Case:
    """Case `number` of the run seeded `run_seed`."""
    rng = random.Random(f"{run_seed}:{number}")
    names = sorted(seeds)
    dialect = names[number % len(names)]
    data = mutations.mutate(rng.choice(seeds[dialect]), rng, rng.randint(1, 6))
    other = None
    if (number // len(names)) % DIFF_EVERY == DIFF_EVERY - 1:
        other = mutations.mutate(rng.choice(seeds[dialect]), rng, rng.randint(0, 4))
    return Case(number, dialect, data, other, dialect if rng.random() < 0.3 else None)


def save(case: Case, kind: str, key: str, out: Path) -> str:
    """Save the first case of finding `key` under `out` (unless a worker has already); the saved name."""
    name = f"{kind}-{hashlib.sha1(key.encode()).hexdigest()[:10]}"
    stem = f"{name}-case{case.number}"
    if not any(out.glob(f"{name}-case*.txt")):
        case.files(out, stem)
    return str(out / f"{stem}.txt") if case.other is None else str(out / f"{stem}.old.txt")
