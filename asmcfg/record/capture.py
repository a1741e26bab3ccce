"""The JVM flags of a recording and how they reach the JVMs: after `java` on its command line, else through
`JAVA_TOOL_OPTIONS`, which every JVM the command starts reads (build tools, JMH forks, scripts)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from asmcfg.errors import InputError
from asmcfg.model.words import Printing, Word

DIRECTIVES = "c2print.json"
"""The compiler directives file written into the folder for the default printing."""
DIRECTIVES_TEXT = '[ { match: "*.*", c2: { PrintAssembly: true } } ]\n'
"""Print every C2 compilation, none of C1's."""
REPLAY_ALL = "*.*"
"""`--replay`'s default: keep the replay data of every compilation printed."""
REPLAY_PATTERN = re.compile(r"[A-Za-z0-9_$*/.:<>]+")
"""What a `--replay` pattern may hold (HotSpot's Class::method globs): nothing a directives file or
JAVA_TOOL_OPTIONS would have to quote."""
JVMCI_OWN = ('[ { match: ["jdk/graal/*.*", "org/graalvm/*.*", "jdk/vm/ci/*.*", "jdk/internal/vm/compiler/*.*"], '
             "c1: { PrintAssembly: false } },\n  ")
"""With a JVMCI compiler as the JIT, the first directive: the compiler's own classes (jargraal's, compiled by C1)
are not printed. HotSpot gives a JVMCI compilation the directives' `c1:` block, so the others print C1's too."""
JVMCI_JIT = ("-XX:+UseJVMCICompiler", "-XX:+UseGraalJIT")
"""The flags that make a JVMCI compiler (Graal) the JIT; their `-XX:-` forms undo them."""
JVMCI_NOTE = ("a JVMCI compiler is the JIT: its compilations are printed, and C1's with them (HotSpot gives both "
              "the directives' c1 block), the compiler's own classes left out")
LOG_PATTERN = "jvm%p.xml"
"""`-XX:LogFile` name: HotSpot expands `%p` to `pid<PID>`, so each JVM writes `jvmpid<PID>.xml`."""
TOOL_OPTIONS = "JAVA_TOOL_OPTIONS"
_UNQUOTABLE = re.compile("['\"\n\r\t\\\\]")
"""What HotSpot's option-string quoting cannot carry: quotes, a backslash, control characters."""


class FlagPassing(Word):
    """How `asmcfg record` handed its flags to the JVMs."""

    COMMAND_LINE = "command line"
    """Inserted after `java` in the command only: the folder's path cannot go into JAVA_TOOL_OPTIONS."""
    JAVA_TOOL_OPTIONS = "JAVA_TOOL_OPTIONS"
    """Through the environment, so every JVM the command starts reads them."""
    BOTH = "command line and JAVA_TOOL_OPTIONS"
    """After `java`, and through the environment for the JVMs that JVM starts."""


@dataclass(frozen=True, slots=True)
class Asked:
    """What the user asked to print."""

    printing: Printing
    """Every C2 compilation, one method pattern, or all code."""
    pattern: str | None = None
    """The `--method` pattern (with `Printing.METHOD`)."""
    replay: str | None = REPLAY_ALL
    """The methods whose compilations' replay data HotSpot dumps (`DumpReplay`), or None for none."""

    def describe(self) -> str:
        """`c2`, `method PATTERN` or `all`: record.json's `printing`."""
        return f"method {self.pattern}" if self.printing is Printing.METHOD else str(self.printing)


@dataclass(frozen=True, slots=True)
class Launch:
    """The command as it is run, and its environment."""

    argv: list[str]
    """The command, with the flags inserted when it runs `java`."""
    env: dict[str, str]
    """The environment, with JAVA_TOOL_OPTIONS extended when it does not."""
    flags: list[str]
    """The JVM flags, one per element."""
    passing: FlagPassing
    """Where the flags went."""


def jvm_flags(folder: Path, asked: Asked, perf_map: bool) -> list[str]:
    """The diagnostic flags: the log of each JVM in `folder`, the printing asked for, and with `perf_map` the
    map of JIT code written at exit (`-XX:+DumpPerfMapAtExit`, JDK 17 and later) that names stubs in the samples.

    `-XX:+LogVMOutput` is not needed: once LogCompilation opens the log, HotSpot writes its tty output (the
    printed code) into the log's `<tty>`, and `-XX:-DisplayVMOutput` keeps it off stdout. `-Xlog:os=off`
    keeps JDK 25's "Loading hsdis library failed" warning off stdout (JDK 17 accepts it too)."""
    flags = [
        "-XX:+UnlockDiagnosticVMOptions",
        "-XX:+LogCompilation",
        f"-XX:LogFile={folder / LOG_PATTERN}",
        "-XX:-DisplayVMOutput",
        "-XX:+DebugNonSafepoints",
    ]
    if perf_map:
        flags.append("-XX:+DumpPerfMapAtExit")
    flags.append("-Xlog:os=off")
    if asked.printing is Printing.C2:
        flags.append(f"-XX:CompilerDirectivesFile={folder / DIRECTIVES}")
    elif asked.printing is Printing.METHOD:
        flags.append(f"-XX:CompileCommand=print,{asked.pattern}")
    else:
        flags.append("-XX:+PrintAssembly")
    if asked.replay is not None and asked.printing is not Printing.C2:  # C2 printing: in the directives file
        replayed = asked.pattern if asked.printing is Printing.METHOD and asked.replay == REPLAY_ALL else asked.replay
        flags.append(f"-XX:CompileCommand=DumpReplay,{replayed}")
    return flags


def uses_jvmci(argv: list[str], env: dict[str, str]) -> bool:
    """True when the command's JVM takes a JVMCI compiler as its JIT: `-XX:+UseJVMCICompiler` or
    `-XX:+UseGraalJIT` on the command line or in JAVA_TOOL_OPTIONS / JDK_JAVA_OPTIONS, the last word winning."""
    words = [*env.get(TOOL_OPTIONS, "").split(), *env.get("JDK_JAVA_OPTIONS", "").split()]
    words += [w for arg in argv for w in arg.split()]
    chosen = False
    for word in words:
        if word in JVMCI_JIT:
            chosen = True
        elif word in (f.replace("+", "-", 1) for f in JVMCI_JIT):
            chosen = False
    return chosen


def directives_text(asked: Asked, jvmci: bool = False) -> str:
    """The directives file of the default printing: every C2 compilation printed, and the replay data of those
    `--replay` names dumped (`DumpReplay`: the first directive that matches a method is the one applied); with a
    JVMCI compiler as the JIT (`jvmci`), its compilations printed too, through the `c1:` block."""
    if asked.replay is None:
        text = DIRECTIVES_TEXT
    elif asked.replay == REPLAY_ALL:
        text = '[ { match: "*.*", c2: { PrintAssembly: true, DumpReplay: true } } ]\n'
    else:
        text = (f'[ {{ match: "{asked.replay}", c2: {{ PrintAssembly: true, DumpReplay: true }} }},\n'
                '  { match: "*.*", c2: { PrintAssembly: true } } ]\n')
    if not jvmci:
        return text
    return JVMCI_OWN + text.removeprefix("[ ").replace("c2: {", "c1: { PrintAssembly: true }, c2: {")


def runs_java(argv: list[str]) -> bool:
    """True when the command's program is `java` itself (`java`, `/usr/lib/jvm/…/bin/java`)."""
    return bool(argv) and os.path.basename(argv[0]) == "java"


def launch(argv: list[str], flags: list[str], env: dict[str, str]) -> Launch:
    """The environment with JAVA_TOOL_OPTIONS extended (appended to a value already there, so the user's own
    options keep working), and when the command runs `java`, the flags right after it too: that JVM reads them
    from its command line (where any folder path works), the JVMs it starts from the environment (when it can
    carry the path: `carries`)."""
    quoted = " ".join(tool_option(flag) for flag in flags)
    before = env.get(TOOL_OPTIONS, "").strip()
    extended = {**env, TOOL_OPTIONS: f"{before} {quoted}" if before else quoted}
    if not runs_java(argv):
        return Launch(list(argv), extended, flags, FlagPassing.JAVA_TOOL_OPTIONS)
    if not carries(flags):
        return Launch([argv[0], *flags, *argv[1:]], dict(env), flags, FlagPassing.COMMAND_LINE)
    return Launch([argv[0], *flags, *argv[1:]], extended, flags, FlagPassing.BOTH)


def carries(flags: list[str]) -> bool:
    """True when JAVA_TOOL_OPTIONS can carry every flag (no quote, backslash or control character in a path)."""
    return not any(_UNQUOTABLE.search(flag) for flag in flags)


def tool_option(flag: str) -> str:
    """One flag as JAVA_TOOL_OPTIONS needs it: a flag holding a space in single quotes (HotSpot's option
    strings take quotes since JDK 9)."""
    return f"'{flag}'" if " " in flag else flag


def check_folder_path(folder: Path, argv: list[str]) -> None:
    """Refuse a folder whose path JAVA_TOOL_OPTIONS cannot carry (a quote, a backslash, a control character);
    spaces are quoted. On java's own command line every path works."""
    if not runs_java(argv) and _UNQUOTABLE.search(str(folder)):
        raise InputError(f"{folder}: JAVA_TOOL_OPTIONS cannot carry a path holding quotes, backslashes or control "
                         "characters: choose another folder with -o", "record")


def java_release(java: str) -> str | None:
    """The JAVA_VERSION of the JDK a `java` program belongs to, read from its `release` file (`1.8.0_392`,
    `17.0.15`); None when there is none to read."""
    try:
        home = Path(os.path.realpath(java)).parent.parent
    except OSError:
        return None
    for release in (home / "release", home.parent / "release"):  # JDK 8's bin/java may be under jre/
        try:
            text = release.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        found = re.search(r'^JAVA_VERSION="([^"]*)"', text, re.MULTILINE)
        if found:
            return found.group(1)
    return None


def java_major(release: str | None) -> int | None:
    """The feature release of a JAVA_VERSION (`1.8.0_392` -> 8, `17.0.15` -> 17), or None."""
    found = re.match(r"(?:1\.)?(\d+)", release or "")
    return int(found.group(1)) if found else None


PERF_MAP_SINCE = 17
"""-XX:+DumpPerfMapAtExit exists from JDK 17 on; an older JVM refuses to start with it."""


def has_hsdis(java: str) -> bool:
    """True when an hsdis library lies where a JDK 8 `java` looks for it (beside libjvm.so, or in jre/lib)."""
    home = Path(os.path.realpath(java)).parent.parent
    return any(home.glob("**/hsdis-*.so"))


def refuse_jdk8(java: str) -> None:
    """A JDK 8 without hsdis prints no code at all (it has no `[MachCode]` hex fallback): say so and name the fix."""
    release = java_release(java)
    if release is not None and release.startswith("1.") and not has_hsdis(java):
        raise InputError(f"{java} is JDK {release}, which prints no assembly without hsdis: run the program on "
                         "JDK 9 or later, or install hsdis-amd64.so into that JDK", "record")
