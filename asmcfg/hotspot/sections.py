"""HotSpot's section markers: the bracketed labels (`[Verified Entry Point]`) an nmethod prints in its code."""

from __future__ import annotations

from asmcfg.model.words import Tag

ENTRY = "Entry Point"
VERIFIED_ENTRY = "Verified Entry Point"
EXCEPTION_HANDLER = "Exception Handler"
DEOPT_HANDLER = "Deopt Handler Code"
DEOPT_MH_HANDLER = "Deopt MH Handler Code"
STUB_CODE = "Stub Code"
INSTRUCTIONS_BEGIN = "Instructions begin"
CONSTANTS = "Constants"

ROOTS = (ENTRY, VERIFIED_ENTRY, EXCEPTION_HANDLER, DEOPT_HANDLER, DEOPT_MH_HANDLER)
"""Markers of code entered from outside the method: each starts a block with no predecessor."""
KEPT = frozenset({*ROOTS, STUB_CODE, INSTRUCTIONS_BEGIN})
"""Markers a reader keeps on the method (the others are layout noise)."""
TAGS = {
    ENTRY: Tag.ENTRY,
    VERIFIED_ENTRY: Tag.VERIFIED_ENTRY,
    EXCEPTION_HANDLER: Tag.EXCEPTION_HANDLER,
    DEOPT_HANDLER: Tag.DEOPT_HANDLER,
    DEOPT_MH_HANDLER: Tag.DEOPT_HANDLER,
    STUB_CODE: Tag.STUB,
}
"""The block tag each marker gives the block it starts."""
