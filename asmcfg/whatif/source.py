"""What a what-if replays: the replay data of one recorded compilation (from a record folder's archive, or a
replay file made by hand), its classes, and the JDK that replays it.

The `java` run is never one a record folder names: it is the one `--java` gives, else the installed JDK whose
release is the recorded JVM's (found on PATH, in JAVA_HOME and in /usr/lib/jvm)."""

from __future__ import annotations

import glob
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from asmcfg.errors import InputError, SelectionError
from asmcfg.model import Analysis, Compiler
from asmcfg.record import replay
from asmcfg.record.capture import java_major
from asmcfg.run import recordjson
from asmcfg.run.log import Log
from asmcfg.run.pipeline import Selector
from asmcfg.whatif.replayfile import Task, task

REPLAY_SINCE = 20
"""`-XX:+ReplayCompiles` is a diagnostic flag of product builds from JDK 20 on (debug builds only before)."""
LARGEST = 64 << 20
"""The largest replay file or record.json read."""
JDK_PLACES = ("/usr/lib/jvm/*/bin/java",)
"""Where installed JDKs are looked for, besides PATH and JAVA_HOME."""


@dataclass(frozen=True, slots=True)
class Source:
    """One compilation to replay."""

    text: str
    """The replay file's text."""
    task: Task
    """Its compile task."""
    java: str
    """The `java` that replays it."""
    release: str | None
    """That JDK's release (`25.0.3+9-LTS`), None when unknown."""
    class_path: str | None
    """The class path, entries made absolute."""
    module_path: str | None
    """The module path, or None."""
    recorded: Analysis | None
    """The recorded compilation analysed (None for a replay file given alone)."""
    what: str
    """The compilation as messages name it: `Sum::sum (compile id 10 of pid 5367)`."""


def of_folder(folder: str, selector: Selector, pid: int | None, java: str | None, class_path: str | None) -> Source:
    """The chosen compilation of a record folder (the hottest C2 one by default) and its replay data."""
    log = Log(folder, pid=pid)
    picked = log.choose_by(selector if selector.any else Selector(compiler=Compiler.C2))
    header = picked.method.header
    assert log.pid is not None
    what = f"{header.name} (compile id {header.compile_id} of pid {log.pid})"
    manifest = recordjson.read(folder, LARGEST)
    jvm = recordjson.jvm(manifest, log.pid)
    archive = Path(folder) / replay.ARCHIVE.format(pid=log.pid)
    data = replay.read(archive, header.compile_id) if header.compile_id is not None and archive.is_file() else None
    if data is None:
        kept = jvm.get("replay")
        ids = kept.get("compile_ids") if isinstance(kept, dict) else None
        shown = [str(n) for n in ids[:20] if isinstance(n, int)] if isinstance(ids, list) else []
        has = f" (the folder holds those of compile ids {', '.join(shown)})" if shown else ""
        raise SelectionError(f"no replay data for {what}{has}: record with asmcfg record --replay covering it, "
                             "on JDK 21 or later", folder)
    text = data.decode("utf-8", "replace")
    found = task(text, f"{archive.name}:replay_pid{log.pid}_compid{header.compile_id}.log")
    if found.name != header.name:
        raise InputError(f"the replay data of compile id {header.compile_id} is of {found.name}, not {header.name}",
                         folder)
    release = _release(log.path)
    chosen = java or _installed(release, _str(jvm.get("java_home")))
    recorded = log.analyse(picked).analysis
    working = manifest.get("working_folder")
    paths = class_path or _absolute(_str(jvm.get("class_path")), working)
    return Source(text, found, chosen, release, paths, _absolute(_str(jvm.get("module_path")), working),
                  recorded, what)


def of_file(path: str, java: str | None, class_path: str | None) -> Source:
    """A replay file made by hand, replayed with `--classpath` by `--java` (else the `java` on PATH)."""
    try:
        with open(path, "rb") as stream:
            data = stream.read(LARGEST + 1)
    except OSError as error:
        raise InputError(f"cannot read it: {error.strerror}", path) from None
    if len(data) > LARGEST:
        raise InputError(f"larger than {LARGEST >> 20} MB: not a replay file", path)
    found = task(data.decode("utf-8", "replace"), path)
    if class_path is None:
        raise InputError("a replay file given alone needs --classpath (the class path of the JVM that wrote it)",
                         path)
    chosen = java or shutil.which("java")
    if chosen is None:
        raise InputError("no java on PATH: give --java", path)
    from asmcfg.record.capture import java_release

    return Source(data.decode("utf-8", "replace"), found, chosen, java_release(chosen), class_path, None, None,
                  f"{found.name} ({os.path.basename(path)})")


def check_jdk(source: Source) -> int | None:
    """The replaying JDK's feature release; an InputError when it is older than JDK 20."""
    from asmcfg.record.capture import java_release

    major = java_major(java_release(source.java)) or java_major(source.release)
    if major is not None and major < REPLAY_SINCE:
        alone = "" if source.recorded is not None else \
            f" (that is {source.java}'s: give --java the JDK that wrote the replay file)"
        raise InputError(f"JDK {major} replays no compilation (-XX:+ReplayCompiles is in its debug builds only, "
                         f"product builds have it from JDK 20 on): record on JDK 21 or later{alone}", "whatif")
    return major


def _installed(release: str | None, recorded_home: str | None) -> str:
    """The `java` of an installed JDK whose release is `release`, the recorded java.home preferred."""
    from asmcfg.record.capture import java_release

    if release is not None and (java_major(release) or 0) < REPLAY_SINCE:
        raise InputError(f"JDK {release} replays no compilation (-XX:+ReplayCompiles is in its debug builds only, "
                         "product builds have it from JDK 20 on): record on JDK 21 or later", "whatif")
    found = [p for p in (shutil.which("java"), os.path.join(os.environ.get("JAVA_HOME", "/nonexistent"), "bin/java"),
                         *sorted(glob.glob(JDK_PLACES[0]))) if p and os.path.isfile(p)]
    homes = {os.path.realpath(p): p for p in found}
    wanted = (release or "").split("+")[0]
    matching = [p for real, p in homes.items() if wanted and java_release(real) == wanted]
    if recorded_home:
        preferred = [p for p in matching if os.path.realpath(p) == os.path.realpath(os.path.join(recorded_home,
                                                                                                 "bin/java"))]
        matching = preferred or matching
    if not matching:
        raise InputError(f"no installed JDK {release or '(release unknown)'} found to replay with (the recorded "
                         f"java.home {recorded_home}): give --java", "whatif")
    return matching[0]


def _release(log_path: str) -> str | None:
    """The recorded JVM's release, from its log's head."""
    import re

    from asmcfg.sources.lines import open_binary

    with open_binary(log_path) as stream:
        found = re.search(rb"<release>\s*([^<\s]+)\s*</release>", stream.read(64 << 10))
    return found.group(1).decode("ascii", "replace") if found else None


def kept_ids(folder: str, pid: int) -> frozenset[int]:
    """The compile ids record.json says the folder keeps replay data of, for JVM `pid`."""
    kept = recordjson.jvm(recordjson.read(folder, LARGEST), pid).get("replay")
    ids = kept.get("compile_ids") if isinstance(kept, dict) else None
    return frozenset(n for n in ids if isinstance(n, int)) if isinstance(ids, list) else frozenset()


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _absolute(paths: str | None, working: object) -> str | None:
    """A class or module path with its relative entries made absolute against the recorded working folder."""
    return None if paths is None else os.pathsep.join(recordjson.absolute(paths.split(os.pathsep), working))
