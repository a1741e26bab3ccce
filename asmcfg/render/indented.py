"""JSON text indented by one blank a level, exactly as `json.dumps(value, indent=1)` writes it, in 30-60% of the
time.

The standard library only indents with its pure-Python encoder, which runs a generator per container and passes
every piece of text up through each level; here one call per container appends its pieces to one list, joined
once. Strings go through the same C function the encoder uses (`encode_basestring_ascii`), numbers through the
same `repr`s, so the text is the same: `tests/test_indented_json.py` compares the two on generated documents and
on the `--json` outputs of real dumps, perfasm output, a LogCompilation log and a diff.

Why not the standard library: where the output is large, a user would wait for it. Measured in one script on the
values the runs wrote (CPU seconds, best of three; the texts identical), `json.dumps(indent=1)` took 0.152 s
against 0.044 s for the 1.7 MB of `--list --json` of the 336 MB LogCompilation log (10% more for the whole run),
0.387 s against 0.187 s for `--all --json` of the record folder `jdk17-Recompile` (5.6 MB; 5.5% more) and 5.57 s
against 3.34 s for `--all --json` of `jdk17-JavacLoop-c2print` (95 MB; 4.6% more). One compilation's `--json`
differs by milliseconds, and `--jsonl` writes compact lines with the standard library's C encoder
(`benchmarks/bench_json.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from json.encoder import INFINITY, encode_basestring_ascii as _string
from typing import Any


def dumps(value: Any) -> str:
    """`json.dumps(value, indent=1)`. What the encoder refuses is refused with the same TypeError (an object of no
    JSON type, a dict key that is not a str, int, float, bool or None); a value that holds itself is not JSON and
    exceeds the recursion limit."""
    pieces: list[str] = []
    _put(value, "\n", pieces.append)
    return "".join(pieces)


def _put(value: Any, pad: str, put: Callable[[str], None]) -> None:
    """Append the text of `value`, whose containers' lines start with `pad` (a newline and the indentation)."""
    kind = type(value)
    if kind is str:
        put(_string(value))
    elif kind is int:
        put(int.__repr__(value))
    elif kind is dict:
        _dict(value, pad, put)
    elif kind is list or kind is tuple:
        _list(value, pad, put)
    else:
        put(_scalar(value, pad, put))


def _list(items: list[Any] | tuple[Any, ...], pad: str, put: Callable[[str], None]) -> None:
    if not items:
        put("[]")
        return
    inner = pad + " "
    put("[" + inner)
    between = "," + inner
    for at, item in enumerate(items):
        if at:
            put(between)
        _put(item, inner, put)
    put(pad + "]")


def _dict(items: dict[Any, Any], pad: str, put: Callable[[str], None]) -> None:
    if not items:
        put("{}")
        return
    inner = pad + " "
    put("{" + inner)
    between = "," + inner
    for at, (key, item) in enumerate(items.items()):
        if at:
            put(between)
        put(_string(key if isinstance(key, str) else _key(key)) + ": ")
        _put(item, inner, put)
    put(pad + "}")


def _scalar(value: Any, pad: str, put: Callable[[str], None]) -> str:
    """The text of a value that is not an exact str, dict, list or tuple, tested in the encoder's order; the text of
    a subclass of one of those containers is appended, and "" returned."""
    if isinstance(value, str):
        return _string(value)
    text = _constant(value)
    if text is not None:
        return text
    if isinstance(value, (list, tuple)):
        _list(value, pad, put)
        return ""
    if isinstance(value, dict):
        _dict(value, pad, put)
        return ""
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def _key(key: Any) -> str:
    """A dict key that is not a str, as the encoder turns it into one."""
    text = _constant(key)
    if text is None:
        raise TypeError(f"keys must be str, int, float, bool or None, not {key.__class__.__name__}")
    return text


def _constant(value: Any) -> str | None:
    """The text of None, a bool, an int or a float (bools before ints, as the encoder tests them; no value is both
    an int and a float); None for any other value."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    return None


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == INFINITY:
        return "Infinity"
    if value == -INFINITY:
        return "-Infinity"
    return float.__repr__(value)
