"""Decide which JDK printed a dump, so trap reasons are named with the right table."""

from __future__ import annotations

from dataclasses import dataclass

from asmcfg.hotspot import deopt
from asmcfg.model import Feature, Method


@dataclass(frozen=True, slots=True)
class JdkGuess:
    """The JDK version assumed and why."""

    version: int
    """Feature version (17, 25)."""
    why: str
    """Where it came from, in words for the summary."""


def candidates(method: Method) -> tuple[list[int], str]:
    """JDK versions the method's layout allows, newest last, and the evidence."""
    features = method.features
    if Feature.LEGACY in features:
        return ([11], "JDK 9-12 layout with {reexecute}") if Feature.REEXECUTE in features else ([8], "JDK 8 layout")
    if Feature.IMMUTABLE_DATA in features:
        return [24, 25], "'immutable data' section: JDK 24+"
    if Feature.POST_CALL_NOP in features:
        return [21, 24, 25], "{post_call_nop}: JDK 21+"
    if Feature.UNDATED_LAYOUT in features and Feature.REEXECUTE not in features:
        return [17], "no layout evidence: assumed JDK 17"
    return [17], "JDK 13-23 layout"


def choose(method: Method, requests: list[int], forced: int | None) -> JdkGuess:
    """The JDK whose reason table to use: --jdk, then a version the input names, then the layout."""
    if forced is not None:
        return JdkGuess(forced, "--jdk")
    if method.jdk_hint is not None:
        return JdkGuess(method.jdk_hint, "named in the input")
    versions, evidence = candidates(method)
    if len(versions) == 1:
        return JdkGuess(versions[0], evidence)
    best = min(reversed(versions), key=lambda v: _implausible(requests, v))
    if _implausible(requests, best) < _implausible(requests, versions[-1]):
        return JdkGuess(best, f"{evidence}; JDK {best}'s reason table is the one without impossible reasons")
    return JdkGuess(best, f"{evidence}; the input names no JDK: trap reasons named with JDK {best}'s table, the "
                          "newest it allows (--jdk N to choose another)")


def _implausible(requests: list[int], version: int) -> int:
    return sum(1 for r in requests if deopt.decode(r, version)[0] in deopt.IMPLAUSIBLE)
