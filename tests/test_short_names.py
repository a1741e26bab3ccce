"""`describe.short_name`: a long method name loses its package's letters, leftmost first, never its class or method."""

from __future__ import annotations

import pytest

from asmcfg import describe


@pytest.mark.parametrize(("name", "short"), [
    ("com.sun.tools.javac.parser.JavaTokenizer::readToken", "c.s.t.j.parser.JavaTokenizer::readToken"),
    ("jdk.internal.misc.Unsafe::compareAndSetReference", "j.i.misc.Unsafe::compareAndSetReference"),
    ("java.lang.Object::<init>", "java.lang.Object::<init>"),  # short enough already
    ("java.lang.invoke.MethodType$ConcurrentWeakInternSet::expungeStaleElements",
     "j.l.i.MethodType$ConcurrentWeakInternSet::expungeStaleElements"),  # every segment cut, the class kept whole
    ("StubRoutines::a_very_long_stub_name_that_has_no_package_at_all", "StubRoutines::a_very_long_stub_name_that_"
     "has_no_package_at_all"),
    ("a stub name without a method separator, as long as it likes", "a stub name without a method separator, as "
     "long as it likes"),
])
def test_the_package_is_cut_never_the_class_and_method(name: str, short: str) -> None:
    assert describe.short_name(name) == short
    assert short.endswith(name.partition("::")[2])


def test_the_width_is_a_target() -> None:
    name = "com.sun.tools.javac.parser.JavaTokenizer::readToken"
    assert describe.short_name(name, 100) == name
    assert describe.short_name(name, 45) == "c.s.t.javac.parser.JavaTokenizer::readToken"
    assert describe.short_name(name, 0) == "c.s.t.j.p.JavaTokenizer::readToken"
