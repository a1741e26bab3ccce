"""The input dialects: one `Dialect` subclass per format, each in its own folder, entered in the registry by being
imported here (`dialects.dialect` has the class, the registry and the sniffing).

Adding a dialect: a folder `asmcfg/dialects/<name>/` whose `__init__.py` defines one `Dialect` subclass (its reader
and helpers beside it, imported by its methods when they run), its name in `model.words.DialectName`, and its
import below."""

from __future__ import annotations

from asmcfg.dialects.base import Reader, ReadOptions
from asmcfg.dialects.dialect import BY_NAME, Choice, Dialect, choose, indexer, open_reader, registry
from asmcfg.dialects.hsdis import Hsdis
from asmcfg.dialects.logcompilation import LogCompilation
from asmcfg.dialects.machcode import Machcode
from asmcfg.dialects.perfasm import Perfasm
from asmcfg.hotspot.printcompilation import SAMPLE_LINES, sample_of

__all__ = ["BY_NAME", "DIALECTS", "REGISTRY", "SAMPLE_LINES", "Choice", "Dialect", "Hsdis", "LogCompilation",
           "Machcode", "Perfasm", "ReadOptions", "Reader", "choose", "indexer", "open_reader", "sample_of"]

REGISTRY: tuple[Dialect, ...] = registry()
"""Every dialect, in the order they are tried when two score the same."""
DIALECTS = tuple(dialect.name.value for dialect in REGISTRY)
"""Dialect names as plain strings, as `--input-format` takes them (click shows an enum's member names)."""
