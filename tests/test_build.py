"""The optional compiled build: pip gets mypy as a build requirement only when `ASMCFG_MYPYC=1` asks for it, so a
plain `pip install .` compiles nothing with mypyc; setup.py names existing modules and leaves the CLI and pages
interpreted. Every build makes the C modules of `SPEEDUPS` where it can, and goes on without them where their
compile fails. The source distribution carries the license pyproject.toml names.

These tests ask the backend's hooks as pip does, in a copy of the project's build files, so setuptools' metadata
step writes there; the last builds the C modules there, with the system's compiler (skipped without one) and with
one that fails."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("setuptools", reason="the build backend wraps setuptools' own, which is not installed here")

ROOT = Path(__file__).resolve().parent.parent
HOOKS = ("get_requires_for_build_wheel", "get_requires_for_build_editable")


def load(path: Path) -> ModuleType:
    """The module at `path`, imported under its file name (setup.py's `setup()` runs only as `__main__`)."""
    spec = importlib.util.spec_from_file_location(f"_asmcfg_build_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of what the build reads: pyproject.toml, setup.py, MANIFEST.in, the backend, the README, the license
    and the package."""
    tree = tmp_path_factory.mktemp("project")
    for name in ("pyproject.toml", "setup.py", "README.md", "MANIFEST.in", "LICENSE"):
        shutil.copy(ROOT / name, tree / name)
    shutil.copytree(ROOT / "buildsys", tree / "buildsys", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "asmcfg", tree / "asmcfg", ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    return tree


def requires(project: Path, hook: str, variable: str | None) -> list[str]:
    """What the backend's `hook` tells pip to install before building, run as pip runs it: in the project, in a
    fresh interpreter, with `ASMCFG_MYPYC` set to `variable` (unset for None)."""
    env = {k: v for k, v in os.environ.items() if k != "ASMCFG_MYPYC"}
    if variable is not None:
        env["ASMCFG_MYPYC"] = variable
    env["PYTHONPATH"] = str(project / "buildsys")
    answer = project / f"{hook}-{variable}.json"
    # setuptools' hook rewrites sys.argv to run setup.py: read the answer's path first.
    code = f"import json, sys, mypyc_backend\nout = sys.argv[1]\njson.dump(mypyc_backend.{hook}(), open(out, 'w'))"
    result = subprocess.run([sys.executable, "-c", code, str(answer)], cwd=project, env=env, capture_output=True,
                            text=True, stdin=subprocess.DEVNULL, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    found: list[str] = json.loads(answer.read_text())
    return found


def named(requirements: list[str], name: str) -> list[str]:
    return [r for r in requirements if r.split(">")[0].split("=")[0].split("[")[0].strip().lower() == name]


@pytest.mark.parametrize("hook", HOOKS)
def test_plain_build_asks_for_no_mypy(project: Path, hook: str) -> None:
    for variable in (None, "0", ""):
        assert named(requires(project, hook, variable), "mypy") == []


@pytest.mark.parametrize("hook", HOOKS)
def test_compiled_build_asks_for_mypy_and_compiles_nothing_while_asking(project: Path, hook: str) -> None:
    assert named(requires(project, hook, "1"), "mypy") == ["mypy>=1.10"]
    # pip asks before it installs mypy: the metadata step must neither need it nor start compiling.
    assert not (project / "build").exists()
    assert not list(project.glob("*.so")) and not list((project / "asmcfg").rglob("*.so"))


def test_backend_asks_for_the_compiled_build_only_with_1() -> None:
    backend = load(ROOT / "buildsys" / "mypyc_backend.py")
    assert backend.compiled_build({"ASMCFG_MYPYC": "1"})
    assert not any(backend.compiled_build(env) for env in ({}, {"ASMCFG_MYPYC": "0"}, {"ASMCFG_MYPYC": "yes"}))


def test_setup_compiles_existing_modules_and_leaves_the_cli_and_pages_interpreted() -> None:
    setup = load(ROOT / "setup.py")
    compiled = setup.compiled_modules()
    for pattern in setup.COMPILED:
        assert list(ROOT.glob(pattern)), f"{pattern} names no module"
    assert "asmcfg/dialects/hsdis/reader.py" in compiled and "asmcfg/render/json.py" in compiled
    assert not [m for m in compiled if m.startswith(("asmcfg/cli/", "asmcfg/compare/", "asmcfg/describe/"))]
    assert not {"asmcfg/render/summary.py", "asmcfg/render/html.py", "asmcfg/render/svg.py"} & set(compiled)
    assert "asmcfg/__init__.py" not in compiled and "asmcfg/launch.py" not in compiled
    # test_bad_inputs replaces its `open`, which a compiled module binds at build time
    assert "asmcfg/sources/lines.py" not in compiled
    for kept in setup.INTERPRETED:
        assert (ROOT / kept).is_file() and kept not in compiled


def test_every_build_makes_the_c_modules_where_it_can() -> None:
    setup = load(ROOT / "setup.py")
    assert [module.name for module in setup.SPEEDUPS] == [
        "asmcfg.dialects._lines", "asmcfg.dialects.hsdis._scan", "asmcfg.dialects._build",
        "asmcfg.dialects.logcompilation._tags",
    ]
    for module in setup.SPEEDUPS:
        assert module.optional  # a failed compile leaves it out
        assert [(ROOT / source).is_file() for source in module.sources] == [True]


@pytest.mark.parametrize("works", [True, False], ids=["a compiler", "a compiler that fails"])
def test_a_build_makes_the_c_module_or_goes_on_without_it(project: Path, tmp_path: Path, works: bool) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(project, tree, ignore=shutil.ignore_patterns("build", "*.json", "*.egg-info"))
    env = {k: v for k, v in os.environ.items() if k != "ASMCFG_MYPYC"}
    if not works:
        env["CC"] = "false"  # every compile fails, as where there is no compiler or no Python headers
    elif shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler here to build the C module with")
    result = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=tree, env=env,
                            capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    built = sorted(path.name.partition(".")[0] for path in [*(tree / "asmcfg").rglob("*.so"),
                                                            *(tree / "asmcfg").rglob("*.pyd")])
    assert built == (["_build", "_lines", "_scan", "_tags"] if works else []), result.stderr
    assert not list(tree.glob("*__mypyc*"))
    if works:  # each is used while its source is the one it was built from; one edited since is not
        assert _used(tree) == {"_build": True, "_lines": True, "_scan": True, "_tags": True}
        tags = tree / "asmcfg" / "dialects" / "logcompilation" / "_tags.c"
        tags.write_text(tags.read_text(encoding="utf-8") + "/* a newer version */\n", encoding="utf-8")
        assert _used(tree) == {"_build": True, "_lines": True, "_scan": True, "_tags": False}


def _used(tree: Path) -> dict[str, bool]:
    """Which C modules the Python code of `tree` uses (`compiled`), run in a process of its own."""
    code = ("import json\nfrom asmcfg.model.make import compiled\nprint(json.dumps({m.rpartition('.')[2]: "
            "compiled(m) is not None for m in ['asmcfg.dialects._build', 'asmcfg.dialects._lines', "
            "'asmcfg.dialects.hsdis._scan', 'asmcfg.dialects.logcompilation._tags']}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)},
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120, check=True)
    found: dict[str, bool] = json.loads(done.stdout)
    return found


def test_the_sdist_carries_the_apache_license_pyproject_names(project: Path, tmp_path: Path) -> None:
    assert 'license = { text = "Apache-2.0" }' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License\n                           Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text and "APPENDIX: How to apply the Apache License" in text
    tree = tmp_path / "tree"
    shutil.copytree(project, tree, ignore=shutil.ignore_patterns("build", "*.json", "*.egg-info"))
    env = {k: v for k, v in os.environ.items() if k != "ASMCFG_MYPYC"}
    env["PYTHONPATH"] = str(tree / "buildsys")
    code = "import sys, mypyc_backend\nout = sys.argv[1]\nprint(mypyc_backend.build_sdist(out))"
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path / "dist")], cwd=tree, env=env,
                            capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    name = result.stdout.strip().splitlines()[-1]
    with tarfile.open(tmp_path / "dist" / name) as sdist:
        top = name.removesuffix(".tar.gz")
        shipped = sdist.extractfile(f"{top}/LICENSE")
        assert shipped is not None and shipped.read().decode("utf-8") == text
