"""Two sequences of items paired by keys, strict to loose, first come first paired: what the matchers share."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

T = TypeVar("T")


def pair(
    old: Sequence[T], new: Sequence[T], keys: Sequence[Callable[[T], Hashable]]
) -> tuple[list[tuple[T, T]], list[T], list[T]]:
    """Pair items by each key in turn (first come, first paired); returns pairs, unpaired old, unpaired new."""
    return pair_apart(old, new, [(key, key) for key in keys])


def pair_apart(
    old: Sequence[T], new: Sequence[T], keys: Sequence[tuple[Callable[[T], Hashable], Callable[[T], Hashable]]]
) -> tuple[list[tuple[T, T]], list[T], list[T]]:
    """`pair` by keys that read each side its own way: (the old item's key, the new item's key) in turn."""
    pairs: list[tuple[T, T]] = []
    left_old, left_new = list(old), list(new)
    for old_key, new_key in keys:
        buckets: dict[Hashable, list[T]] = {}
        for item in left_new:
            buckets.setdefault(new_key(item), []).append(item)
        still: list[T] = []
        for item in left_old:
            bucket = buckets.get(old_key(item))
            if bucket:
                pairs.append((item, bucket.pop(0)))
            else:
                still.append(item)
        paired = {id(n) for _, n in pairs}
        left_old, left_new = still, [n for n in left_new if id(n) not in paired]
    return pairs, left_old, left_new
