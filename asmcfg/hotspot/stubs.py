"""Names of HotSpot runtime stubs that compiled code calls from its out-of-line stub section."""

from __future__ import annotations

RUNTIME_STUB_CALLS = ("SafepointBlob", "method_entry_barrier", "counter_overflow", "patching", "_Java", "C2 Runtime")
"""Substrings of a call target that mark the calling block as stub code."""
