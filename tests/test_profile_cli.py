"""`--profile`: perfasm heat put onto the full graph of a dump of the same run, from the command line."""

from __future__ import annotations

import pytest
from corpus import DATA, json_methods, run_cli

DEVBENCH = DATA / "perfasm" / "jdk25-DevBench"
SAVELOG = DEVBENCH / "perfasm-savelog-switchRun.log.xz"
CONSOLE25 = DEVBENCH / "perfasm-console.txt"
CONSOLE17 = DATA / "perfasm" / "jdk17-DevBench" / "perfasm-console.txt"


@pytest.mark.slow
def test_overlay_puts_measured_heat_and_ranked_paths_on_the_whole_graph() -> None:
    (method,) = json_methods(str(SAVELOG), "--profile", str(CONSOLE25), "--paths", "2")
    assert method["compile_id"] == 568
    profile = method["profile"]
    assert profile["matched"] and profile["events"] == ["cpu-clock"]
    assert abs(profile["method_share"]["cpu-clock"] - 89.29) < 0.02
    heated = [b for b in method["blocks"] if b["heat"]["cpu-clock"] > 0]
    assert heated and len(heated) < len(method["blocks"])
    total = sum(b["heat"]["cpu-clock"] for b in method["blocks"])
    assert abs(total - profile["method_share"]["cpu-clock"]) < 0.02
    assert len(method["hot_paths"]) == 2
    top = method["hot_paths"][0]
    hottest = max(method["blocks"], key=lambda b: b["heat"]["cpu-clock"])
    assert hottest["id"] in top["blocks"]
    loops = [set(loop["blocks"]) for loop in method["loops"]]
    assert any(hottest["id"] in body for body in loops)


@pytest.mark.slow
def test_profile_of_another_run_is_reported_and_not_applied() -> None:
    code, _, err = run_cli(str(SAVELOG), "--profile", str(CONSOLE17), "--dot", "-")
    assert code == 0
    assert "profile NOT applied" in err and "different run" in err
    (method,) = json_methods(str(SAVELOG), "--profile", str(CONSOLE17))
    assert "profile" not in method and "heat" not in method["blocks"][0]
