"""Names of HotSpot runtime stubs and routines that compiled code calls: from its out-of-line stub section, on
the slow paths of allocation, locking and GC barriers, and for subtype checks."""

from __future__ import annotations

import re

from asmcfg.model.words import PathKind

RUNTIME_STUB_CALLS = ("SafepointBlob", "method_entry_barrier", "counter_overflow", "patching", "_Java", "C2 Runtime")
"""Substrings of a call target that mark the calling block as stub code."""

GENERATED_CODE = re.compile(
    r"Stub::|StubRoutines|_Java\b|C2 Runtime|Runtime1 stub|C1 Runtime|_blob\b|Blob\b|_slow\b|_stub\b"
)
"""A called routine that is code HotSpot generated (StubRoutines, C2 and C1 runtime stubs, blobs), not a VM
function."""

RUNTIME_PATHS = (
    (PathKind.GC_BARRIER, re.compile(r"BarrierSet|barrier_slow|g1_|ZBarrier|z_load_barrier|Shenandoah|load_barrier")),
    (PathKind.ALLOCATION, re.compile(r"new_(?:instance|array|type_array|object_array|multi_array)|multianewarray")),
    (PathKind.UNLOCK, re.compile(r"monitor_?unlock|monitorexit")),
    (PathKind.LOCK, re.compile(r"monitor_?locking|monitorenter")),
)
"""Routines whose call is the slow path of a GC barrier, an allocation, a monitor exit or a monitor enter (the
first that matches names it): G1's `write_ref_field_pre_entry`, `_new_instance_Java`, C1's `monitorenter`, …"""

NOT_A_RUNTIME_PATH = "method_entry_barrier"
"""The nmethod entry barrier's routine: a barrier, but not the GC barrier of an access."""

_JAVA_STUB = re.compile(r"_(\w+)_Java")
_C2_RUNTIME = "C2 Runtime "


def routine_key(name: str) -> str:
    """A C2 runtime stub's routine under every JDK's spelling of it: JDK 17's `_new_instance_Java` and JDK 25's
    `C2 Runtime new_instance` are both `new_instance`; other names are returned as they are."""
    if name.startswith(_C2_RUNTIME):
        return name[len(_C2_RUNTIME) :]
    stub = _JAVA_STUB.fullmatch(name)
    return stub.group(1) if stub else name


SUBTYPE_CHECK = re.compile(r"subtype_check")
"""C1's and C2's subtype-check stubs (`slow_subtype_check`, `partial_subtype_check`)."""
