"""The sample of a binary stream's first lines a dialect is sniffed from, read ahead without losing a byte."""

from __future__ import annotations

from asmcfg.hotspot.printcompilation import Sample, printing_compilations
from asmcfg.sources.split import Peeked, Readable, chunks

_PEEK, _PEEK_PAST = 1 << 22, 1 << 26
"""Bytes `peek` reads at most for its sample, and where the input starts with PrintCompilation lines."""
_BLOCK = 1 << 16


def peek(stream: Readable, source: str = "", lines: int = 400) -> tuple[Peeked, list[str]]:
    """The stream (nothing lost) and the sample of its first `lines` lines, decoded, for sniffing: in 4 MiB of
    input, or in 64 MiB past a run's PrintCompilation lines (`hotspot.printcompilation`)."""
    head = b""
    for block in chunks(stream, _BLOCK, source):
        head += block
        if head.count(b"\n") >= lines or len(head) >= _PEEK:
            break
    texts = head.decode("utf-8", "replace").split("\n")
    sample = [t.rstrip("\r") for t in texts[:lines]]
    if len(texts) <= lines or not printing_compilations(sample, lines):
        return Peeked(head, stream), sample
    return _past(head, stream, source, lines)


def _past(head: bytes, stream: Readable, source: str, lines: int) -> tuple[Peeked, list[str]]:
    """`peek` of an input whose first lines `head` holds are PrintCompilation's: read on, each byte looked at once."""
    cut = head.rfind(b"\n") + 1
    sample = Sample([t.rstrip("\r") for t in head[:cut].decode("utf-8", "replace").split("\n")[:-1]], lines)
    parts, partial, size = [head], [head[cut:]], len(head)
    whole = sample.whole()
    for block in chunks(stream, _BLOCK, source) if not whole else ():
        parts.append(block)
        size += len(block)
        cut = block.rfind(b"\n") + 1
        if cut:
            data = b"".join([*partial, block[:cut]]).decode("utf-8", "replace")
            whole = any(sample.add(t.rstrip("\r")) for t in data.split("\n")[:-1])
            partial = []
        partial.append(block[cut:])
        if whole or size >= _PEEK_PAST:
            break
    if not whole:
        sample.add(b"".join(partial).decode("utf-8", "replace").rstrip("\r"))
    return Peeked(b"".join(parts), stream), sample.lines
