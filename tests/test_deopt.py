"""Trap-request decoding against the reason tables (FORMATS.md section 4, checked on real JDK 17 and 25 VMs)."""

from __future__ import annotations

import pytest

from asmcfg.hotspot import deopt


@pytest.mark.parametrize(
    ("trap_request", "expected"),
    [
        (-28, {8: "range_check", 11: "range_check", 17: "range_check", 25: "range_check"}),
        (-138, {8: "speculate_class_check", 11: "loop_limit_check", 17: "predicate", 24: "predicate", 25: "age"}),
        (-10, {8: "null_check", 11: "null_check", 17: "null_check", 25: "null_check"}),
        (-66, {8: "unloaded", 11: "profile_predicate", 17: "profile_predicate", 25: "profile_predicate"}),
        (-146, {25: "predicate", 24: "loop_limit_check"}),
    ],
)
def test_worked_examples(trap_request: int, expected: dict[int, str]) -> None:
    for jdk, reason in expected.items():
        assert deopt.decode(trap_request, jdk)[0] == reason


def test_anchors_read_from_the_vms_through_jvmci() -> None:
    jdk25, jdk17 = deopt.table_for(25), deopt.table_for(17)
    assert [jdk25.index(r) for r in ("auto_vectorization_check", "constraint", "div0_check", "loop_limit_check")] == [
        9,
        15,
        16,
        19,
    ]
    assert jdk25.index("aliasing") == 26 and "rtm_state_change" not in jdk25
    assert [jdk17.index(r) for r in ("constraint", "div0_check", "loop_limit_check", "aliasing")] == [14, 15, 18, 26]
    assert deopt.table_for(11).index("tenured") == 29 and deopt.table_for(8)[-1] == "unstable_if"


def test_actions_and_non_negative_requests() -> None:
    assert deopt.decode(-28, 17) == ("range_check", "make_not_entrant")
    assert deopt.decode(-187, 17) == ("unstable_if", "reinterpret")
    assert deopt.decode(45, 17) == ("unloaded", "reinterpret")
