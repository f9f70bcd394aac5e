"""Words in the messages the package and its scripts print.

:func:`plural` writes a count with its noun, so that no message says "1 vertices" or "all 1
roots": ``plural(1, "vertex")`` is ``"1 vertex"``, ``plural(3, "vertex")`` is ``"3 vertices"``.
"""
from __future__ import annotations

import numbers

from lagraph_dist.core.errors import DomainMismatch

__all__ = ["plural"]

# the nouns of this package's messages that do not take a plain "s"
IRREGULAR = {
    "vertex": "vertices",
    "index": "indices",
    "matrix": "matrices",
    "entry": "entries",
    "search": "searches",
    "batch": "batches",
    "bus": "buses",
}


def plural(count, noun: str, many: str | None = None, *, spec: str = "") -> str:
    """``count`` and ``noun``, the noun in the plural unless the count is exactly 1.

    ``many`` is the plural form (default: the known irregular ones above, else noun + "s");
    ``spec`` formats the count (``spec=","`` writes 12,345). The last word of a compound noun
    is the one made plural: ``plural(2, "stored edge")`` is ``"2 stored edges"``.
    """
    if isinstance(count, bool) or not isinstance(count, numbers.Integral):
        raise DomainMismatch(f"plural counts whole things: the count must be an integer, got {count!r}")
    if not isinstance(noun, str) or not noun.strip():
        raise DomainMismatch(f"plural needs a noun (a non-empty string), got {noun!r}")
    if many is None:
        head, _, last = noun.rpartition(" ")
        many = f"{head} {_plural_word(last)}" if head else _plural_word(last)
    return f"{count:{spec}} {noun if count == 1 else many}"


def _plural_word(word: str) -> str:
    return IRREGULAR.get(word, word + "s")
