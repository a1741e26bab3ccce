"""Property tests over mutated real dumps: a fixed-seed slice of fuzz/fuzz.py that runs in CI.

Seeds are methods cut from the dumps in tests/data, grouped by the dialect asmcfg's sniffer picks for them.
Hypothesis drives the mutations of fuzz/mutations.py (line deletions, duplications, truncations, byte flips,
shuffled comment lines, inserted junk, swapped runs, and fuzz/hostile.py's long lines, huge numbers, bad
character references, control and bidi characters in names) through a `random.Random` it controls, so a
failure shrinks to a short list of mutations. Each case goes through every path of fuzz/paths.py (the library
with its DOT and JSON, the terminal text, `--jsonl`, the `--html` page), two cases through `asmcfg diff`
(fuzz/diffpath.py). The last tests check the fuzzer itself: its crafted mutations, its page and terminal
properties, and its time limits.
"""

from __future__ import annotations

import random
import re
import signal
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from asmcfg import dialects
from asmcfg.errors import AsmcfgError
from asmcfg.render import dot
from asmcfg.render.html import PageOptions, write_html
from asmcfg.run.pipeline import analyse_method, open_input
from asmcfg.sources import diagnose

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fuzz"))
import diffpath  # these live in fuzz/, shared with the long run
import hostile
import mutations
import page
import paths
import properties
import servepath
import workers

DATA = Path(__file__).parent / "data"
FILES_PER_DIALECT = 4
SEEDS_PER_DIALECT = 8
MAX_SEED_BYTES = 60_000
EXAMPLES = 300
"""Hypothesis examples per dialect of the library path alone."""
PATH_EXAMPLES = 30
"""Per dialect, through every path (several times a library case's work)."""
DIFF_EXAMPLES = 20
"""Per dialect, through `asmcfg diff`."""
LONGEST = 1 << 14
"""CI's longest crafted line, 16 KiB (the long run's reach 1 MiB; each reader's own test feeds it a 1 MiB line)."""


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
    for dialect, dumps in files.items():
        chosen = _spread(dumps, FILES_PER_DIALECT)
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
    try:
        properties.run_case(str(path), forced)
    except AsmcfgError as error:
        paths.error_line(error, str(path))


def _every_path(folder: Path, data: bytes, forced: str | None, facts: bool) -> None:
    """As _check, through every path of a single case."""
    path = folder / "case.txt"
    path.write_bytes(data)
    try:
        paths.every_path(path, forced, facts)
    except AsmcfgError as error:
        paths.error_line(error, str(path))


def _diff(folder: Path, old: bytes, new: bytes, forced: str | None) -> None:
    """As _check, through `asmcfg diff OLD NEW`."""
    (folder / "old.txt").write_bytes(old)
    (folder / "new.txt").write_bytes(new)
    try:
        diffpath.check(str(folder / "old.txt"), str(folder / "new.txt"), forced)
    except AsmcfgError as error:
        paths.error_line(error, str(folder / "old.txt"))


_SETTINGS = settings(derandomize=True, deadline=None, database=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.slow
@pytest.mark.parametrize("dialect", dialects.DIALECTS)
def test_mutated_dumps_keep_every_property(seeds: dict[str, list[bytes]], folder: Path, dialect: str) -> None:
    @settings(_SETTINGS, max_examples=EXAMPLES)
    @given(seed=st.sampled_from(seeds[dialect]), rng=st.randoms(use_true_random=False),
           rounds=st.integers(1, 5), forced=st.booleans())
    def case(seed: bytes, rng: random.Random, rounds: int, forced: bool) -> None:
        _check(folder, mutations.mutate(seed, rng, rounds, LONGEST), dialect if forced else None)

    case()


@pytest.mark.slow
@pytest.mark.parametrize("dialect", dialects.DIALECTS)
def test_mutated_dumps_keep_every_property_on_every_path(seeds: dict[str, list[bytes]], folder: Path,
                                                         dialect: str) -> None:
    @settings(_SETTINGS, max_examples=PATH_EXAMPLES)
    @given(seed=st.sampled_from(seeds[dialect]), rng=st.randoms(use_true_random=False),
           rounds=st.integers(1, 5), forced=st.booleans(), facts=st.booleans())
    def case(seed: bytes, rng: random.Random, rounds: int, forced: bool, facts: bool) -> None:
        _every_path(folder, mutations.mutate(seed, rng, rounds, LONGEST), dialect if forced else None, facts)

    case()


@pytest.mark.slow
@pytest.mark.parametrize("dialect", dialects.DIALECTS)
def test_mutated_diffs_keep_every_property(seeds: dict[str, list[bytes]], folder: Path, dialect: str) -> None:
    @settings(_SETTINGS, max_examples=DIFF_EXAMPLES)
    @given(old=st.sampled_from(seeds[dialect]), new=st.sampled_from(seeds[dialect]),
           rng=st.randoms(use_true_random=False), rounds=st.integers(0, 4), forced=st.booleans())
    def case(old: bytes, new: bytes, rng: random.Random, rounds: int, forced: bool) -> None:
        _diff(folder, mutations.mutate(old, rng, rounds, LONGEST), mutations.mutate(new, rng, rounds, LONGEST),
              dialect if forced else None)

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


def _digit_runs(lines: list[bytes]) -> list[int]:
    return [len(m) for line in lines for m in re.findall(rb"\d+", line)]


def test_crafted_mutations_put_what_they_name_where_asmcfg_reads_it() -> None:
    rng = random.Random(7)
    lines = [b"<task compile_id='12' method='Foo bar ()V' bytes='30' stamp='0.105'>",
             b"  0x00007f0000000000:   jmp 0x7f00  ;*goto {reexecute=0}", b"  ; - Foo::bar@12 (line 34)"]
    for _ in range(50):
        grown = hostile.long_line(lines, rng, LONGEST)
        assert hostile.LONG_MIN <= max(map(len, grown)) - max(map(len, lines)) <= LONGEST + 40
        assert max(_digit_runs(hostile.huge_number(lines, rng))) >= 19
        referenced = b"\n".join(hostile.bad_reference(lines, rng))
        assert any(ref in referenced for ref in hostile.CHAR_REFERENCES)
        named = b"\n".join(hostile.control_in_name(lines, rng))
        assert any(re.search(rb"(?:::|method='|\.java)\S{0,3}" + re.escape(c), named) for c in hostile.CONTROLS)
    assert any(n > 4300 for _ in range(20) for n in _digit_runs(hostile.huge_number(lines, rng)))


def test_page_property_catches_a_script_a_handler_or_a_changed_policy(seeds: dict[str, list[bytes]],
                                                                      folder: Path) -> None:
    path = folder / "page.txt"
    path.write_bytes(seeds["hsdis"][0])
    stream = open_input(str(path))
    result = analyse_method(stream.complete(next(stream.methods)))
    good = paths.write_text(lambda out: write_html([result], out, PageOptions(paths.stub_svg)))
    page.check_report(good)
    bad = {
        "script": good.replace("<title>", "<title><script>alert(1)</script>", 1),
        "handler": good.replace('<g id="b0" class="node"', '<g id="b0" class="node" onmouseover="alert(1)"', 1),
        "element": good.replace("</template>", "<img src=x></template>", 1),
        "policy": good.replace("default-src 'none'", "default-src *", 1),
        "bidi": good.replace("<title>", "<title>\u202e", 1),
    }
    for name, page_text in bad.items():
        assert page_text != good, name
        with pytest.raises(properties.Violation):
            page.check_report(page_text)


def test_serve_property_catches_a_request_let_through(seeds: dict[str, list[bytes]], folder: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from asmcfg.serve import app

    path = folder / "serve.txt"
    path.write_bytes(seeds["hsdis"][0])
    servepath.check(path, None, paths.stub_svg)
    real = app.Handler._route

    def leaky(self: app.Handler, target: str, query: dict[str, list[str]]) -> None:
        if target.endswith("passwd"):  # a server that would read a file named by the request
            return self._send(app.HTTPStatus.OK, b"root:x:0:0\n", "text/plain")
        return real(self, target, query)

    with monkeypatch.context() as patched:
        patched.setattr(app.Handler, "_route", leaky)
        patched.setattr(servepath, "CRAFTED", ("/etc/passwd",))
        with pytest.raises(properties.Violation, match="etc/passwd"):
            servepath.check(path, None, paths.stub_svg)
    with monkeypatch.context() as patched:
        patched.setattr(app.Handler, "_cookie_ok", lambda self: True)  # a server that needs no cookie
        with pytest.raises(properties.Violation, match="without the cookie"):
            servepath.check(path, None, paths.stub_svg)


def test_terminal_property_catches_c0_c1_and_del_but_not_tabs_or_newlines() -> None:
    paths.check_terminal("B3 Foo::bar\tline 4\n", "summary")
    for raw in ("\x1b]0;title\x07", "\x1b[8m", "\u009b31m", "\x7f", "\x00"):
        with pytest.raises(properties.Violation):
            paths.check_terminal(f"Foo::{raw}bar", "summary")


def _stuck_or_busy(number: int, folder: Path, tally: workers.Tally) -> None:
    """Case 3 is stuck where no signal is handled, case 1 busy in Python; the others end at once."""
    tally.cases += 1
    try:
        if number == 3:
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
            time.sleep(120)
        while number == 1:
            pass
        tally.outcomes["ok"] += 1
    except workers.CaseTimeout:
        tally.found("slow", "slow in Python", number, lambda: "-")


def test_time_limits_stop_a_busy_case_and_kill_a_stuck_one_and_the_run_goes_on() -> None:
    lost: list[tuple[int, str]] = []

    def count_lost(number: int, kind: str, seconds: float, tally: workers.Tally) -> None:
        lost.append((number, kind))
        tally.cases += 1
        tally.slowest = max(tally.slowest, (seconds, number))
        tally.found(kind, "slow: killed", number, lambda: "-")

    tally = workers.run_all([(0, 5), (5, 8)], 1, _stuck_or_busy, count_lost, 0.3, 0, lambda _: None, hard=2.0)
    assert lost == [(3, "slow")]
    assert tally.cases == 8 and tally.outcomes["ok"] == 6 and tally.kinds["slow"] == 2
    assert tally.slowest[1] == 3 and tally.slowest[0] >= 2.0
    assert tally.peak_rss and all(kib > 0 for kib in tally.peak_rss.values())
