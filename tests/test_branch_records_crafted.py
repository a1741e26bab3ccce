"""`<branch>` records a crafted log repeats at one inlining chain, each with other figures: the jumps they are tied to
stay linear in the log, not records times jumps."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from asmcfg.facts import branch_profile
from asmcfg.model import LogBranch

CHAIN = (("p.C::m", 8),)


def test_many_records_of_one_chain_tie_the_first_few_to_its_jumps(monkeypatch: pytest.MonkeyPatch) -> None:
    records = tuple(LogBranch(1, "p.C::m", 8, 26, taken, 100, None, 10 + taken, CHAIN) for taken in range(2_000))
    result: Any = SimpleNamespace(cfg=SimpleNamespace(method=SimpleNamespace(log_branches=records)))
    monkeypatch.setattr(branch_profile, "_jumps_by_chain", lambda _: {CHAIN: set(range(2_000))})
    monkeypatch.setattr(branch_profile, "_trap_edges_by_chain", lambda _: {})
    sites = branch_profile.branch_sites(result)
    assert sites is not None and len(sites) == 2_000, "every record is listed"
    assert sum(len(site.blocks) for site in sites) == branch_profile.MOST_PER_CHAIN * 2_000
    assert sites[0].blocks == tuple(range(2_000)) and sites[-1].blocks == ()
