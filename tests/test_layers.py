"""The package's shape: stages import only earlier stages, no import cycles, no module over 300 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

from asmcfg.dialects import REGISTRY

PACKAGE = Path(__file__).resolve().parent.parent / "asmcfg"
STAGES = (
    ("asmcfg", "asmcfg.errors", "asmcfg.model", "asmcfg.describe"),
    ("asmcfg.hotspot", "asmcfg.isa"),
    ("asmcfg.processes",),
    ("asmcfg.sources",),
    ("asmcfg.dialects",),
    ("asmcfg.cfg",),
    ("asmcfg.analyses",),
    ("asmcfg.facts",),
    ("asmcfg.render",),
    ("asmcfg.compare",),
    ("asmcfg.run",),
    ("asmcfg.record",),
    ("asmcfg.whatif",),
    ("asmcfg.serve",),
    ("asmcfg.cli", "asmcfg.__main__", "asmcfg.launch", "asmcfg.help_text"),
)
"""The pipeline's stages in order; a module may import its own stage and the ones before it.

HotSpot's tables and the ISA tables come before the readers because the hex reader decodes with the ISA
tables and every reader names HotSpot's section markers. Processes for parallel work are started one way
(`asmcfg.processes`) by the readers, the runs and `serve` alike, so that comes before all of them. `asmcfg diff`
compares two analyses and draws them side by side with the DOT renderer's labels, so it follows `render`;
`run/diff.py` carries it out."""
TOP_LEVEL = {"__init__", "__main__", "errors", "terminal", "describe", "cli", "launch", "help_text"}
"""Top-level modules: what every stage shares (the records are the `model` package; `terminal` makes the text
errors and renderers write for a person safe to show, and loads nothing)."""
MAX_LINES = 300


def module_name(path: Path) -> str:
    """Dotted name of a module file of the package (`asmcfg.run.app`; a package's `__init__` is the package)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports(path: Path) -> set[str]:
    """Package modules `path` imports anywhere in its text (functions and TYPE_CHECKING blocks included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "asmcfg":
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.add(full if full in MODULES else node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == "asmcfg")
    return found


def stage(module: str) -> int:
    """Index of the stage `module` belongs to (its longest matching prefix)."""
    best = max(
        ((len(prefix), n) for n, names in enumerate(STAGES) for prefix in names
         if module == prefix or module.startswith(prefix + ".")),
        default=None,
    )
    if best is None:
        raise AssertionError(f"{module} belongs to no stage: add it to STAGES")
    return best[1]


FRONT = "asmcfg"
"""The package itself is also the library's front (`asmcfg.open`, `asmcfg.Log`): it names the API, which the run
stage defines, for the type checker only, and imports it when a name is first asked for."""


def front(module: str, target: str) -> bool:
    """True for the package's names of the library API (`FRONT`): imported for the type checker only, and at run time
    on first use, after every module has loaded."""
    return module == FRONT and target.startswith("asmcfg.run.")


def graph() -> nx.DiGraph:
    """Module → imported module, for every module of the package."""
    edges = nx.DiGraph()
    for name, path in MODULES.items():
        edges.add_node(name)
        edges.add_edges_from((name, target) for target in imports(path) if target != name and not front(name, target))
    return edges


def test_every_module_has_a_stage() -> None:
    for name in MODULES:
        stage(name)


def test_no_import_cycles() -> None:
    cycles = list(nx.simple_cycles(graph()))
    assert cycles == [], f"import cycles: {cycles}"


def test_no_module_imports_a_later_stage() -> None:
    back = [f"{a} -> {b}" for a, b in graph().edges if stage(b) > stage(a)]
    assert back == [], "imports of a later stage:\n" + "\n".join(back)


def test_top_level_holds_only_shared_modules() -> None:
    flat = {path.stem for path in PACKAGE.glob("*.py")}
    assert flat <= TOP_LEVEL, f"move into a stage's folder: {sorted(flat - TOP_LEVEL)}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_is_short(name: str) -> None:
    lines = MODULES[name].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{name} has {lines} lines (at most {MAX_LINES})"


def test_the_walk_sees_known_edges() -> None:
    # guards the walk itself: a test that finds no edges would pass on any layout
    edges = graph()
    assert edges.has_edge("asmcfg.cli", "asmcfg.run.app")
    assert edges.has_edge("asmcfg.run.wholelog", "asmcfg.run.options")
    assert edges.has_edge("asmcfg.cfg.build", "asmcfg.hotspot.sections")
    assert edges.has_edge("asmcfg.run.diff", "asmcfg.compare.match")
    assert edges.has_edge("asmcfg.compare.dot", "asmcfg.render.dot")


DIALECT_FOLDERS = frozenset(path.parent.name for path in (PACKAGE / "dialects").glob("*/__init__.py"))
"""The folders of `asmcfg/dialects/`: one per dialect, and perfscript's (the samples of a recording)."""


def own_folder(module: str) -> str | None:
    """The folder of `asmcfg/dialects/` that `module` lies in (`hsdis` for `asmcfg.dialects.hsdis.reader`), or None."""
    parts = module.split(".")
    return parts[2] if parts[:2] == ["asmcfg", "dialects"] and len(parts) > 2 and parts[2] in DIALECT_FOLDERS else None


def test_no_module_outside_dialects_imports_a_dialects_folder() -> None:
    # the rest of the package reaches a dialect through its Dialect subclass and the shared modules of dialects/
    # (the registry, base, dialect, heat, heatfiles, index, seek, ...), never its reader or helpers
    inside = [f"{a} -> {b}" for a, b in graph().edges if own_folder(b) and not (a + ".").startswith("asmcfg.dialects.")]
    assert inside == [], "imports of a dialect's own modules:\n" + "\n".join(inside)


def test_the_folder_check_sees_a_folder() -> None:
    assert {"hsdis", "logcompilation", "machcode", "perfasm", "perfscript"} <= DIALECT_FOLDERS
    assert own_folder("asmcfg.dialects.perfasm.profile") == "perfasm" and own_folder("asmcfg.dialects.hsdis") == "hsdis"
    assert own_folder("asmcfg.dialects.heat") is None and own_folder("asmcfg.dialects") is None


def test_each_dialect_is_one_class_in_its_own_folder() -> None:
    # adding a dialect is a folder and one class: the registry holds an instance of each, defined in its folder
    for dialect in REGISTRY:
        assert type(dialect).__module__ == f"asmcfg.dialects.{dialect.name}", type(dialect)
    assert {str(d.name) for d in REGISTRY} <= DIALECT_FOLDERS


DIALECT_NAMES = frozenset(str(dialect.name) for dialect in REGISTRY)


def dialect_tests(text: str) -> list[int]:
    """Lines of `text` that compare against a dialect's name: a string constant naming one (alone or in a
    tuple, list or set), a `DialectName` member, or anything's `dialect` compared with something but None."""

    def names_a_dialect(node: ast.expr) -> bool:
        if isinstance(node, ast.Constant):
            return node.value in DIALECT_NAMES
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return any(names_a_dialect(element) for element in node.elts)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            return node.value.id == "DialectName"
        return False

    def is_dialect(node: ast.expr) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr == "dialect") or (
            isinstance(node, ast.Name) and node.id == "dialect")

    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            others_none = all(isinstance(o, ast.Constant) and o.value is None for o in operands if not is_dialect(o))
            if any(names_a_dialect(o) for o in operands) or (any(is_dialect(o) for o in operands) and not others_none):
                found.append(node.lineno)
    return found


def test_no_dialect_is_tested_by_name_outside_dialects() -> None:
    # what differs between formats is a property of the Dialect record or a feature of the method it read
    outside = {name: path for name, path in MODULES.items() if not name.startswith("asmcfg.dialects")}
    found = [f"{name}:{line}" for name, path in outside.items() for line in dialect_tests(path.read_text("utf-8"))]
    assert found == [], "dialects compared by name:\n" + "\n".join(found)


def test_the_dialect_name_check_sees_comparisons() -> None:
    # guards the check itself: the comparisons it must catch, and the ones it must let through
    caught = ('if method.dialect == "machcode": pass\nif dialect in ("hsdis", "logcompilation"): pass\n'
              'x = chosen.name == "perfasm"\ny = m.dialect is DialectName.MACHCODE\n')
    assert dialect_tests(caught) == [1, 2, 3, 4]
    assert dialect_tests('assert job.dialect is not None\nz = kind == "stub"\n') == []
