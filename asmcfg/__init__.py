"""asmcfg: control-flow graphs from HotSpot JIT assembly, tagged with what HotSpot means.

The library's way in is `asmcfg.open(path)`, which gives a `Log` (see docs/api.md):

    import asmcfg

    log = asmcfg.open("rec")                       # a file, `-`, or an `asmcfg record` folder
    for row in log.compilations():                 # fast: no compilation is analysed
        print(row.compile_id, row.method, row.share)
    analysis = log.analyse(log.choose(method="Hot::sum")).analysis

The names load on first use: `import asmcfg` loads nothing else.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from asmcfg.run.compilations import Compilation
    from asmcfg.run.enrich import Enriched
    from asmcfg.run.log import Log, Note, open
    from asmcfg.run.logdiff import diff
    from asmcfg.run.pipeline import Picked, Selector

__version__ = "0.1.0"
API_VERSION = 1
"""The version of the library API this page documents (`docs/api.md`): raised when a name or a field of it changes
meaning or goes, as the JSON schema's is."""

_HOMES = {"open": "log", "Log": "log", "Note": "log", "diff": "logdiff", "Compilation": "compilations",
          "Enriched": "enrich", "Picked": "pipeline", "Selector": "pipeline"}
"""The module of `asmcfg.run` that defines each public name."""


def __getattr__(name: str) -> object:
    """`asmcfg.X` of the library API, imported from its module the first time it is asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"asmcfg.run.{home}"), name)
    globals()[name] = value
    return value


__all__ = ["API_VERSION", "Compilation", "Enriched", "Log", "Note", "Picked", "Selector", "__version__", "diff",
           "open"]
