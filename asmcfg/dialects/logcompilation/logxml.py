"""Markup of -XX:+LogCompilation files: tags, entities, `<nmethod>` records and `<uncommon_trap>` records.

The log is read line by line: HotSpot starts every element on a new line and escapes the text it copies
into `<tty>`, so a line holding `<` is markup and any other line is text.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from asmcfg.model import Compiler, LogTrap, TrapOrigin
from asmcfg.model.make import compiled
from asmcfg.sources.numbers import DIGITS, number

_ENTITY = re.compile(r"&(lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
REPLACEMENT = "\ufffd"
"""What a character reference to no character XML allows is read as."""
# Linear on any line: a name is a whole run of name characters (the lookaround fails at once on a part of a run,
# which could never match where the whole run does not), so no text is backtracked over twice.
_TAG = re.compile(r"<(/?)([A-Za-z_][\w.:-]*)(?![\w.:-])([^<>]*)>")
_ATTR = re.compile(r"(?<![\w.:-])([\w.:-]+)\s*=\s*(?:'([^']*)'|\"([^\"]*)\")")
_RELEASE = re.compile(rf"^\s*(?:1\.)?({DIGITS})")


def unescape(text: str) -> str:
    """`&lt;init&gt;` -> `<init>`: the five XML entities and character references (U+FFFD for a reference to a
    character XML does not allow)."""
    if "&" not in text:
        return text
    if "&#" in text:
        return _ENTITY.sub(_entity, text)
    # Only named entities: each replaced by a character that cannot start or continue one, `&amp;` last so that
    # the `&` it gives back starts nothing; the same text as the expression's single pass.
    return (
        text.replace("&lt;", "<").replace("&gt;", ">").replace("&apos;", "'").replace("&quot;", '"')
        .replace("&amp;", "&")
    )


LINE_ATTR = re.compile(r"(?<!\w)(\w+)='([^']*)'")
"""HotSpot writes every attribute in single quotes. A key starts a run of word characters: tried inside a run, it
would scan the rest of the run again (quadratic on a long one) and could never match where the whole run did not."""


def line_attrs(line: bytes) -> dict[str, str]:
    """The attributes of a one-line record (`<nmethod …/>`), their values unescaped, read in linear time."""
    return {key: unescape(value) if "&" in value else value
            for key, value in LINE_ATTR.findall(line.decode("utf-8", "replace"))}


def _entity(match: re.Match[str]) -> str:
    name = match.group(1)
    if not name.startswith("#"):
        return _NAMED[name]
    digits = (name[2:] if name.startswith("#x") else name[1:]).lstrip("0")
    code = int(digits or "0", 16 if name.startswith("#x") else 10) if len(digits) <= 7 else -1
    # HotSpot writes no character references: one to a character XML does not allow (NUL, a control other than
    # tab, newline and return, a surrogate, U+FFFE, U+FFFF, beyond U+10FFFF) is a corrupt log's, read as U+FFFD
    # as an undecodable byte is.
    return chr(code) if _xml_char(code) else REPLACEMENT


def _xml_char(code: int) -> bool:
    """True for a character XML 1.0 allows in a document."""
    return code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or 0x10000 <= code <= 0x10FFFF


@dataclass(frozen=True, slots=True)
class Tag:
    """One start, end or empty-element tag."""

    name: str
    """Element name (`nmethod`)."""
    closing: bool
    """True for an end tag (`</task>`)."""
    empty: bool
    """True for an empty-element tag (`<writer thread='1'/>`)."""
    attrs: dict[str, str]
    """Attribute values, entities replaced."""


ReadTags = Callable[[str, type, Callable[[str], str]], "list[Tag] | None"]
"""`_tags.tags(text, Tag, unescape)`: `tags` in C, or None for a line it leaves to Python (one holding a character
outside ASCII)."""
TAGS: ReadTags | None = compiled("asmcfg.dialects.logcompilation._tags", "tags")
"""The tag reader `tags` uses first, or None: then it reads every line in Python."""


def tags(text: str) -> list[Tag]:
    """The tags on one line of markup, in order."""
    read = TAGS
    found = None if read is None else read(text, Tag, unescape)
    return _tags(text) if found is None else found


def _tags(text: str) -> list[Tag]:
    found = []
    for closing, name, inner in _TAG.findall(text):
        empty = inner.endswith("/")
        attrs = {key: unescape(single or double) for key, single, double in _ATTR.findall(inner)} if inner else {}
        found.append(Tag(name, bool(closing), empty, attrs))
    return found


def feature_version(release: str) -> int | None:
    """17 from `17.0.15+6-Debian-1deb12u1`, 8 from `1.8.0_392-b08`, None if unreadable."""
    match = _RELEASE.match(release)
    return int(match.group(1)) if match else None


def method_name(signature: str) -> str:
    """`java.lang.String::hashCode` from a log's `java.lang.String hashCode ()I`."""
    parts = signature.split(" ")
    return f"{parts[0]}::{parts[1]}" if len(parts) > 1 else signature


def to_int(value: str | None, base: int = 10) -> int | None:
    """An attribute as an int, None when absent, not a number, or longer than any number HotSpot writes."""
    return number(value, base)


@dataclass(frozen=True, slots=True)
class NMethodRecord:
    """What an `<nmethod …/>` record says about one installed compilation."""

    compile_id: int
    """Compile id."""
    compiler: Compiler
    """`c1`, `c2`, `jvmci`, or `native` for a `c2n` wrapper (printed as `compiler=''`)."""
    level: int | None
    """Tier level, 0 for native wrappers."""
    kind: str
    """`compile_kind`: `osr`, `c2n`, or empty for a normal compilation."""
    method: str
    """`pkg.Class::name`."""
    bytecode_size: int | None
    """`bytes`: the method's bytecode size."""
    address: int | None
    """Start of the nmethod in the code cache."""
    size: int | None
    """Size of the whole nmethod in bytes."""
    code_begin: int | None
    """Start of `main code` (`address + insts_offset`)."""
    code_size: int | None
    """Size of `main code`: from `insts_offset` to the next section's `*_offset` (or the end), as the section
    table prints it."""
    line: int
    """Line of the record in the log."""


def _compiler(name: str, kind: str) -> Compiler:
    """The record's `compiler`; a `c2n` wrapper prints an empty one."""
    return Compiler.NATIVE if kind == "c2n" and not name else Compiler.named(name)


def nmethod_record(attrs: dict[str, str], line: int) -> NMethodRecord | None:
    """The record of an `<nmethod>` tag's attributes, None without a compile id."""
    compile_id = to_int(attrs.get("compile_id"))
    if compile_id is None:
        return None
    address = to_int(attrs.get("address"), 16)
    insts = to_int(attrs.get("insts_offset"))
    size = to_int(attrs.get("size"))
    code_size = None
    if insts is not None and size is not None:
        ends = [end for k, v in attrs.items() if k.endswith("_offset") and v.isdigit()
                and (end := number(v)) is not None and end > insts]
        code_size = min([*ends, size]) - insts
    kind = attrs.get("compile_kind", "")
    return NMethodRecord(
        compile_id=compile_id,
        compiler=_compiler(attrs.get("compiler", ""), kind),
        level=to_int(attrs.get("level")),
        kind=kind,
        method=method_name(attrs.get("method", "")),
        bytecode_size=to_int(attrs.get("bytes")),
        address=address,
        size=size,
        code_begin=address + insts if address is not None and insts is not None else None,
        code_size=code_size,
        line=line,
    )


TRAP_TAGS = frozenset({"task", "klass", "method", "parse", "uncommon_trap", "jvms"})
"""The names of the tags `TrapCollector.feed` reads; it passes over any other."""


@dataclass(slots=True)
class TrapCollector:
    """Follows `<task>`, `<parse>` and `<uncommon_trap>` tags and keeps the trap records per compile id."""

    traps: dict[int, list[LogTrap]] = field(default_factory=dict)
    _task: int | None = None
    _task_method: str = ""
    _names: dict[str, str] = field(default_factory=dict)
    _parse: list[str] = field(default_factory=list)
    _runtime: dict[str, str] | None = None
    _runtime_line: int = 0
    _chain: list[tuple[str, int | None]] = field(default_factory=list)

    def feed(self, tag: Tag, line: int) -> None:
        """Take one tag of the log."""
        name = tag.name
        if name == "task":
            self._enter_task(tag)
        elif name in ("klass", "method") and not tag.closing and "id" in tag.attrs:
            self._names[tag.attrs["id"]] = self._named(tag.attrs)
        elif name == "parse":
            self._on_parse(tag)
        elif name == "uncommon_trap":
            self._on_trap(tag, line)
        elif name == "jvms" and self._runtime is not None:
            self._runtime.setdefault("bci", tag.attrs.get("bci", ""))
            self._runtime.setdefault("scope", method_name(tag.attrs.get("method", "")))
            scope = sys.intern(method_name(tag.attrs.get("method", "")))
            self._chain.append((scope, to_int(tag.attrs.get("bci"))))

    def idle(self) -> bool:
        """Outside any task and any trap that fired: what comes next is read as from a fresh start."""
        return self._task is None and self._runtime is None

    def in_runtime_trap(self) -> bool:
        """True between the opening and the closing tag of a trap that fired at run time."""
        return self._runtime is not None

    def _enter_task(self, tag: Tag) -> None:
        self._names.clear()
        self._parse.clear()
        if tag.closing:
            self._task, self._task_method = None, ""
        else:
            self._task = to_int(tag.attrs.get("compile_id"))
            self._task_method = method_name(tag.attrs.get("method", ""))

    def _on_parse(self, tag: Tag) -> None:
        if tag.closing:
            if self._parse:
                self._parse.pop()
        elif not tag.empty:
            self._parse.append(self._names.get(tag.attrs.get("method", ""), ""))

    def _named(self, attrs: dict[str, str]) -> str:
        holder = self._names.get(attrs.get("holder", ""), "")
        return f"{holder}::{attrs.get('name', '')}" if holder else attrs.get("name", "")

    def _on_trap(self, tag: Tag, line: int) -> None:
        attrs = tag.attrs
        if "thread" in attrs or self._runtime is not None:
            self._on_runtime(tag, line)
            return
        if self._task is None or tag.closing:
            return
        scope = self._names.get(attrs["method"], "") if "method" in attrs else ""
        scope = scope or (self._parse[-1] if self._parse else self._task_method)
        self._add(self._task, TrapOrigin.PARSE, scope, attrs, line)

    def _on_runtime(self, tag: Tag, line: int) -> None:
        if not tag.closing:
            self._runtime, self._runtime_line = dict(tag.attrs), line
            self._chain = []
        runtime = self._runtime
        if runtime is None or not (tag.closing or tag.empty):
            return
        compile_id = to_int(runtime.get("compile_id"))
        if compile_id is not None:
            chain = tuple(self._chain)
            self._add(compile_id, TrapOrigin.RUNTIME, runtime.get("scope", ""), runtime, self._runtime_line, chain)
        self._runtime, self._chain = None, []

    def _add(
        self, compile_id: int, origin: TrapOrigin, scope: str, attrs: dict[str, str], line: int,
        chain: tuple[tuple[str, int | None], ...] = (),
    ) -> None:
        # interned: a whole log's records are held at once, and their names repeat
        trap = LogTrap(
            compile_id, origin, sys.intern(scope), to_int(attrs.get("bci")), sys.intern(attrs.get("reason", "")),
            sys.intern(attrs.get("action", "")), sys.intern(attrs.get("comment", "")), line, chain,
        )
        self.traps.setdefault(compile_id, []).append(trap)
