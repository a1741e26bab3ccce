"""Method names shortened for a narrow column: the package cut, never the class and method."""

from __future__ import annotations

SHORT_NAME = 40
"""Characters a shortened name aims at (a list beside others on a 1280-pixel screen)."""


def short_name(name: str, width: int = SHORT_NAME) -> str:
    """`name` (`pkg.Class::method`) with its package's segments cut to their first letter, leftmost first, until it
    holds `width` characters or every segment is cut: `com.sun.tools.javac.parser.JavaTokenizer::readToken` reads
    `c.s.t.j.parser.JavaTokenizer::readToken`, as profilers show names. The class and the method are never cut; a
    name without `::` or without a package is returned as it is."""
    if len(name) <= width:
        return name
    owner, sep, method = name.partition("::")
    if not sep:
        return name
    segments = owner.split(".")
    excess = len(name) - width
    for n, segment in enumerate(segments[:-1]):
        if excess <= 0:
            break
        if len(segment) > 1:
            excess -= len(segment) - 1
            segments[n] = segment[0]
    return ".".join(segments) + sep + method

