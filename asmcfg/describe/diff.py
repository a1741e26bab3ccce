"""Human words and colours for `asmcfg diff`: what happened to an item between two compilations."""

from __future__ import annotations

DIFF_COLOURS = {"added": "#2e9e44", "removed": "#d62828", "changed": "#f0a202", "same": "#999999"}
"""`asmcfg diff`: border and fill accents of added (green), removed (red) and changed (amber) items."""
DIFF_FILLS = {"added": "#d8f3dc", "removed": "#ffd6d6", "changed": "#ffefc2"}
"""`asmcfg diff`: fill of blocks holding an added, removed or changed item."""
CHANGE_LABELS = {
    "added": "added",
    "removed": "removed",
    "left_loop": "left the loop",
    "entered_loop": "entered a loop",
    "inlined": "became inlined",
    "not_inlined": "no longer inlined",
    "kind": "call kind changed",
    "reason": "reason or action differs",
}
"""`asmcfg diff`: what happened to a trap, check, call or poll."""
