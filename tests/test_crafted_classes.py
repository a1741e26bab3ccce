"""Crafted class files and class folders (the bytecode pane's inputs, which a log or a record folder may name): what
they cost is linear in their size, and nothing but a regular file inside a class path folder is read."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from corpus import DATA

from asmcfg.facts import bytecode
from asmcfg.model.bytecode import ClassFiles
from asmcfg.run import recordjson
from asmcfg.run.classes import recorded_class_path
from asmcfg.sources.classfile import ClassFormatError, read_class
from asmcfg.sources.classpath import find_classes
from asmcfg.whatif import source

CLASSES = DATA / "findings" / "classes"


def _utf8(text: str) -> bytes:
    raw = text.encode()
    return b"\x01" + len(raw).to_bytes(2, "big") + raw


def _u2(n: int) -> bytes:
    return n.to_bytes(2, "big")


def crafted(cls: str, method: str, callee: str, code: bytes, methods: int = 1) -> bytes:
    """A class file `cls` with `methods` methods named `method` (descriptors `()V`, `()I`, … in turn, all with
    `code`), its pool holding a Methodref (#6) to `cls.callee()V`."""
    descriptors = [f"({'I' * (n // 8)}){'VIJFDBCS'[n % 8]}" for n in range(methods)]
    pool = [_utf8(cls.replace(".", "/")), b"\x07" + _u2(1), _utf8(callee), _utf8("()V"), b"\x0c" + _u2(3) + _u2(4),
            b"\x0a" + _u2(2) + _u2(5), _utf8("Code"), _utf8(method), *(_utf8(d) for d in descriptors)]
    body = _u2(2) + _u2(2) + len(code).to_bytes(4, "big") + code + _u2(0) + _u2(0)
    each = [_u2(0) + _u2(8) + _u2(9 + n) + _u2(1) + _u2(7) + len(body).to_bytes(4, "big") + body
            for n in range(methods)]
    return (b"\xca\xfe\xba\xbe" + _u2(0) + _u2(52) + _u2(len(pool) + 1) + b"".join(pool) + _u2(0x21) + _u2(2)
            + _u2(0) + _u2(0) + _u2(0) + _u2(methods) + b"".join(each) + _u2(0))


def test_the_crafted_class_is_read() -> None:
    name, methods = read_class(crafted("p.C", "m", "callee", b"\xb8\x00\x06\xb1"))
    assert name == "p.C"
    assert [(b.name, b.operands) for b in methods[0].codes] == [("invokestatic", "p.C.callee:()V"), ("return", "")]


def test_a_long_name_called_many_times_costs_text_linear_in_the_file() -> None:
    """A 60,000-character name called 3,000 times: the operands it gives are cut short, not 180 million
    characters."""
    data = crafted("p.C", "m", "x" * 60_000, b"\xb8\x00\x06" * 3_000 + b"\xb1")
    _, methods = read_class(data)
    text = sum(len(b.operands) for m in methods for b in m.codes)
    assert text < 10 * len(data)
    assert "x…:()V" in methods[0].codes[0].operands


def test_a_long_class_or_method_name_is_refused() -> None:
    """Many methods of one long name (each of its own descriptor): refused, not one long name per method."""
    with pytest.raises(ClassFormatError, match="name longer than"):
        read_class(crafted("p.C", "m" * 60_000, "callee", b"\xb1", methods=200))
    with pytest.raises(ClassFormatError, match="name longer than"):
        read_class(crafted("p." + "C" * 60_000, "m", "callee", b"\xb1", methods=200))


def test_a_fifo_in_a_classes_folder_is_not_read(tmp_path: Path) -> None:
    """A named pipe where a class file would be is passed over, at once: opening it to read would wait for a writer
    forever."""
    folder = tmp_path / "classes"
    folder.mkdir()
    fifo = folder / "Deopts.class"
    os.mkfifo(fifo)
    found: list[ClassFiles] = []
    looking = threading.Thread(target=lambda: found.append(find_classes([str(folder), str(CLASSES)], ["Deopts::hot"])),
                               daemon=True)
    looking.start()
    looking.join(60)  # a bound for the failure alone: a passing run ends as soon as the lookup does
    if looking.is_alive():
        with open(fifo, "wb"):  # lets the waiting open go on
            pass
        pytest.fail("the lookup waits on the named pipe")
    assert found[0].read_from["Deopts"] == str((CLASSES / "Deopts.class").resolve())


def test_a_folder_link_out_of_the_class_path_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(CLASSES / "Deopts.class", outside / "Deopts.class")
    folder = tmp_path / "classes"
    folder.mkdir()
    (folder / "p").symlink_to(outside)  # p/Deopts.class would be read through the link
    (folder / "loop").symlink_to(folder / "loop")
    found = find_classes([str(folder)], ["p.Deopts::hot", "loop.X::m"])
    assert not found.read_from


def test_a_class_of_many_overloads_is_not_checked_against_every_frame() -> None:
    """300 overloads of one name (each would be checked against each frame of the compilation): not matched."""
    _, methods = read_class(crafted("p.C", "m", "callee", b"\xb1", methods=300))
    classes = ClassFiles({"p.C::m": tuple(methods)}, {"p.C": "p/C.class"}, {})
    frame = SimpleNamespace(method="p.C::m", bci=0, line=None)
    result: Any = SimpleNamespace(cfg=SimpleNamespace(method=SimpleNamespace(
        header=SimpleNamespace(name="p.C::m"), instructions=[SimpleNamespace(frames=[frame])])))
    (matched,) = bytecode.match(result, classes)
    assert matched.code is None and matched.why_not == "its class file has more than 256 overloads of it"


def test_a_record_json_nested_too_deep_gives_no_class_path(tmp_path: Path) -> None:
    (tmp_path / "record.json").write_text("[" * 200_000 + "]" * 200_000)
    (tmp_path / "record.json").chmod(0o644)
    assert recorded_class_path(str(tmp_path), 1) == []
    assert recordjson.read(str(tmp_path), source.LARGEST) == {}, "what-if reads it the same"
    assert source.kept_ids(str(tmp_path), 1) == frozenset()
