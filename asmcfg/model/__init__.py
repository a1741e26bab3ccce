"""The records that flow through the pipeline: parsed methods, blocks, edges and analysis results."""

from asmcfg.model.code import (
    Block,
    Cfg,
    Edge,
    EdgeKind,
    Flow,
    Frame,
    Header,
    Instruction,
    LogInline,
    LogTrap,
    Method,
    Unprinted,
)
from asmcfg.model.java import JavaSources
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

__all__ = [
    "Analysis",
    "Block",
    "Call",
    "Cfg",
    "Edge",
    "EdgeKind",
    "Flow",
    "Frame",
    "Header",
    "HotPath",
    "Instruction",
    "JavaSources",
    "LogInline",
    "LogTrap",
    "Loop",
    "LoopFacts",
    "Method",
    "Profile",
    "RegionHeat",
    "RuntimePath",
    "Trap",
    "TrapEvidence",
    "TrapKind",
    "TypeCheck",
    "Unprinted",
]
