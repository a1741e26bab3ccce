"""`asmcfg serve` on a record folder whose files break while it serves: a time range's index, its analysis and the
timeline answer with the one sentence that says why, never a dropped connection or a traceback."""

from __future__ import annotations

import lzma
import shutil
import signal
import urllib.error
from pathlib import Path

import pytest
from corpus import DATA
from served import Served

from asmcfg.dialects.logcompilation.events import read_jit_log
from asmcfg.errors import InputError

PHASES = DATA / "timeline" / "jdk17-Phases"


def _corrupt(path: Path) -> None:
    """`path`, an .xz file, replaced by one whose stream breaks in its middle."""
    data = bytearray(path.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 64] = bytes(64)
    path.unlink()
    path.write_bytes(bytes(data))


def test_a_broken_compressed_jit_log_is_one_line_naming_it(tmp_path: Path) -> None:
    log = tmp_path / "jvm.xml.xz"
    shutil.copy(PHASES / "jvmpid19019.xml.xz", log)
    _corrupt(log)
    with pytest.raises(InputError) as refused:
        read_jit_log(str(log))
    assert str(refused.value).startswith(f"{log}:") and "input ends badly" in str(refused.value)


@pytest.mark.slow
def test_a_range_whose_samples_break_is_a_page_saying_why(tmp_path: Path) -> None:
    folder = tmp_path / "jdk17-Phases"
    shutil.copytree(PHASES, folder)
    served = Served(folder)
    try:
        opener = served.opener()
        _corrupt(folder / "perf-script.txt.xz")
        _corrupt(folder / "jvmpid19019.xml.xz")
        for path in ("api/facts?since=0&from=1&to=2", "timeline"):
            try:
                with opener.open(served.base + path, timeout=120) as answer:
                    status, body = answer.status, answer.read().decode("utf-8")
            except urllib.error.HTTPError as error:
                status, body = error.code, error.read().decode("utf-8")
            assert "input ends badly" in body, (path, status)
    finally:
        _, _, err = served.stop(signal.SIGTERM)
    assert "a request failed" not in err and lzma.LZMAError.__name__ not in err
