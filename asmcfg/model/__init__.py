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
    LogTrap,
    Method,
    Profile,
    RegionHeat,
    Unprinted,
)
from asmcfg.model.results import Analysis, HotPath, Loop, Trap, TrapEvidence, TrapKind

__all__ = [
    "Analysis",
    "Block",
    "Cfg",
    "Edge",
    "EdgeKind",
    "Flow",
    "Frame",
    "Header",
    "HotPath",
    "Instruction",
    "LogTrap",
    "Loop",
    "Method",
    "Profile",
    "RegionHeat",
    "Trap",
    "TrapEvidence",
    "TrapKind",
    "Unprinted",
]
