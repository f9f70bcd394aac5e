"""The wire format of sparse-vector pieces: which encoding a message uses and how it is laid
out in 32-bit words. The CUDA kernels (``kernels/fold.cu``), their numpy twins and the
collectives all follow the rules written here once.

Encoding rule (Bisson et al. 2015, section 5): a list costs 32 bits an entry and a bitmap one
bit a slot, so a piece of ``count`` entries over ``length`` slots goes as a bitmap once
``count > length / 32``. A piece whose values must travel (any semiring but ``*_pair`` under a monoid
that keeps its 1s: any, lor, land, min, max) always goes as a list: ids and values side by side, since the
values, not the pattern, dominate its size. The frontier matrix of the multi-source search
(:mod:`lagraph_dist.algebra.multi`) follows the same rule with its own costs: 96 bits an (id, word)
pair, 64 bits a slot's dense word (:func:`words_prefer_dense`, the rule with those costs).

Fold pieces come in two layouts:

* **fixed** (capacity ``cap``): ``[count, 0][cap ids, padded to even][cap values]``. Used when a
  bound every rank knows without communication (the frontier's out-edges, the unvisited
  vertices) says every piece is a short list; then no counts travel at all.
* **counted**: counts are exchanged first (one small device collective and one small read);
  a piece is ``[count ids, padded to even][count values]``, or the block's bitmap words for a
  pattern-only piece over the threshold.

Values occupy ``value_words`` words each (0 where they are implicitly 1: pair under any monoid
but plus, :attr:`Semiring.implicit_values`), stored as their own type (bool, int32, int64,
float32, float64), except
positional values (global vertex ids, the parents of ``*_secondi``) on a backend that narrows them
(:data:`NARROW_ID_BACKENDS`: both): when every id of the graph fits in 32 bits they travel as their
low 32-bit word, one word instead of two (:func:`value_words` with ``backend`` and ``vertices``,
:func:`wire_dtype`); ``kernels/fold.cu`` and its numpy twin widen them back at the owner.
"""
from __future__ import annotations

import contextlib
from typing import NamedTuple

import numpy as np

from lagraph_dist.local.layout import WORD_BITS

__all__ = ["bitmap_threshold", "prefers_bitmap", "words_prefer_dense", "forced_wire_encoding", "value_words",
           "wire_dtype", "even", "fixed_piece_words", "counted_is_bitmap", "counted_piece_words", "counted_words",
           "fixed_capacity", "PieceCounts"]

ID_BITS = 32                     # a list entry: one uint32 id
FRONTIER_WORD_BITS = 64          # a vertex of the multi-source frontier: one uint64 word
NARROW_ID_BACKENDS = frozenset({"cpu", "gpu"})   # their folds send vertex ids that fit as one 32-bit word
NARROW_ID_VERTICES = 1 << 32              # ids 0 .. 2^32 - 1 fit in a uint32 word

_forced_encoding = None


def bitmap_threshold(length, *, entry_bits=ID_BITS, slot_bits=1) -> int:
    """Entries over which a piece of ``length`` slots goes dense (a bitmap, ``slot_bits`` a
    slot) rather than as a list (``entry_bits`` an entry): the encoding rule, in one place. The
    kernels take this number, so a forced encoding reaches them too."""
    if _forced_encoding is not None:
        return -1 if _forced_encoding == "bitmap" else np.iinfo(np.int64).max
    return length * slot_bits // entry_bits


def prefers_bitmap(count, length, *, entry_bits=ID_BITS, slot_bits=1) -> bool:
    """Whether ``count`` entries over ``length`` slots go dense (see :func:`bitmap_threshold`)."""
    return count > bitmap_threshold(length, entry_bits=entry_bits, slot_bits=slot_bits)


def words_prefer_dense(count, length) -> bool:
    """The rule for messages of 64-bit words (the multi-source frontier's expand): whether
    ``count`` (id, word) pairs go as the dense words of ``length`` vertices.

    The same rule as :func:`prefers_bitmap` with other costs, on purpose: a frontier word marks
    its own vertex's presence (nonzero) and carries up to 64 searches, so the dense form is the
    words themselves, 64 bits a slot rather than one, and a list entry is the id and its word,
    96 bits rather than 32. Dense wins past two thirds of the slots, not past 1/32."""
    return prefers_bitmap(count, length, entry_bits=ID_BITS + FRONTIER_WORD_BITS, slot_bits=FRONTIER_WORD_BITS)


@contextlib.contextmanager
def forced_wire_encoding(encoding):
    """Send every message as "list" or "bitmap" whatever its size (tests and measurements).

    Every rank must force the same encoding: receivers derive it from the entry count.
    Pieces whose values must travel stay lists (see the module docstring).
    """
    global _forced_encoding
    if encoding not in ("list", "bitmap"):
        raise ValueError(f"encoding must be 'list' or 'bitmap', got {encoding!r}")
    previous, _forced_encoding = _forced_encoding, encoding
    try:
        yield
    finally:
        _forced_encoding = previous


def value_words(semiring, *, backend=None, vertices=None) -> int:
    """32-bit words a product's output value takes on the wire (0: implicitly true).

    Positional values are global vertex ids: on a backend of :data:`NARROW_ID_BACKENDS` whose
    graph has ``vertices`` ids that fit in 32 bits they take one word (a third less fold for a
    parents search: an id and a parent in two words, not three). Without ``backend`` and
    ``vertices`` every value keeps its own width (the kernels take either)."""
    if semiring.implicit_values:
        return 0
    if (semiring.multiply.positional and backend in NARROW_ID_BACKENDS and vertices is not None
            and vertices <= NARROW_ID_VERTICES):
        return 1
    return max(1, np.dtype(semiring.out_dtype).itemsize // 4)


def wire_dtype(dtype, vw) -> np.dtype:
    """The type values of ``dtype`` travel as in ``vw`` words each: their own type, or their
    low 32-bit words when :func:`value_words` narrowed them (ids below 2^32, so the low word is
    the id: an unsigned word, widened back to ``dtype`` by the receiver)."""
    dtype = np.dtype(dtype)
    return np.dtype(np.uint32) if vw and dtype.itemsize > 4 * vw else dtype


def even(words) -> int:
    return words + (words & 1)


def fixed_piece_words(cap, vw) -> int:
    return 2 + even(cap) + cap * vw


def counted_is_bitmap(count, block_len, vw, threshold=None) -> bool:
    """Whether a counted piece goes as its block's bitmap words: pattern only (values travel as
    a list) and over ``threshold``, the :func:`bitmap_threshold` of the block (a kernel twin
    passes the copy it was handed)."""
    if threshold is None:
        threshold = bitmap_threshold(block_len)
    return vw == 0 and count > threshold


def counted_piece_words(count, block_len, vw, threshold=None) -> int:
    if counted_is_bitmap(count, block_len, vw, threshold):
        return block_len // WORD_BITS
    return even(count) + count * vw


class PieceCounts(NamedTuple):
    """Counted pieces' entry counts, on the device (for the kernels) and on the host (sizes)."""

    device: object
    host: np.ndarray


def counted_words(counts, block_len, vw) -> int:
    """Words of a buffer of counted pieces with these entry counts."""
    return sum(counted_piece_words(int(c), block_len, vw) for c in counts)


def fixed_capacity(bound, block_len):
    """The capacity of fixed pieces when ``bound`` (an upper bound on any piece's entries, known
    to every rank) makes every piece a short list; None when the counted layout is needed."""
    if bound is None or _forced_encoding == "bitmap" or prefers_bitmap(bound, block_len):
        return None
    return max(int(bound), 1)
