"""Property tests over mutated real dumps: a fixed-seed slice of fuzz/fuzz.py that runs in CI.

Seeds are methods cut from the dumps in tests/data, grouped by the dialect asmcfg's sniffer picks for them.
Hypothesis drives the mutations of fuzz/mutations.py (line deletions, duplications, truncations, byte flips,
shuffled comment lines, inserted junk, swapped runs) through a `random.Random` it controls, so a failure
shrinks to a short list of mutations. Each case is read through the library path and rendered to DOT and JSON.
"""

from __future__ import annotations

import contextlib
import random
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from asmcfg import dialects
from asmcfg.errors import AsmcfgError
from asmcfg.render import dot
from asmcfg.sources import diagnose

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fuzz"))
import mutations  # these two live in fuzz/, shared with the long run
import properties

DATA = Path(__file__).parent / "data"
FILES_PER_DIALECT = 4
SEEDS_PER_DIALECT = 8
MAX_SEED_BYTES = 60_000
EXAMPLES = 500


def _spread(items: list[Path], count: int) -> list[Path]:
    """`count` items spread evenly over `items` (all of them when there are fewer)."""
    if len(items) <= count:
        return items
    return [items[round(n * (len(items) - 1) / (count - 1))] for n in range(count)]


def _seeds(folder: Path) -> dict[str, list[bytes]]:
    """Seeds per dialect: small methods cut from a spread of the files the sniffer gives that dialect."""
    files: dict[str, list[Path]] = {}
    for path in mutations.corpus_files(DATA):
        data = mutations.read_bytes(path)
        if len(data) <= 20 * MAX_SEED_BYTES:
            files.setdefault(mutations.dialect_of(data), []).append(path)
    seeds: dict[str, list[bytes]] = {}
    for dialect, paths in files.items():
        chosen = _spread(paths, FILES_PER_DIALECT)
        found = [w for p in chosen for w in mutations.windows(mutations.read_bytes(p), folder)]
        small = sorted({w for w in found if len(w) <= MAX_SEED_BYTES}, key=lambda w: (len(w), w))
        if small:
            seeds[dialect] = [small[round(n * (len(small) - 1) / max(1, SEEDS_PER_DIALECT - 1))]
                              for n in range(min(SEEDS_PER_DIALECT, len(small)))]
    return seeds


@pytest.fixture(scope="session")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scratch folder for the cases of this module (one per pytest-xdist worker)."""
    return tmp_path_factory.mktemp("fuzz")


@pytest.fixture(scope="session")
def seeds(folder: Path) -> dict[str, list[bytes]]:
    """The seeds, built once."""
    return _seeds(folder)


def test_every_dialect_has_seeds(seeds: dict[str, list[bytes]]) -> None:
    assert set(seeds) == set(dialects.DIALECTS), "a dialect without a sample in tests/data is not fuzzed"


@pytest.mark.parametrize("dialect", dialects.DIALECTS)
def test_unmutated_seeds_keep_every_property(seeds: dict[str, list[bytes]], folder: Path, dialect: str) -> None:
    for data in seeds[dialect]:
        path = folder / "seed.txt"
        path.write_bytes(data)
        assert properties.run_case(str(path)).methods >= 1


def _check(folder: Path, data: bytes, forced: str | None) -> None:
    """Run one case: an AsmcfgError is a fine answer, a Violation or any other exception fails the test."""
    path = folder / "case.txt"
    path.write_bytes(data)
    with contextlib.suppress(AsmcfgError):
        properties.run_case(str(path), forced)


@pytest.mark.slow
@pytest.mark.parametrize("dialect", dialects.DIALECTS)
def test_mutated_dumps_keep_every_property(seeds: dict[str, list[bytes]], folder: Path, dialect: str) -> None:
    @settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(seed=st.sampled_from(seeds[dialect]), rng=st.randoms(use_true_random=False),
           rounds=st.integers(1, 5), forced=st.booleans())
    def case(seed: bytes, rng: random.Random, rounds: int, forced: bool) -> None:
        _check(folder, mutations.mutate(seed, rng, rounds), dialect if forced else None)

    case()


@settings(max_examples=300, derandomize=True, deadline=None, database=None)
@given(st.lists(st.text(), max_size=40))
def test_diagnose_answers_every_sample_with_one_line_and_a_hint(sample: list[str]) -> None:
    found = diagnose.explain(sample)
    assert 0 <= found.line <= len(sample)
    assert "\n" not in found.message.replace("\r", "") and found.message.endswith(")")


@settings(max_examples=300, derandomize=True, deadline=None, database=None)
@given(st.text())
def test_quote_gives_one_closed_printable_ascii_dot_string(text: str) -> None:
    quoted = dot.quote(text)
    assert all(" " <= c <= "~" for c in quoted)
    assert re.fullmatch(r'"(?:[^"\\]|\\.)*"', quoted)
