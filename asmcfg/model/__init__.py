"""The records that flow through the pipeline: parsed methods, blocks, edges and analysis results.

The names load with the module that defines them, on first use: a run that needs only the vocabulary (`--list`
of a large log) does not pay for the record classes.
"""

from typing import TYPE_CHECKING

NOT_IN_LOG = "code not in the log"
"""The mark of a compilation a LogCompilation log records (`<nmethod>`) but whose assembly it never printed (the
listing and `describe` name it so)."""

if TYPE_CHECKING:
    from asmcfg.model.code import (
        Block,
        Cfg,
        Edge,
        EdgeKind,
        Flow,
        Frame,
        Header,
        Instruction,
        Method,
        SourceLoc,
        Unprinted,
    )
    from asmcfg.model.java import JavaSources
    from asmcfg.model.log import LogBranch, LogInline, LogTrap
    from asmcfg.model.profile import Profile, RegionHeat
    from asmcfg.model.results import (
        Analysis,
        Call,
        HotPath,
        Loop,
        LoopFacts,
        RuntimePath,
        Trap,
        TrapEvidence,
        TrapKind,
        TypeCheck,
    )
    from asmcfg.model.words import (
        CallKind,
        Check,
        ChoiceRule,
        Compiler,
        DialectName,
        Drawn,
        Feature,
        IsaName,
        LoopRole,
        NoteKind,
        PathKind,
        Place,
        Syntax,
        Tag,
        TrapOrigin,
        VectorIsa,
        Verdict,
        Word,
    )

_HOMES = {
    "Analysis": "results",
    "Block": "code",
    "Call": "results",
    "CallKind": "words",
    "Cfg": "code",
    "Check": "words",
    "ChoiceRule": "words",
    "Compiler": "words",
    "DialectName": "words",
    "Drawn": "words",
    "Place": "words",
    "Edge": "code",
    "EdgeKind": "code",
    "Feature": "words",
    "Flow": "code",
    "Frame": "code",
    "Header": "code",
    "HotPath": "results",
    "Instruction": "code",
    "IsaName": "words",
    "JavaSources": "java",
    "LogBranch": "log",
    "LogInline": "log",
    "LogTrap": "log",
    "Loop": "results",
    "LoopFacts": "results",
    "LoopRole": "words",
    "VectorIsa": "words",
    "Method": "code",
    "NoteKind": "words",
    "PathKind": "words",
    "Profile": "profile",
    "RegionHeat": "profile",
    "RuntimePath": "results",
    "SourceLoc": "code",
    "Syntax": "words",
    "Tag": "words",
    "Trap": "results",
    "TrapEvidence": "results",
    "TrapKind": "results",
    "TrapOrigin": "words",
    "TypeCheck": "results",
    "Unprinted": "code",
    "Verdict": "words",
    "Word": "words",
}
"""The module of `asmcfg.model` that defines each name."""


def __getattr__(name: str) -> object:
    """`asmcfg.model.X`, imported from its module the first time it is asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "NOT_IN_LOG",
    "Analysis",
    "Block",
    "Call",
    "CallKind",
    "Cfg",
    "Check",
    "ChoiceRule",
    "Compiler",
    "DialectName",
    "Drawn",
    "Edge",
    "EdgeKind",
    "Feature",
    "Flow",
    "Frame",
    "Header",
    "HotPath",
    "Instruction",
    "IsaName",
    "JavaSources",
    "LogBranch",
    "LogInline",
    "LogTrap",
    "Loop",
    "LoopFacts",
    "LoopRole",
    "Method",
    "NoteKind",
    "PathKind",
    "Place",
    "Profile",
    "RegionHeat",
    "RuntimePath",
    "SourceLoc",
    "Syntax",
    "Tag",
    "Trap",
    "TrapEvidence",
    "TrapKind",
    "TrapOrigin",
    "TypeCheck",
    "Unprinted",
    "VectorIsa",
    "Verdict",
    "Word",
]
