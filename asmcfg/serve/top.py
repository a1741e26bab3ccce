"""`--top N` of `asmcfg FILE --all --html DIR`: which compilations the folder keeps.

The hottest when the input or `--profile` measured any heat, else the largest (bytes of `main code`), ties in
input order.
Ranking analyses every compilation (on all cores, each through `enrich`, as the export's run), so it runs in a
process of its own (`processes.child`): the process that then forks the export's workers does not keep that run's
heap.
"""

from __future__ import annotations

import functools
import io
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from asmcfg import describe, dialects
from asmcfg.errors import AsmcfgError, WorkerError
from asmcfg.processes import start
from asmcfg.processes.child import Child
from asmcfg.run import parallel

if TYPE_CHECKING:
    from asmcfg.model import Analysis, Method
    from asmcfg.processes.child import Send
    from asmcfg.run.enrich import Enrichment
    from asmcfg.run.options import Options

Key = tuple[int | None, str, int]
"""A compilation of the input: compile id, method and the line of its header."""


def top(options: Options, how: Enrichment, select: parallel.Select | None) -> set[Key]:
    """The `--top N` compilations among those `select` keeps; stderr says by what they were ranked."""
    assert options.top is not None
    ranked = _ranked(options, how, select)
    measured = any(r["heat"] is not None for r in ranked)
    by = "heat" if measured else "size"
    order = sorted(range(len(ranked)), key=lambda n: (ranked[n][by] is None, -(ranked[n][by] or 0), n))
    chosen = order[:options.top]
    if not options.quiet:
        from asmcfg.render.summary import stderr_console

        what = ("hottest (measured heat)" if measured
                else "largest (main code: no heat measured; --profile or a JMH perfasm or saveLog input measures it)")
        stderr_console().print(f"--top {options.top}: the {len(chosen)} {what} of "
                               f"{describe.count(len(ranked), 'compilation')}", highlight=False, markup=False,
                               soft_wrap=True)
    return {(ranked[n]["compile_id"], ranked[n]["name"], ranked[n]["line"]) for n in chosen}


def kept(keys: set[Key]) -> Callable[[Method], bool]:
    """Keeps the compilations `top` chose (the selector already chose among them)."""
    def keep(method: Method) -> bool:
        header = method.header
        return (header.compile_id, header.name, header.line) in keys

    return keep


def _ranked(options: Options, how: Enrichment, select: parallel.Select | None) -> list[dict[str, Any]]:
    """Every selected compilation's `_measure`, from a process of its own (here where none can be forked)."""
    if not start.FORK:
        return _measured(options, how, select)
    child: Child[Any] = Child(functools.partial(_child, options, how, select), "asmcfg-top")
    try:
        answer = child.result()
    finally:
        child.cancel()  # stopped here (Ctrl-C): its workers die with it
    if answer is None:
        raise WorkerError("the process ranking --top stopped before it finished (killed, or out of memory)")
    if isinstance(answer, tuple):  # an error: its class, message, source and line
        kind, message, source, line = answer
        raise kind(message, source, line)
    return answer  # type: ignore[no-any-return]


def _child(options: Options, how: Enrichment, select: parallel.Select | None, send: Send) -> None:
    """In the ranking's process: rank, and send the records or the error."""
    try:
        send(_measured(options, how, select))
    except AsmcfgError as error:
        send((type(error), error.message, error.source, error.line))
    except Exception as exc:  # a bug: said as one, the way the guard says it
        send((WorkerError, f"ranking --top failed: {type(exc).__name__}: {exc}", "", 0))


def _measured(options: Options, how: Enrichment, select: parallel.Select | None) -> list[dict[str, Any]]:
    found = io.StringIO()
    parallel.analyse_to_jsonl(options.input, found, _measure, dialect=options.input_format, how=how, select=select,
                              options=dialects.ReadOptions(options.syntax), strict=options.strict)
    return [record for record in map(json.loads, found.getvalue().splitlines()) if "error" not in record]


def _measure(result: Analysis) -> dict[str, Any]:
    """In a worker: what `--top` ranks a compilation by (its measured heat, its bytes of `main code`), and which it
    is."""
    method = result.cfg.method
    header = method.header
    profile = method.profile
    heat = profile.run_share[0] if profile is not None and profile.run_share else None
    return {"compile_id": header.compile_id, "name": header.name, "line": header.line, "heat": heat,
            "size": method.main_code_size}
