"""Helpers for the tests that run `asmcfg record` on real JVMs: the JDKs, the test programs compiled at test time,
and the recording's folder and lines."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from asmcfg.record import perfrun

ROOT = Path(__file__).resolve().parent
JAVA17 = Path("/usr/lib/jvm/java-17-openjdk-amd64/bin/java")
JAVA25 = Path("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java")
JAVAC = shutil.which("javac")
PERF_OK = perfrun.probe("cpu-clock").perf is not None
needs_perf = pytest.mark.skipif(not PERF_OK, reason="perf is missing or may not record here (see perfrun.probe)")
needs_jdks = pytest.mark.skipif(JAVAC is None or not JAVA17.exists() or not JAVA25.exists(),
                                reason="needs javac and the JDK 17 and 25 java programs at their Debian/Temurin paths")


def compile_java(out: Path, *names: str) -> Path:
    """tests/data/java/NAME.java for each name, compiled with javac --release 17 (the class files run on both
    JDKs) into `out`."""
    assert JAVAC is not None
    sources = [str(ROOT / "data/java" / f"{name}.java") for name in names]
    subprocess.run([JAVAC, "--release", "17", "-d", str(out), *sources], check=True)
    return out


def record(args: list[str], cwd: Path, **kw: object) -> subprocess.CompletedProcess[bytes]:
    """`asmcfg record ARGS`, its stdout and stderr as bytes."""
    return subprocess.run([sys.executable, "-m", "asmcfg", "record", *args], cwd=cwd, capture_output=True,
                          timeout=120, check=False, **kw)  # type: ignore[call-overload]


def manifest(folder: Path) -> dict[str, object]:
    """The folder's record.json."""
    return json.loads((folder / "record.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def hot(classes: Path, java: Path, millis: int = 1200, status: int = 0) -> list[str]:
    """The RecHot command line."""
    return [str(java), "-cp", str(classes), "RecHot", str(millis), str(status)]


def error_lines(done: subprocess.CompletedProcess[bytes]) -> list[str]:
    """asmcfg's own lines on stderr (the JVMs' "Picked up JAVA_TOOL_OPTIONS" lines left out)."""
    return [line for line in done.stderr.decode().splitlines() if line.startswith("asmcfg")]
