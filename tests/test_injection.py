"""Output safety: whatever the input's comments hold shows up literally in DOT and SVG, never as markup.

The input is a real C2 method (Tensor4D::sumDiag, JDK 17) whose comments, method name and runtime-call names
were edited to hold DOT and XML syntax, entities and control characters. Also here: outputs are the same bytes
for the same input and flags, and a run that fails leaves existing output files as they were, with no temp file.
"""

from __future__ import annotations

import errno
import gzip
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from corpus import HSDIS, run_cli

from asmcfg.render import dot, json as json_render
from asmcfg.render.svg import find_renderer

SOURCE = HSDIS / "jdk17-Tensor4D-print-hsdis-att.txt.gz"
SVG_NS = "{http://www.w3.org/2000/svg}"
PAYLOAD = '"]; evil [label="x"]; <script>alert(1)</script> {} {{a}} \\ \\l \\N &amp; &lt;b&gt; &nbsp; &#60;'
CONTROL = "\x1b[31m\x0b\x07\x00\x7f"
RENDERERS = ["graphviz-pure"] + (["dot"] if shutil.which("dot") else [])


def _method_text() -> str:
    """Tensor4D::sumDiag as printed: banner, header, code, down to `[/Disassembly]`."""
    lines = gzip.decompress(SOURCE.read_bytes()).decode().split("\n")
    start = next(n for n, line in enumerate(lines) if "Compiled method (c2)" in line and "Tensor4D::sumDiag" in line)
    return "\n".join(lines[start - 3 : lines.index("[/Disassembly]", start) + 1]) + "\n"


def injected_dump(folder: Path) -> Path:
    """sumDiag with the payload in its name, in every bytecode comment and in a runtime-call name."""
    text = _method_text()
    text = text.replace("Tensor4D::sumDiag (43 bytes)", 'Tensor4D::sumDiag"];evil[label="&lt;x&gt;\\ (43 bytes)')
    text = re.sub(r";\*(\w+)", lambda m: f";*{m.group(1)} {PAYLOAD} {CONTROL}", text)
    text = text.replace("{runtime_call SafepointBlob}", f"{{runtime_call SafepointBlob {PAYLOAD}}}")
    path = folder / "injected.txt"
    path.write_text(text, encoding="utf-8")
    return path


def _canon_nodes(dot_text: str) -> list[str]:
    """Node names Graphviz (graphviz-pure) reads from `dot_text`."""
    canon = subprocess.run([*find_renderer("graphviz-pure"), "-Tcanon"], input=dot_text.encode(),
                           capture_output=True, check=True, timeout=120).stdout.decode()
    found = re.findall(r"^\t+(\w+)\t+\[", canon, flags=re.M)  # loop clusters nest their blocks
    return [n for n in found if not n.startswith("legend_") and n != "graph"]


@pytest.mark.parametrize("fold", [True, False], ids=["folded", "unfolded"])
def test_dot_parses_to_exactly_the_nodes_asmcfg_wrote(tmp_path: Path, fold: bool) -> None:
    code, dot_text, err = run_cli(str(injected_dump(tmp_path)), "-q", *([] if fold else ["--no-fold"]))
    assert code == 0, err
    written = [n for n in re.findall(r"^  (\w+) \[", dot_text, flags=re.M) if n not in ("graph", "node", "edge")]
    nodes = _canon_nodes(dot_text)
    assert sorted(written) == sorted(nodes) and len(set(written)) == len(written)
    assert sum(1 for n in nodes if re.fullmatch(r"b\d+", n)) == sum(1 for n in written if n.startswith("b"))
    assert "evil" not in nodes
    assert all(" " <= c <= "~" for c in dot_text.replace("\n", "")), "raw control or non-ASCII text in the DOT"


def _svg(tmp_path: Path, renderer: str) -> ET.Element:
    out = tmp_path / f"{renderer}.svg"
    code, _, err = run_cli(str(injected_dump(tmp_path)), "--svg", str(out), "--renderer", renderer, "-q")
    assert code == 0, err
    return ET.parse(out).getroot()


@pytest.mark.parametrize("renderer", RENDERERS)
def test_svg_is_xml_without_script_and_shows_the_payload_as_text(tmp_path: Path, renderer: str) -> None:
    root = _svg(tmp_path, renderer)
    tags = {element.tag.removeprefix(SVG_NS) for element in root.iter()}
    assert "script" not in tags and "foreignObject" not in tags
    assert not any(name.lower().startswith("on") for element in root.iter() for name in element.attrib)
    shown = "\n".join("".join(t.itertext()) for t in root.iter(f"{SVG_NS}text"))
    for piece in ('"]; evil [label="x"];', "<script>alert(1)</script>", "{} {{a}}", "\\ \\l \\N",
                  "&amp; &lt;b&gt; &nbsp; &#60;", "\\x1b[31m\\x0b\\x07\\x00\\x7f", 'sumDiag"];evil[label="&lt;x&gt;\\'):
        assert piece in shown, piece


def test_every_character_is_quoted_to_printable_ascii_and_shown_as_itself(tmp_path: Path) -> None:
    texts = ["".join(chr(c) for c in range(n, n + 24)) for n in range(0, 0x180, 24)] + [PAYLOAD, "&", "\\", '"']
    graph = "digraph g {\n" + "".join(f"  n{i} [label={dot.quote(t)}];\n" for i, t in enumerate(texts)) + "}\n"
    assert all(" " <= c <= "~" for c in graph.replace("\n", ""))
    svg = subprocess.run([*find_renderer("graphviz-pure"), "-Tsvg"], input=graph.encode(), capture_output=True,
                         check=True, timeout=120).stdout
    root = ET.fromstring(svg)
    shown = {g.findtext(f"{SVG_NS}title"): "\n".join("".join(t.itertext()) for t in g.iter(f"{SVG_NS}text"))
             for g in root.iter(f"{SVG_NS}g") if g.get("class") == "node"}
    for i, text in enumerate(texts):
        # A newline starts a new label line; any other character outside printable ASCII shows as \xNN.
        expected = "".join(c if " " <= c <= "~" or c == "\n" else f"\\x{ord(c):02x}" for c in text)
        assert shown[f"n{i}"] == expected


def _outputs(tmp_path: Path, run: int, *flags: str) -> list[bytes]:
    """The bytes of every file one run writes (each flag's `{run}` replaced by the run number)."""
    flags = tuple(flag.replace("{run}", str(run)) for flag in flags)
    code, _, err = run_cli(str(injected_dump(tmp_path)), *flags, "-q")
    assert code == 0, err
    return [Path(flag).read_bytes() for flag in flags if flag.startswith(str(tmp_path))]


def test_all_methods_to_json_and_dot_files_give_the_same_bytes(tmp_path: Path) -> None:
    flags = ("--all", "--json", f"{tmp_path}/{{run}}.json", "--dot", f"{tmp_path}/{{run}}.dot")
    first, second = (_outputs(tmp_path, n, *flags) for n in range(2))
    assert first == second and len(first) == 2 and all(first)


@pytest.mark.parametrize("renderer", RENDERERS)
def test_svg_json_and_dot_give_the_same_bytes_with_the_same_renderer(tmp_path: Path, renderer: str) -> None:
    flags = ("--svg", f"{tmp_path}/{{run}}.svg", "--renderer", renderer, "--json", f"{tmp_path}/{{run}}.json",
             "--dot", f"{tmp_path}/{{run}}.dot")
    first, second = (_outputs(tmp_path, n, *flags) for n in range(2))
    assert first == second and len(first) == 3 and all(first)


def test_json_to_a_file_and_to_stdout_are_the_same(tmp_path: Path) -> None:
    code, out, _ = run_cli(str(SOURCE), "--all", "--json", "-", "-q")
    assert code == 0
    path = tmp_path / "out.json"
    code, _, _ = run_cli(str(SOURCE), "--all", "--json", str(path), "-q")
    assert code == 0
    assert path.read_text() == out


def _failing_writer(exc: BaseException) -> Any:
    def write(results: Any, out: Any, *args: Any) -> None:
        out.write("half of the output")
        out.flush()
        raise exc

    return write


@pytest.mark.parametrize("flag", ["--json", "--dot"])
@pytest.mark.parametrize(
    ("raised", "code", "message"),
    [(OSError(errno.ENOSPC, "No space left on device"), 1, "cannot write the output: No space left on device"),
     (KeyboardInterrupt(), 130, "asmcfg: interrupted")],
    ids=["disk-full", "interrupted"],
)
def test_a_write_that_fails_keeps_the_old_file_and_leaves_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flag: str, raised: BaseException, code: int, message: str
) -> None:
    monkeypatch.setattr(json_render, "write_json", _failing_writer(raised))
    monkeypatch.setattr(dot, "write_many", _failing_writer(raised))
    target = tmp_path / "out.file"
    target.write_text("precious")
    got, _, err = run_cli(str(SOURCE), flag, str(target), "-q")
    assert got == code and message in err
    assert target.read_text() == "precious"
    assert [p.name for p in tmp_path.iterdir()] == ["out.file"]


@pytest.mark.parametrize("flag", ["--json", "--dot", "--svg"])
def test_an_input_error_leaves_existing_outputs_untouched(tmp_path: Path, flag: str) -> None:
    target = tmp_path / "out.file"
    target.write_text("precious")
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    code, _, _ = run_cli(str(empty), flag, str(target))
    assert code == 1
    assert target.read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.txt", "out.file"]
