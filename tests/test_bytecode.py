"""The bytecode beside the code: the class-file reader (against the JDK's javap), the class path's limits, the
match of a method's code to a compilation's debug info, the citations in --findings, and the heat per line and
bci in --json, on the recordings of tests/data/findings (their classes in tests/data/findings/classes)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from corpus import DATA, run_cli

from asmcfg.facts import bytecode
from asmcfg.model.bytecode import Bytecode, ClassFiles, MethodCode
from asmcfg.sources.classfile import ClassFormatError, read_class
from asmcfg.sources.classpath import HIDDEN, IN_JDK, NOT_FOUND, find_classes

CLASSES = DATA / "findings" / "classes"
FINDINGS = (CLASSES / "Findings.class").read_bytes()
JAVAP = shutil.which("javap")


def code_of(method: str) -> MethodCode:
    _, methods = read_class(FINDINGS)
    (found,) = [m for m in methods if m.method == method]
    return found


def test_the_reader_gives_each_bytecode_its_bci_and_line() -> None:
    name, _methods = read_class(FINDINGS)
    assert name == "Findings"
    check = code_of("Findings::checkHot")
    assert check.descriptor == "([I[II)I"
    at = check.at(17)
    assert at == Bytecode(17, "iaload", "", 15)  # s += data[idx[i]]: the outer load, line 15 of Findings.java
    assert check.at(16) is not None and check.at(16).name == "iaload"  # type: ignore[union-attr]
    assert check.at(21) is None  # inside `iinc 4, 1` (bci 20, three bytes)
    assert check.at(20) == Bytecode(20, "iinc", "4, 1", 14)
    mega = code_of("Findings::megaHot")
    assert mega.at(22) == Bytecode(22, "invokevirtual", "Findings$Op.apply:(I)I", 107)


@pytest.mark.skipif(JAVAP is None, reason="no javap on PATH")
def test_every_bytecode_agrees_with_javap() -> None:
    """Differential: the mnemonic at every bci, and each method's line table, as the JDK's own javap reads them."""
    for path in sorted(CLASSES.glob("*.class")):
        listing = subprocess.run([JAVAP, "-c", "-l", "-p", str(path)], capture_output=True, text=True,
                                 check=True).stdout
        _, methods = read_class(path.read_bytes())
        theirs = [(int(m.group(1)), m.group(2)) for m in re.finditer(r"^ +(\d+): ([a-z][a-z_0-9]*)", listing, re.M)]
        mine = [(b.bci, b.name) for m in methods for b in m.codes]
        assert mine == theirs, path.name
        lines = {(int(m.group(2)), int(m.group(1))) for m in re.finditer(r"line (\d+): (\d+)", listing)}
        mine_lines = {(b.bci, b.line) for m in methods for b in m.codes}
        assert lines <= mine_lines, path.name


def test_damaged_class_files_end_in_one_error() -> None:
    """Every prefix and a byte flipped at every position: the reader ends in ClassFormatError or a reading, never
    another exception."""
    for end in range(len(FINDINGS)):
        with pytest.raises(ClassFormatError):
            read_class(FINDINGS[:end])
    for at in range(0, len(FINDINGS), 3):
        damaged = bytearray(FINDINGS)
        damaged[at] ^= 0xFF
        with contextlib.suppress(ClassFormatError):
            read_class(bytes(damaged))


def test_a_switch_larger_than_the_code_is_refused_before_it_is_walked() -> None:
    check = FINDINGS.index(bytes([0x03, 0x3E, 0x03, 0x36, 0x04]))  # checkHot's code: a huge tableswitch at bci 0
    damaged = bytearray(FINDINGS)
    damaged[check] = 170
    pad = (4 - (check + 1) % 4) % 4
    damaged[check + 1 + pad : check + 1 + pad + 12] = (0).to_bytes(4, "big") + (0).to_bytes(4, "big") + \
        (0x7FFFFFF0).to_bytes(4, "big")
    with pytest.raises(ClassFormatError):
        read_class(bytes(damaged))


def test_the_class_path_reads_folders_and_jars_by_binary_name_only(tmp_path: Path) -> None:
    jar = tmp_path / "app.jar"
    with zipfile.ZipFile(jar, "w") as out:
        out.write(CLASSES / "Locks.class", "Locks.class")
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(CLASSES / "Deopts.class", outside / "Deopts.class")
    folder = tmp_path / "classes"
    folder.mkdir()
    (folder / "Deopts.class").symlink_to(outside / "Deopts.class")  # a link out of the folder is not followed
    found = find_classes([str(folder), str(jar), str(CLASSES)], [
        "Locks::hot", "Deopts::hot", "Findings$$Lambda/0x000000080000c000::apply", "java.lang.String::length",
        "Nowhere::m"])
    assert found.read_from["Locks"] == f"{jar}!Locks.class"
    assert found.read_from["Deopts"] == str((CLASSES / "Deopts.class").resolve())
    assert found.absent == {"Findings$$Lambda/0x000000080000c000": HIDDEN, "java.lang.String": IN_JDK,
                            "Nowhere": NOT_FOUND}
    assert "Locks::hot" in found.methods


def test_a_method_is_tied_to_the_one_overload_that_agrees_with_the_debug_info() -> None:
    real = code_of("Findings::checkHot")
    shifted = MethodCode(real.method, "(J)I", tuple(Bytecode(b.bci, b.name, b.operands, (b.line or 0) + 1)
                                                    for b in real.codes))
    from asmcfg.run.log import open as open_log

    log = open_log(str(DATA / "findings" / "jdk17"))
    result = log.analyse(log.choose(method="Findings::checkHot", compile_id=42)).analysis
    one = bytecode.match(result, ClassFiles({real.method: (real, shifted)}, {"Findings": "x"}, {}))
    assert one[0].code is real and one[0].why_not is None
    none = bytecode.match(result, ClassFiles({real.method: (shifted,)}, {"Findings": "x"}, {}))
    assert none[0].code is None and "does not match" in (none[0].why_not or "")
    two = bytecode.match(result, ClassFiles({real.method: (real, real)}, {"Findings": "x"}, {}))
    assert two[0].code is None and "2 overloads" in (two[0].why_not or "")
    # each frame fits one of two overloads, no overload fits them all: both inlined, not a mismatch
    without = MethodCode(real.method, "(I)I", tuple(b for b in real.codes if b.bci != 17))
    only = MethodCode(real.method, "(J)I", tuple(b for b in real.codes if b.bci == 17))
    both = bytecode.match(result, ClassFiles({real.method: (without, only)}, {"Findings": "x"}, {}))
    assert both[0].code is None and "several of its overloads" in (both[0].why_not or "")


def test_a_class_path_that_is_not_there_or_not_used_is_one_line() -> None:
    code, _, err = run_cli(str(DATA / "findings" / "jdk17"), "--classpath", "/nonexistent/classes", "--findings")
    assert code != 0 and "/nonexistent/classes" in err and "Traceback" not in err and len(err.splitlines()) == 1
    code, _, err = run_cli(str(DATA / "findings" / "jdk17"), "--classpath", str(CLASSES), "--json", "-")
    assert code != 0 and "--classpath" in err and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.parametrize("jdk", ["jdk17", "jdk25"])
def test_findings_cite_the_bytecode_and_its_line(jdk: str, tmp_path: Path) -> None:
    out = tmp_path / "f.json"
    code, _, err = run_cli(str(DATA / "findings" / jdk), "--findings", "--classpath", str(CLASSES), "--json",
                           str(out), "-q")
    assert code == 0, err
    found = json.loads(out.read_text())["findings"]
    (check,) = [f for f in found if f["kind"] == "check-in-loop" and f["method"] == "Findings::checkHot"]
    assert (check["bytecode"], check["line"]) == ("iaload@17", 15)
    (mega,) = [f for f in found if f["kind"] == "megamorphic"]
    assert (mega["bytecode"], mega["line"]) == ("invokevirtual@22", 107)
    code, _, err = run_cli(str(DATA / "findings" / jdk), "--findings", "--json", str(out), "-q")
    assert code == 0, err
    assert all("bytecode" not in f for f in json.loads(out.read_text())["findings"])  # none without class files


@pytest.mark.slow
def test_heat_by_line_and_bci_account_for_the_compilation(tmp_path: Path) -> None:
    """Each instruction's share counts once at its innermost frame (`self`) or not at all (no debug info): the
    selves and the rest add up to the compilation's measured heat."""
    out = tmp_path / "c.json"
    code, _, err = run_cli(str(DATA / "findings" / "jdk17"), "--compile-id", "42", "--json", str(out), "-q")
    assert code == 0, err
    method = json.loads(out.read_text())["methods"][0]
    heat = sum(i.get("heat", {}).get("cpu-clock", 0.0) for b in method["blocks"] for i in b["instructions"])
    for field in ("heat_by_line", "heat_by_bci"):
        own = sum(v["self"]["cpu-clock"] for m in method[field].values() for v in m.values())
        assert own + method["heat_without_debug_info"]["cpu-clock"] == pytest.approx(heat, abs=0.01)
    lines = method["heat_by_line"]["Findings::checkHot"]
    assert lines["15"]["share"]["cpu-clock"] > 0 and set(lines) <= {"13", "14", "15", "17"}
    assert method["heat_by_bci"]["Findings::checkHot"]["16"]["share"]["cpu-clock"] > 0


@pytest.mark.slow
def test_a_record_folder_gives_its_own_class_path_when_its_record_json_is_the_users(tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    shutil.copytree(DATA / "findings" / "jdk17", folder)
    manifest = json.loads((folder / "record.json").read_text())
    manifest["working_folder"] = str(DATA / "findings")
    manifest["jvms"][0]["class_path"] = "classes"
    (folder / "record.json").write_text(json.dumps(manifest))
    os.chmod(folder / "record.json", 0o644)
    page = tmp_path / "page.html"
    for mode, shown in ((0o644, True), (0o666, False)):
        os.chmod(folder / "record.json", mode)
        code, _, err = run_cli(str(folder), "--compile-id", "42", "--html", str(page), "-q")
        assert code == 0, err
        text = page.read_text()
        model = json.loads(re.search(r'id="model">(.*?)</script>', text, re.S).group(1))  # type: ignore[union-attr]
        assert ("bytecode" in model["methods"][0]["page"]) is shown


@pytest.mark.slow
@pytest.mark.parametrize("jdk", ["jdk17", "jdk25"])
def test_the_test_classes_agree_with_every_compilation_of_their_recordings(jdk: str) -> None:
    """Every method of every compilation of the recording is tied to its code: the class files are the ones
    that ran (a bci or line off anywhere would leave the method without code)."""
    from asmcfg.run.log import open as open_log
    from asmcfg.sources.classpath import find_classes

    log = open_log(str(DATA / "findings" / jdk))
    seen = 0
    for result in log.stream():
        classes = find_classes([str(CLASSES)], bytecode.methods_named(result))
        for item in bytecode.match(result, classes):
            if item.method.startswith("Findings"):
                assert item.code is not None, (result.cfg.method.header, item)
                seen += 1
    assert seen >= 30


@pytest.mark.slow
def test_serve_shows_the_bytecode_of_each_page() -> None:
    import signal

    from served import Served

    served = Served(DATA / "findings" / "jdk17", "--classpath", str(CLASSES), "-q")
    try:
        with served.opener().open(served.base + "c/42", timeout=300) as answer:
            text = answer.read().decode("utf-8")
    finally:
        served.stop(signal.SIGTERM)
    model = json.loads(re.search(r'id="model">(.*?)</script>', text, re.S).group(1))  # type: ignore[union-attr]
    code = model["methods"][0]["page"]["bytecode"]["Findings::checkHot"]
    assert code["why_not"] is None and {"bci": 17, "name": "iaload", "operands": "", "line": 15} in code["codes"]


def test_a_jdk_jmod_gives_its_classes(tmp_path: Path) -> None:
    """A `.jmod` is a zip behind a 4-byte header (`JM`, version 1.0), its classes under `classes/`."""
    inner = tmp_path / "inner.zip"
    with zipfile.ZipFile(inner, "w") as out:
        out.write(CLASSES / "Locks.class", "classes/Locks.class")
    jmod = tmp_path / "locks.jmod"
    jmod.write_bytes(b"JM\x01\x00" + inner.read_bytes())
    found = find_classes([str(jmod)], ["Locks::hot"])
    assert found.read_from == {"Locks": f"{jmod}!classes/Locks.class"} and "Locks::hot" in found.methods
