"""The LogCompilation state machine that the reader and the cutter share: which thread writes to the tty, which
compilation it prints, the `<nmethod>` records seen, where the `<tty>` ends and where `<release>` is."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, Protocol, TypeVar

from asmcfg.dialects.logcompilation.logxml import NMethodRecord, Tag, nmethod_record, to_int

RECORD_LIMIT = 4096
"""`<nmethod>` records kept (the oldest go first): a record precedes its printed code closely."""


class ThreadState(Protocol):
    """What the machine needs of a thread's pending text."""

    printing: int | None
    """Compile id of the thread's open `<print_nmethod>`."""


T = TypeVar("T", bound=ThreadState)
Out = TypeVar("Out")


class TtyMachine(Generic[T, Out]):
    """Follows the log's markup; a subclass keeps each thread's text and turns it into `Out` on `_flush`."""

    def __init__(self, records: dict[int, NMethodRecord]) -> None:
        self._records = records
        self._threads: dict[str, T] = {}
        self._current = self._thread("")
        self._section = "head"
        """`head` before the first `<writer>`, `tty` inside the tty, `log` after `</tty>`."""
        self._release = False
        """The next text line is the `<release>` version."""

    def _new_thread(self) -> T:
        """Empty pending text for a new thread."""
        raise NotImplementedError

    def _flush(self, thread: T) -> Iterator[Out]:
        """What `thread` has pending, read or cut; nothing when it has none."""
        raise NotImplementedError

    def _first_line(self, thread: T) -> int | None:
        """Line number of `thread`'s first pending line, None when nothing is pending."""
        raise NotImplementedError

    def _other(self, tag: Tag, number: int) -> None:
        """A tag the machine does not follow (the reader collects trap records from them)."""

    def _tag(self, tag: Tag, number: int) -> Iterator[Out]:
        name = tag.name
        if name == "writer" and "thread" in tag.attrs:
            self._current = self._thread(tag.attrs["thread"])
            self._section = "tty" if self._section == "head" else self._section
        elif name == "print_nmethod":
            thread = self._current
            if tag.closing:
                yield from self._flush(thread)
            thread.printing = None if tag.closing else to_int(tag.attrs.get("compile_id"))
        elif name == "nmethod":
            self._record(tag, number)
        elif name == "tty":
            self._section = "log" if tag.closing else "tty"
            if tag.closing:
                yield from self._flush_all()
        elif name == "release":
            self._release = not tag.closing and not tag.empty
        else:
            self._other(tag, number)

    def _record(self, tag: Tag, number: int) -> None:
        record = nmethod_record(tag.attrs, number)
        if record is not None:
            self._records[record.compile_id] = record
            if len(self._records) > RECORD_LIMIT:
                del self._records[next(iter(self._records))]

    def _thread(self, name: str) -> T:
        thread = self._threads.get(name)
        if thread is None:
            thread = self._threads[name] = self._new_thread()
        return thread

    def _flush_all(self) -> Iterator[Out]:
        waiting = [(first, t) for t in self._threads.values() if (first := self._first_line(t)) is not None]
        for _, thread in sorted(waiting, key=lambda pair: pair[0]):
            yield from self._flush(thread)
