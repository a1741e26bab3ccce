"""HotSpot's trap_request encoding and the DeoptReason tables of each JDK (FORMATS.md section 4)."""

from __future__ import annotations

ACTIONS = ("none", "maybe_recompile", "reinterpret", "make_not_entrant", "make_not_compilable")

_JDK17 = (
    "none null_check null_assert range_check class_check array_check intrinsic bimorphic profile_predicate "
    "unloaded uninitialized initialized unreached unhandled constraint div0_check age predicate loop_limit_check "
    "speculate_class_check speculate_null_check speculate_null_assert rtm_state_change unstable_if "
    "unstable_fused_if receiver_constraint aliasing transfer_to_interpreter not_compiled_exception_handler "
    "unresolved jsr_mismatch tenured"
).split()
# JDK 11 has neither `initialized` (13+) nor `receiver_constraint` (15+); JDK 8 (8u20+) also lacks
# profile_predicate, the speculate_null_* pair, unstable_fused_if and the JVMCI/tenured tail.
_JDK11 = [r for r in _JDK17 if r not in ("initialized", "receiver_constraint")]
_JDK8 = [
    r
    for r in _JDK11[: _JDK11.index("unstable_if") + 1]
    if r not in ("profile_predicate", "speculate_null_check", "speculate_null_assert")
]
_JDK24 = [r for r in _JDK17 if r != "rtm_state_change"]
_JDK25 = [*_JDK24[:9], "auto_vectorization_check", *_JDK24[9:]]

TABLES: dict[int, tuple[str, ...]] = {
    8: tuple(_JDK8),
    11: tuple(_JDK11),
    17: tuple(_JDK17),
    24: tuple(_JDK24),
    25: tuple(_JDK25),
}
"""Reason names by index, for the JDK whose table it is (21 = 17, 22/23 = 17, 24 = 17 without RTM)."""

IMPLAUSIBLE = frozenset(
    {"age", "tenured", "none", "jsr_mismatch", "transfer_to_interpreter", "not_compiled_exception_handler", "aliasing"}
)
"""Reasons compiled code never requests at a branch: a table that yields them is the wrong table."""


def table_for(jdk: int) -> tuple[str, ...]:
    """The reason table that applies to JDK feature version `jdk`."""
    if jdk <= 10:
        return TABLES[8]
    if jdk <= 12:
        return TABLES[11]
    if jdk <= 23:
        return TABLES[17]
    return TABLES[24] if jdk == 24 else TABLES[25]


def decode(request: int, jdk: int) -> tuple[str, str]:
    """(reason, action) for a signed trap_request under JDK `jdk`'s table."""
    if request >= 0:
        return "unloaded", "reinterpret"
    inverted = ~request
    reason_index = (inverted >> 3) & 0x1F
    names = table_for(jdk)
    reason = names[reason_index] if reason_index < len(names) else f"reason_{reason_index}"
    return reason, ACTIONS[inverted & 7] if (inverted & 7) < len(ACTIONS) else f"action_{inverted & 7}"


JVMCI_NAMES = {
    "null_assert_or_unreached0": "null_assert",
    "intrinsic_or_type_checked_inlining": "intrinsic",
    "bimorphic_or_optimized_type_check": "bimorphic",
}
"""The names a VM built with JVMCI prints for three reasons (same numbers), to the names the tables use."""


JVMCI_ALIASES = {"null_assert": "unreached0", "intrinsic": "type_checked_inlining", "bimorphic": "optimized_type_check"}
"""HotSpot's names for the three reasons a JVMCI compiler requests under another name than C2's (deoptimization.hpp's
Reason_unreached0, Reason_type_checked_inlining and Reason_optimized_type_check: JVMCI's UnreachedCode,
TypeCheckedInliningViolated and OptimizedTypeCheckViolated)."""
_PLAIN = {**JVMCI_NAMES, **{jvmci: plain for plain, jvmci in JVMCI_ALIASES.items()}}


def plain_reason(name: str) -> str:
    """A reason name as the tables spell it (`null_assert` for a JVMCI build's `null_assert_or_unreached0` and for
    JVMCI's `unreached0`)."""
    return _PLAIN.get(name, name)


def decode_jvmci(request: int, jdk: int) -> tuple[str, str]:
    """(reason, action) of a JVMCI compilation's trap request, its reasons named as JVMCI requests them."""
    reason, action = decode(request, jdk)
    return JVMCI_ALIASES.get(reason, reason), action
