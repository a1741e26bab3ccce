"""`--log`: a LogCompilation log of the same run puts its inlining decisions and trap records onto the
compilations of a PrintAssembly dump, matched by compile id and checked by method name."""

from __future__ import annotations

from dataclasses import replace

from asmcfg.dialects.logcompilation.inline import LogRecords, read_log
from asmcfg.errors import InputError
from asmcfg.model import Method
from asmcfg.sources.lines import display_name


def read(path: str) -> LogRecords:
    """The records of the log at `path`; an error when it holds no compiler task at all."""
    records = read_log(path)
    if not records.tasks:
        raise InputError("holds no compiler <task> records (give the -XX:LogFile of a -XX:+LogCompilation run)",
                         display_name(path))
    return records


def attach(method: Method, records: LogRecords, strict: bool = False) -> Method:
    """`method` with the log's records of its compile id, and the JDK the log names when the dump names none. When
    the log's task of that id is another method (a log of another run), the method is returned as it was, or, with
    `strict`, that is an error."""
    compile_id = method.header.compile_id
    task = records.tasks.get(compile_id) if compile_id is not None else None
    if task is None or task.replace("/", ".") != method.header.name.replace("/", "."):
        if strict:
            found = f"is {task} in the --log log, not {method.header.name}" if task else "is not in the --log log"
            raise InputError(f"compile id {compile_id} {found} (give the log of the same run)", method.source,
                             method.header.line)
        return method
    assert compile_id is not None
    return replace(method, log_traps=tuple(records.traps.get(compile_id, ())),
                   log_inlines=tuple(records.inlines.get(compile_id, ())),
                   jdk_hint=records.jdk if method.jdk_hint is None else method.jdk_hint)
