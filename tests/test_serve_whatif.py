"""`asmcfg serve` of a record folder: the "what if…" form on a compilation page whose replay data the folder
keeps, its answer (the diff page, the sweep's table, or one line saying why not), the option check, and the
cookie guarding it. The fast tests drive the server's what-ifs with a stand-in `java` (test_whatif's); the slow
one records WhatIf on JDK 25 and asks a running server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from recording import JAVA25, JAVAC, compile_java, record
from served import Served
from test_whatif import ADD, FOLDER, assert_nothing_left, fake

from asmcfg.serve import pages
from asmcfg.serve.whatif import WhatIfs

__all__ = ["fake"]  # the fixture, used by name
COMPILE_IDS = [12, 14, 16, ADD, 18, 13]


@pytest.fixture
def whatifs(fake: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> WhatIfs:
    for name in ("FAKE_JAVA_DATA", "FAKE_JAVA_PIDS", "TMPDIR"):
        monkeypatch.setenv(name, fake[name])
    monkeypatch.setenv("FAKE_JAVA", "replay")
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # TMPDIR read again
    return WhatIfs(str(FOLDER), 19291, COMPILE_IDS, java=fake["java"])


def test_the_form_is_offered_only_where_the_folder_keeps_replay_data(whatifs: WhatIfs) -> None:
    assert [whatifs.offers(n) for n in range(len(COMPILE_IDS))] == [False, False, False, True, True, False]
    page = pages.Page(b'<!DOCTYPE html><html><body class="x"><p>report</p></body></html>', pages.POLICY)
    formed = whatifs.form(page, "/c/17")
    assert b'<body class="x"><form method="get" action="/whatif/c/17"' in formed.body
    assert b'href="/whatif/c/17?sweep=1"' in formed.body
    assert "form-action 'self'" in formed.policy and "form-action 'none'" not in formed.policy


def test_a_what_if_answers_with_the_diff_page_saying_the_baseline_matches(whatifs: WhatIfs,
                                                                        fake: dict[str, str]) -> None:
    page = whatifs.page(3, "-XX:-UseSuperWord", sweep=False)
    text = page.body.decode()
    assert "baseline matches the recording" in text and "<span>what-if: " in text
    assert "frame-src about:" in page.policy
    assert_nothing_left(fake)


@pytest.mark.parametrize(("n", "line", "said"), [
    (0, "-XX:-UseSuperWord", "the record folder keeps no replay data of this compilation"),
    (3, "-XX:OnError=id", "-XX:OnError=id: this option reads or writes files"),
    (3, "-XX:+UseSuperWord;id", "a what-if takes JVM options of the form"),
    (3, "", "give JVM options such as -XX:-UseSuperWord, or ask for the sweep"),
    (3, " ".join(["-XX:-UseSuperWord"] * 17), "more than 16 options"),
])
def test_a_what_if_that_cannot_run_is_a_page_saying_why(whatifs: WhatIfs, n: int, line: str, said: str) -> None:
    page = whatifs.page(n, line, sweep=False)
    assert said.replace("'", "&#x27;") in page.body.decode()
    assert page.policy == pages.NO_SCRIPT


def test_a_sweep_answers_with_its_table(whatifs: WhatIfs, fake: dict[str, str]) -> None:
    text = whatifs.page(3, "", sweep=True).body.decode()
    assert "baseline matches the recording" in text and "-XX:-UseSuperWord" in text and "<pre" in text
    assert_nothing_left(fake)


@pytest.mark.slow
@pytest.mark.skipif(JAVAC is None or not JAVA25.exists(), reason="needs javac and JDK 25 at its Temurin path")
def test_a_served_record_folder_replays_a_compilation_with_options(tmp_path: Path) -> None:
    classes = compile_java(tmp_path / "classes", "WhatIf")
    done = record(["-o", str(tmp_path / "rec"), "--no-perf", "--", str(JAVA25), "-cp", str(classes), "WhatIf"],
                  tmp_path)
    assert done.returncode == 0, done.stderr
    listing = subprocess.run([sys.executable, "-m", "asmcfg", str(tmp_path / "rec"), "--list", "--json", "-"],
                             capture_output=True, text=True, check=True).stdout
    add = [r["compile_id"] for r in json.loads(listing)["compilations"]
           if r["name"] == "WhatIf::add" and r["osr_bci"] is None][-1]
    served = Served(tmp_path / "rec")
    try:
        opener = served.opener()
        home = opener.open(served.base, timeout=60).read().decode()
        link = next(path for path in json.loads(home.split('id="data">', 1)[1].split("</script>", 1)[0])["pages"]
                    if path.endswith(f"/{add}") or f"/{add}-" in path or path == f"/c/{add}")
        page = opener.open(served.base.rstrip("/") + link, timeout=120).read().decode()
        assert f'action="/whatif{link}"' in page
        answer = opener.open(f"{served.base.rstrip('/')}/whatif{link}?options=-XX%3A-UseSuperWord",
                             timeout=300).read().decode()
        assert "baseline matches the recording" in answer and "256-bit" in answer
        with pytest.raises(urllib.error.HTTPError):  # no cookie, no what-if
            urllib.request.urlopen(f"{served.base.rstrip('/')}/whatif{link}?options=-XX%3A-UseSuperWord",
                                   timeout=60)
    finally:
        code, _, err = served.stop(signal.SIGTERM)
    assert code == 128 + signal.SIGTERM, err
    assert not [line for line in os.popen("ps -eo cmd").read().splitlines() if "ReplayCompiles" in line
                and str(tmp_path) in line]
