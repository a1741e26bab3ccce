"""`asmcfg record` with Graal as the JIT, end to end: Graal's jars come from the folder ASMCFG_GRAAL_JARS names
(org.graalvm.compiler:compiler and its dependencies from Maven Central: 23.0.x runs on JDK 17, 25.0.x on JDK 25);
fetching them is not part of the suite, so without them the test is skipped. GraalHot runs until the log shows
Graal's compilation of `step`, then takes the branch `step` never took."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from recording import JAVA17, JAVA25, PERF_OK, compile_java

pytestmark = pytest.mark.slow
JARS = os.environ.get("ASMCFG_GRAAL_JARS", "")
DEADLINE = 600
"""Seconds Graal may take to compile `step` (jargraal, compiled by C1 first, warms up slowly on a busy machine)."""


def _java() -> Path | None:
    """The JDK the jars are for: Graal 25.x on JDK 25, 23.x on JDK 17."""
    jars = Path(JARS)
    versions = [p.name.removeprefix("compiler-")[:2] for p in jars.glob("compiler-*.jar")] if JARS else []
    java = {"25": JAVA25, "23": JAVA17}.get(versions[0]) if versions else None
    return java if java is not None and java.exists() else None


@pytest.mark.skipif(_java() is None, reason="ASMCFG_GRAAL_JARS names no folder of Graal's jars (compiler-23.*.jar "
                                            "for JDK 17, compiler-25.*.jar for JDK 25) for a JDK at hand")
def test_record_under_graal_prints_graals_compilations_and_credits_its_trap(tmp_path: Path) -> None:
    java = _java()
    assert java is not None
    classes = compile_java(tmp_path / "classes", "GraalHot")
    folder, stop = tmp_path / "rec", tmp_path / "stop"
    command = [str(java), "-XX:+UnlockExperimentalVMOptions", "-XX:+EnableJVMCI", "-XX:+UseJVMCICompiler",
               f"--upgrade-module-path={JARS}", "-XX:CompileCommand=quiet",
               "-XX:CompileCommand=dontinline,GraalHot::step", "-cp", str(classes), "GraalHot", str(stop)]
    running = subprocess.Popen([sys.executable, "-m", "asmcfg", "record", "-o", str(folder), "--", *command],
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _wait_for_graals_compilation(folder, running)
    finally:
        stop.touch()
    out, err = running.communicate(timeout=300)
    assert running.returncode == 0, err.decode()
    assert b"rare 1" in out
    assert "a JVMCI compiler is the JIT" in err.decode()
    listed = subprocess.run([sys.executable, "-m", "asmcfg", str(folder), "--list", "--json", "-"],
                            capture_output=True, check=True)
    rows = json.loads(listed.stdout)["compilations"]
    graal = [r for r in rows if r["compiler"] == "jvmci" and r["name"] == "GraalHot::step" and r["printed"]]
    assert graal, "Graal's compilation of step is printed"
    shown = subprocess.run([sys.executable, "-m", "asmcfg", str(folder), "--compile-id", str(graal[-1]["compile_id"]),
                            "--json", "-", "-q"], capture_output=True, check=True)
    method = json.loads(shown.stdout)["methods"][0]
    traps = [b["trap"] for b in method["blocks"] if b["trap"]]
    assert {"null_check", "range_check", "unreached0"} <= {t["reason"] for t in traps}
    assert sum(t["log"]["fired"] for t in traps if t["reason"] == "unreached0") == 1
    if PERF_OK:  # the run's own summary: the compiler threads' samples in compiled code are the JIT's
        assert "the JIT compiler's own compiled code (JVMCI compiler threads)" in err.decode()


def _wait_for_graals_compilation(folder: Path, running: subprocess.Popen[bytes]) -> None:
    """Until the JVM's log holds Graal's `<nmethod>` of GraalHot::step (a known point, not a delay); each log is
    read on from where the last look stopped."""
    deadline = time.monotonic() + DEADLINE
    read: dict[Path, int] = {}
    tails: dict[Path, bytes] = {}
    while time.monotonic() < deadline:
        assert running.poll() is None, "the recording ended before Graal compiled step"
        for log in folder.glob("jvmpid*.xml"):
            with log.open("rb") as handle:
                handle.seek(read.get(log, 0))
                data = tails.get(log, b"") + handle.read()
                read[log] = handle.tell()
            lines = data.split(b"\n")
            tails[log] = lines.pop()
            if any(line.startswith(b"<nmethod") and b"compiler='jvmci'" in line and b"method='GraalHot step" in line
                   for line in lines):
                return
        time.sleep(1)
    pytest.fail(f"Graal did not compile GraalHot::step within {DEADLINE} s")
