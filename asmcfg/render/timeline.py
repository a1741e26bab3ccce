"""The run over time as compact text (`--timeline`, on stderr): a row of block characters per category, the events
under them, the warm-up point, the methods compiled again and again, and one method's story."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TextIO

from asmcfg import describe
from asmcfg.facts.story import Story, ended_line
from asmcfg.facts.timeline import TOP_TIER, Timeline
from asmcfg.model.timeline import CATEGORIES, EventKind, JitEvent
from asmcfg.terminal import visible

WIDTH = 100
"""Columns of the rows at most (a column is one bucket or several)."""
LISTED = 20
"""Events listed under the rows at most."""
BLOCKS = " ▁▂▃▄▅▆▇█"
MARKS = {EventKind.UNCOMMON_TRAP: "!", EventKind.MAKE_NOT_ENTRANT: "x", EventKind.DEOPTIMIZED: "d",
         EventKind.OSR_MIGRATION: "o"}
"""The mark of each event kind in the events row, the first of a column's kinds in this order winning."""
_LABEL = 25
"""Columns of the row labels (a category's name and its samples)."""


STORY_LABEL = _LABEL + 6
"""Columns of a story's row labels (`  id 14    c2    tier 4 osr@20`), the widest before a row of columns."""


def columns(timeline: Timeline, width: int = WIDTH) -> tuple[int, int]:
    """How many buckets one column holds, and how many columns there are (`width` at most)."""
    per = max(1, math.ceil(len(timeline.buckets) / width)) if timeline.buckets else 1
    span = timeline.bucket_ms * per
    return per, max(1, math.ceil(timeline.end_ms / span))


def write_timeline(timeline: Timeline, out: TextIO, title: str, stories: Sequence[Story] = (),
                   storms: Sequence[Story] = (), diff_input: str = "", width: int = WIDTH) -> None:
    """The timeline as text, its rows `width` columns at most (a narrow terminal's: `fitting_width`)."""
    per, count = columns(timeline, width)
    span = timeline.bucket_ms * per
    samples = sum(sum(b.counts) for b in timeline.buckets)
    out.write(visible(f"{title}: {timeline.end_ms:,} ms") + (f", {samples:,} samples" if timeline.sampled else
                                                             ", JIT events only (no samples)")
              + f"; one column: {span:,} ms\n")
    out.write(f"{'':{_LABEL}}0 ms{f'{timeline.end_ms:,} ms':>{max(count - 4, 0)}}\n")
    if timeline.sampled:
        _rows(timeline, out, per, count)
    out.write(f"{'events !x d o':{_LABEL}}{_marks(timeline.events, span, count)}\n")
    if timeline.steady_state_ms is not None:
        at = min(count - 1, timeline.steady_state_ms // span)
        out.write(f"{'warm-up':{_LABEL}}{' ' * at}^\n")
    out.write(f"  {timeline.warm_note}\n")
    _events(timeline, out)
    for story in storms[:LISTED // 2]:
        out.write(visible(f"  storm: {story.method}: {story_words(story)}") + "\n")
    if len(storms) > LISTED // 2:
        out.write(f"  … {len(storms) - LISTED // 2:,} more methods compiled again and again (--json lists them)\n")
    for note in timeline.notes:
        out.write(visible(f"  note: {note}") + "\n")
    for story in stories:
        write_story(story, timeline, out, diff_input, width)


def fitting_width(terminal_columns: int) -> int:
    """The rows' columns that keep every row of the timeline, a story's too, on one line of a terminal that wide
    (WIDTH at most, 20 at least)."""
    return max(20, min(WIDTH, terminal_columns - STORY_LABEL - 1))


def story_words(story: Story) -> str:
    """How often a method was compiled and what compiling its top-tier code again cost."""
    said = f"{len(story.versions)} compilations"
    if not story.cycles:
        return said
    return (f"{said}; its top-tier code made not entrant and compiled again {story.cycles} times, with "
            f"{story.c1_between:,} samples in its C1 code and {story.interpreted_between:,} in the interpreter "
            "(every method's) in between")


def _rows(timeline: Timeline, out: TextIO, per: int, count: int) -> None:
    cells = [[0] * count for _ in CATEGORIES]
    for n, bucket in enumerate(timeline.buckets):
        for k, value in enumerate(bucket.counts):
            cells[k][min(count - 1, n // per)] += value
    totals = [sum(cells[k][c] for k in range(len(CATEGORIES))) for c in range(count)]
    for category, row in zip(CATEGORIES, cells, strict=True):
        if any(row):
            out.write(f"{category!s:<16}{sum(row):>8,} {_bar(row, totals)}\n")


def _bar(row: Sequence[int], totals: Sequence[int]) -> str:
    """Block characters for each column's share of its samples (a full one: all of them; any: at least the lowest)."""
    return "".join(BLOCKS[0 if not n else max(1, round(8 * n / total))] for n, total in zip(row, totals, strict=True))


def _marks(events: Sequence[JitEvent], span: int, count: int) -> str:
    row = [" "] * count
    ranks = " " + "".join(MARKS.values())
    for event in events:
        at = min(count - 1, max(0, event.t_ms // span))
        mark = MARKS[event.kind]
        if row[at] == " " or ranks.index(mark) < ranks.index(row[at]):
            row[at] = mark
    return "".join(row).rstrip()


def _events(timeline: Timeline, out: TextIO) -> None:
    """The traps that fired, the top-tier code made not entrant, deoptimizations and OSR migrations, the first
    `LISTED` (the same event repeated at one time on one line)."""
    top = {v.task.compile_id for v in timeline.versions if v.task.compiler in TOP_TIER}
    shown = [e for e in timeline.events if e.kind is not EventKind.MAKE_NOT_ENTRANT or e.compile_id in top]
    lines: list[tuple[int, str, int]] = []
    for event in shown:
        words = _event_words(event)
        if lines and lines[-1][:2] == (event.t_ms, words):
            lines[-1] = (event.t_ms, words, lines[-1][2] + 1)
        else:
            lines.append((event.t_ms, words, 1))
    for t_ms, words, times in lines[:LISTED]:
        out.write(visible(f"  {t_ms:>8,} ms  {words}" + (f" ×{times}" if times > 1 else "")) + "\n")
    if len(lines) > LISTED:
        out.write(f"  … {len(lines) - LISTED:,} more (--json lists every event)\n")


def _event_words(event: JitEvent) -> str:
    where = f" at {event.method}@{event.bci}" if event.bci is not None else f" {event.method}"
    where += f" (line {event.source_line})" if event.source_line is not None else ""
    about = f" (id {event.compile_id})" if event.compile_id is not None else ""
    if event.kind is EventKind.UNCOMMON_TRAP:
        return f"uncommon trap {event.reason} ({event.action}){where}{about}"
    if event.kind is EventKind.OSR_MIGRATION:
        return f"OSR migration into id {event.compile_id}{where}"
    reason = f": {event.reason}" if event.reason else ""
    return f"{event.kind}{reason}{where}{about}"


def write_story(story: Story, timeline: Timeline, out: TextIO, diff_input: str, width: int = WIDTH) -> None:
    """Each version of one method as a bar from install to its end, its samples in it, and what ended it."""
    per, count = columns(timeline, width)
    span = timeline.bucket_ms * per
    out.write(visible(f"story of {story.method}: {story_words(story)}") + "\n")
    for version, samples in zip(story.versions, story.samples, strict=True):
        task = version.task
        kind = f" osr@{task.osr_bci}" if task.kind == "osr" else ""
        head = f"  id {task.compile_id:<5} {task.compiler!s:<5} tier {task.level}{kind}"
        out.write(f"{head:<{STORY_LABEL}}{_life(version.start_ms or 0, version.end_ms or 0, samples, per, span, count)}"
                  "\n")
        taken = describe.count(version.samples, "sample")
        out.write(visible(f"      {version.start_ms:,} to {version.end_ms:,} ms, {taken}; ended: {ended_line(version)}")
                  + "\n")
    for old, new in story.diffs:
        out.write(visible(f"  asmcfg diff {diff_input} --compile-id {old} --compile-id {new}") + "\n")


def _life(start: int, end: int, samples: Sequence[int], per: int, span: int, count: int) -> str:
    cols = [0] * count
    for n, value in enumerate(samples):
        cols[min(count - 1, n // per)] += value
    most = max(cols, default=0)
    first, last = min(count - 1, start // span), min(count - 1, end // span)
    return "".join(
        (BLOCKS[max(1, round(8 * cols[c] / most))] if cols[c] and most else "─") if first <= c <= last else " "
        for c in range(count)).rstrip()
