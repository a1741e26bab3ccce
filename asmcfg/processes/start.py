"""How a process is started: forked where this process runs no other thread, else from the `forkserver`; stopped by
its parent alone, and killed with it."""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
from collections.abc import Iterable
from dataclasses import fields, is_dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

FORK = hasattr(os, "fork")
"""True where a process can be forked (not on Windows). Nothing here is imported before a process is started: a run
that starts none (one compilation read) does not pay for `multiprocessing`."""
STOPPING = (signal.SIGTERM, signal.SIGHUP)
"""The signals a parent is stopped by; a process started here dies of them, left to its parent otherwise."""
_PR_SET_PDEATHSIG = 1
"""prctl option: the signal the kernel sends this process when the thread that forked it ends (Linux)."""
_PRELOAD: list[str] = []
_REGISTERED: set[type] = set()
_SEEN = [0]
"""How many modules were imported when `picklable` last looked."""


def forkable() -> bool:
    """True when this process may be forked: it can be, and no other thread runs (a forked copy of a threaded process
    holds the locks its other threads held then, an import's or the allocator's, and may wait for them forever)."""
    threading = sys.modules.get("threading")  # never imported: no thread was started from Python
    return FORK and (threading is None or threading.active_count() == 1)


def context() -> BaseContext:
    """The processes started now: forked where `forkable`, else from the forkserver (its server process, started by
    fork and exec, runs no thread; what the process runs is pickled to it), else spawned (Windows)."""
    import multiprocessing

    if forkable():
        return multiprocessing.get_context("fork")
    if "forkserver" in multiprocessing.get_all_start_methods():
        if _PRELOAD:
            multiprocessing.set_forkserver_preload(_PRELOAD)
        return multiprocessing.get_context("forkserver")
    return multiprocessing.get_context("spawn")


def preload(modules: Iterable[str]) -> None:
    """Modules the forkserver imports once, when it starts (`warm`), so that the processes it forks need not (a
    process that starts there imports its function's module)."""
    _PRELOAD.extend(name for name in modules if name not in _PRELOAD)


def warm() -> None:
    """Where processes start from the forkserver, start it now: it imports its preloads while this process goes on,
    instead of when the first process is asked for."""
    if context().get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()


def started(parent: int | None) -> None:
    """In a process started here: SIGINT ignored (Ctrl-C reaches the whole process group, and the parent ends its
    processes), SIGTERM and SIGHUP kill it as they do by default, and the end of `parent` (None: the process that
    forked this one, the forkserver) kills it too."""
    for caught in STOPPING:
        signal.signal(caught, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(os.getppid() if parent is None else parent)


def die_with_parent(parent: int) -> None:
    """In a forked process: be killed when `parent` (the process that forked this one) ends, even by SIGKILL,
    rather than run on as an orphan; exit now if it has ended already. Linux only (prctl); elsewhere nothing."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # it ended before the kernel was told
        os._exit(1)


def picklable() -> None:
    """Have the pipes between processes pickle every compiled frozen record of the asmcfg modules imported so far.

    mypyc gives each class it compiles a `__setstate__` that sets the fields one by one with `setattr`, which a frozen
    dataclass refuses: such records are sent as their class and fields, and rebuilt by calling the class. In the
    pure-Python build no class is compiled and nothing changes."""
    modules = list(sys.modules.items())
    if len(modules) == _SEEN[0]:
        return
    _SEEN[0] = len(modules)
    found = [value for name, module in modules if name == "asmcfg" or name.startswith("asmcfg.")
             for value in list(vars(module).values()) if _compiled_frozen(value) and value not in _REGISTERED]
    if found:  # multiprocessing's pickler is loaded only for them
        from multiprocessing.reduction import ForkingPickler

        from asmcfg.model.make import rebuilt

        for value in found:
            ForkingPickler.register(value, rebuilt)
            _REGISTERED.add(value)


def pickled(value: object) -> bytes | memoryview:
    """`value` pickled as the pipes between processes send it: by multiprocessing's pickler once `picklable` has
    registered a compiled record with it, else by `pickle` itself (the same bytes for the Python build's records,
    without loading multiprocessing in a forked process that sends them)."""
    if _REGISTERED:
        from multiprocessing.reduction import ForkingPickler

        return ForkingPickler.dumps(value, pickle.HIGHEST_PROTOCOL)
    return pickle.dumps(value, pickle.HIGHEST_PROTOCOL)


def _compiled_frozen(value: object) -> bool:
    """A frozen dataclass compiled by mypyc (it lists its fields in `__mypyc_attrs__`) whose fields all go
    through `__init__`."""
    if not isinstance(value, type) or not is_dataclass(value) or not hasattr(value, "__mypyc_attrs__"):
        return False
    params = getattr(value, "__dataclass_params__", None)
    return bool(getattr(params, "frozen", False)) and all(f.init for f in fields(value))
