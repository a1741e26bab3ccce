"""Shared test helpers: where the copied corpus samples live, and how tests are shared out between pytest-xdist's
workers."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


_CACHE: list[str] = []
"""The cache folder this process made for the suite, removed at its end."""


def pytest_configure(config: pytest.Config) -> None:
    """The runs of the suite (and the processes they start) keep their cache in a folder of their own, never in
    the user's (`sources.cache`); the workers of a parallel run share the one their controller made."""
    if not os.environ.get("ASMCFG_TEST_CACHE"):
        _CACHE.append(tempfile.mkdtemp(prefix="asmcfg-test-cache-"))
        os.environ["ASMCFG_CACHE_DIR"] = _CACHE[0]
        os.environ["ASMCFG_TEST_CACHE"] = "1"


def pytest_unconfigure(config: pytest.Config) -> None:
    for made in _CACHE:
        shutil.rmtree(made, ignore_errors=True)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens", action="store_true", help="Rewrite tests/goldens/ from the outputs instead of comparing."
    )


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    """True when the run was asked to rewrite the golden files."""
    return bool(request.config.getoption("--update-goldens"))


SHARED_SCOPES = frozenset({"class", "module", "package"})
"""Fixture scopes whose value is built once for several tests of one module or class (a browser, a generated log)."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With `--dist loadgroup`, keep the tests of a module that share a fixture of SHARED_SCOPES in one worker, so
    that it is built once; every other test goes to whichever worker is free. (Before xdist reads the groups.)"""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        definitions = info.name2fixturedefs.values() if info is not None else ()
        if any(d.scope in SHARED_SCOPES for defs in definitions for d in defs):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))
