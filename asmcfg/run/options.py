"""The options of one run, as the CLI validated them."""

from __future__ import annotations

from dataclasses import dataclass, field

from asmcfg.model import DialectName, Syntax
from asmcfg.run.pipeline import Selector


@dataclass(frozen=True, slots=True)
class Options:
    """Everything a run needs to know, already validated by the CLI."""

    input: str = "-"
    """Input path, `-` for stdin."""
    selector: Selector = field(default_factory=Selector)
    """Which compilations to show."""
    all: bool = False
    """Every matching compilation, not just one."""
    list: bool = False
    """Print the compilations table and stop."""
    json: str | None = None
    """Write the JSON document here (`-` for stdout)."""
    svg: str | None = None
    """Render the graph to this SVG file."""
    html: str | None = None
    """Write the interactive HTML report here (`-` for stdout)."""
    source_path: tuple[str, ...] = ()
    """Folders of `.java` files the HTML report shows beside the graph."""
    class_path: tuple[str, ...] = ()
    """`--classpath`: folders of `.class` files and jars whose bytecode the HTML report shows (else the record
    folder's own class path)."""
    dot: str | None = None
    """Write DOT here (`-` for stdout); stdout is the default when no other output is asked for."""
    fold: bool = True
    """Fold chains of cold out-of-line blocks."""
    jdk: int | None = None
    """Force the JDK whose trap-reason table is used."""
    syntax: Syntax = Syntax.ATT
    """x86 syntax for decoded hex."""
    input_format: DialectName | None = None
    """Force a dialect instead of sniffing."""
    renderer: str = "auto"
    """Graphviz to use for SVG."""
    render_timeout: float = 60.0
    """Seconds Graphviz may take."""
    strict: bool = False
    """Fail on the first line inside a method that is not understood."""
    quiet: bool = False
    """No summary on stderr."""
    jsonl: str | None = None
    """Write every selected method as JSON Lines here (`-` for stdout), analysed on all cores."""
    facts: bool = False
    """With `jsonl`: write each method's facts record (no instruction lists) instead of the full object."""
    findings: bool = False
    """Write the ranked findings (with `jsonl`: add each record's findings)."""
    profile: str | None = None
    """A perfasm file whose heat goes onto the graph (the input being a dump of the same run)."""
    paths: int = 3
    """How many measured hot paths to rank."""
    log: str | None = None
    """A LogCompilation log of the same run whose inlining and trap records go onto the methods read."""
    pid: int | None = None
    """Of a record folder's JVMs, the one to read (None: the one with the most samples in compiled code)."""
    skid: bool = False
    """Credit each measured sample to the instruction before the one it names, in its block."""
    top: int | None = None
    """With `--all --html DIR`: export only the N hottest (measured) compilations, else the N largest."""
    timeline: bool = False
    """Print the run over time on stderr (with `json`, write it there) and stop."""
    bucket: int | None = None
    """With `timeline`: each bucket's length in ms (None: about 200 buckets across the run)."""
    window: tuple[float | None, float | None] = (None, None)
    """`--from`, `--to`: only the samples of this stretch of the run (ms from the JVM's start) count."""
