"""`--log`: a LogCompilation log of the same run puts its inlining decisions and trap records onto the
compilations of a PrintAssembly dump, matched by compile id and checked by method name."""

from __future__ import annotations

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
    """`method` with the log's records of its compile id (`LogRecords.attach`)."""
    return records.attach(method, strict)
