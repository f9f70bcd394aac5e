"""The collectives of a distributed product, written once over any transport.

Both products go through them: the single-source product's sparse vector and the multi-source
product's frontier matrix (:mod:`lagraph_dist.algebra.multi`) differ only in their *word type*,
how a vertex travels:

* one bit a vertex with its values beside (a :class:`~lagraph_dist.local.parts.LocalPart`);
* one 64-bit word a vertex that marks its own presence (a :class:`WordPart`: bit i is search i).

The stages:

* :func:`expand`: every member of the input communicator gets the input's pieces of all
  members (an allgatherv along the grid column for ``vxm``), as one list (ids shifted by each
  member's block offset, with the values or words beside) or dense over the input space (a
  bitmap, or the words), chosen by the wire rule of the word type for the whole message;
* :func:`fold` (bits with values) and :func:`fold_words` (words): a rank's output over its
  output space goes to the owners of its blocks (an alltoallv along the grid row) and is
  merged by one kernel; :func:`fold_words` and :func:`route_to_owners` share one routing
  (the counts by one host alltoall, then one alltoallv an array);
* :func:`level_counts` and :func:`level_counts_words`: the one read of a product's counters,
  and their exchange over the grid (one host allgather of a few integers a rank), which gives
  termination, the direction rule and the next expand's sizes without another collective.

Construction uses :func:`route_to_owners`; gathers for tests and outputs use
:func:`allgather_arrays`. Every collective counts the bytes this rank sent.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from lagraph_dist.local.layout import (M_BITS, M_COMPLETED, M_EXAMINED, M_FOUND, M_LIVE, M_NCOUNTERS,
                                       M_PUSH_EDGES, MAX_OWNERS)
from lagraph_dist.local import wire
from lagraph_dist.local.layout import EXAMINED, FOUND, OVERFLOW, PUSH_EDGES
from lagraph_dist.comm.grid import WORD_BITS
from lagraph_dist.local.parts import LocalPart

__all__ = ["Traffic", "GlobalCounts", "LevelCounts", "WordPart", "expand", "fold", "fold_words", "level_counts",
           "level_counts_words", "route_to_owners", "allgather_arrays", "sum_blocks"]


@dataclass
class Traffic:
    """What one collective sent from this rank to the others."""

    bytes: int = 0
    encoding: str = "none"     # "list", "bitmap", "mixed" or "none"


class GlobalCounts(NamedTuple):
    """A product output's counts over the grid, known on every rank after its one exchange:
    entries per grid rank, their total, and the out-edges a push from them would examine (a
    named tuple, made each level: cheaper to make than a frozen dataclass)."""

    rank_nvals: tuple
    nvals: int
    push_edges: int


@dataclass(frozen=True)
class LevelCounts:
    """What a multi-source level found, over the whole grid (known on every rank after its one
    exchange, :func:`level_counts_words`)."""

    rank_vertices: tuple    # nonzero columns of the new frontier on each grid rank
    vertices: int           # nonzero columns in all
    entries: int            # entries ((search, vertex) pairs) found
    examined: int           # matrix entries read, over all ranks
    push_edges: int         # out-edges of the new frontier's nonzero columns
    completed: int          # out-edges of the vertices that every search of the batch has now reached
    live: int               # the bits of the searches that found something


class WordPart(NamedTuple):
    """One rank's piece of a frontier matrix in the words word type: a uint64 word a vertex
    (bit i: search i), nonzero exactly where the vertex is present, and the int32 ids of the
    nonzero words (any order; None when not asked for from a dense expand)."""

    ids: object
    words: object


def _nbytes(array):
    return int(array.shape[0]) * array.dtype.itemsize


def _merge_encodings(encodings):
    seen = set(encodings) - {"none"}
    return seen.pop() if len(seen) == 1 else ("none" if not seen else "mixed")


# -- expand -----------------------------------------------------------------------------------
class _BitsWithValues:
    """One bit a vertex, its values beside (``with_values``) or implicitly true: a LocalPart,
    gathered as a bitmap part or a list part."""

    def __init__(self, part, backend, with_values):
        self.part, self.backend, self.with_values = part, backend, with_values

    @staticmethod
    def dense_is_smaller(count, length):
        return wire.prefers_bitmap(count, length)

    def gather_dense(self, channel, block_len, total):
        """(the bitmap part over the channel's space, bytes this rank sends each member)."""
        mine = self.part.to_bitmap(self.backend)
        words = gather_words(mine.words, channel, block_len)
        values = (channel.allgatherv(mine.values, [block_len] * channel.size) if self.with_values
                  else self.backend.xp.ones(1, dtype=self.part.dtype))
        sent = _nbytes(mine.words) + (_nbytes(mine.values) if self.with_values else 0)
        return LocalPart("bitmap", channel.size * block_len, total, values, words=words), sent

    def listed(self):
        """(ids, values beside them or None) of this rank's entries."""
        mine = self.part.to_list(self.backend)
        return mine.ids, (mine.values if self.with_values else None)

    def from_list(self, ids, values, length):
        if values is None:
            values = self.backend.xp.ones(ids.shape[0], dtype=self.part.dtype)
        return LocalPart.from_list(ids, values, length, ids_sorted=False)


class _Words:
    """One uint64 word a vertex that marks its own presence: a WordPart, gathered as the dense
    words over the space (with their nonzero ids when ``want_ids``) or as (id, word) pairs."""

    dense_is_smaller = staticmethod(wire.words_prefer_dense)

    def __init__(self, part, backend, want_ids):
        self.part, self.backend, self.want_ids = part, backend, want_ids

    def gather_dense(self, channel, block_len, total):
        words = channel.allgatherv(self.part.words, [block_len] * channel.size)
        ids = self.backend.kernels.multi_nonzero_ids(words, total) if self.want_ids else None
        return WordPart(ids, words), _nbytes(self.part.words)

    def listed(self):
        return self.part.ids, self.part.words[self.part.ids]

    def from_list(self, ids, words, length):
        dense = self.backend.xp.zeros(length, dtype=np.uint64)
        dense[ids] = words
        return WordPart(ids, dense)


def expand(part, channel, backend, *, member_counts, block_len, with_values=False, want_ids=True):
    """The input over the channel's whole space (member k's block at k * block_len), as a list
    or dense, by the wire rule of its word type; ``member_counts`` are the members' entry
    counts (vertices, for words), known on the host. ``part`` is a LocalPart (bits, its values
    gathered when ``with_values``) or a :class:`WordPart` (words; ``want_ids``: also list the
    nonzero words when they are gathered dense). Returns (the same kind over the space, Traffic)."""
    if channel.size == 1:
        return part, Traffic()
    kind = (_Words(part, backend, want_ids) if isinstance(part, WordPart)
            else _BitsWithValues(part, backend, with_values))
    length = channel.size * block_len
    total = int(sum(member_counts))
    if kind.dense_is_smaller(total, length):
        gathered, sent = kind.gather_dense(channel, block_len, total)
        return gathered, Traffic(sent * (channel.size - 1), "bitmap")
    ids, values = kind.listed()
    shifted = ids + np.int32(channel.rank * block_len) if channel.rank else ids
    shifted = shifted.astype(np.int32, copy=False)
    gathered_ids = channel.allgatherv(shifted, member_counts)
    gathered_values = None if values is None else channel.allgatherv(values, member_counts)
    sent = _nbytes(shifted) + (0 if values is None else _nbytes(values))
    return kind.from_list(gathered_ids, gathered_values, length), Traffic(sent * (channel.size - 1), "list")


def gather_words(words, channel, block_len):
    """Every member's block bitmap, concatenated over the channel's space (an exact mask)."""
    return channel.allgatherv(words, [block_len // WORD_BITS] * channel.size)


# -- fold -------------------------------------------------------------------------------------
def fold(out, out_counters, channel, backend, *, semiring, block_len, bound, own_mask, complement,
         out_degree, vertices=None):
    """Send each owner its piece of ``out`` (this rank's output over the channel's space) and
    merge what arrives into this rank's block. ``bound`` bounds any piece's entries (or is
    None); ``own_mask`` is the exact mask over this rank's block; ``vertices``: the graph's
    vertex count, when known, so that the backend may send vertex ids narrow
    (:func:`lagraph_dist.local.wire.value_words`). Returns (part, counters with this rank's
    examined edges, Traffic)."""
    kernels, xp = backend.kernels, backend.xp
    size, me = channel.size, channel.rank
    if size > MAX_OWNERS:
        raise ValueError(f"the fold supports up to {MAX_OWNERS} members a grid row, got {size}")
    vw = wire.value_words(semiring, backend=backend.name, vertices=vertices)
    threshold = wire.bitmap_threshold(block_len)
    cap = wire.fixed_capacity(bound, block_len)
    if cap is not None:
        send = kernels.fold_pack(out, out_counters, vw, block_len, size, cap, threshold)
        piece = wire.fixed_piece_words(cap, vw)
        recv = channel.alltoallv(send, [piece] * size, [piece] * size)
        part, counters = kernels.fold_merge(recv, size, block_len, vw, cap, threshold, None, semiring,
                                            own_mask, complement, out_degree=out_degree)
        traffic = Traffic(4 * piece * (size - 1), "list")
    else:
        send_counts = kernels.fold_count(out, out_counters, block_len, size)
        recv_counts = channel.alltoallv(send_counts, [1] * size, [1] * size)
        both = backend.to_host(xp.concatenate([send_counts, recv_counts]))     # the fold's one read
        sends = wire.PieceCounts(send_counts, both[:size])
        recvs = wire.PieceCounts(recv_counts, both[size:])
        send = kernels.fold_pack(out, out_counters, vw, block_len, size, 0, threshold, sends)
        send_words = [wire.counted_piece_words(int(c), block_len, vw) for c in sends.host]
        recv_words = [wire.counted_piece_words(int(c), block_len, vw) for c in recvs.host]
        recv = channel.alltoallv(send, send_words, recv_words)
        part, counters = kernels.fold_merge(recv, size, block_len, vw, 0, threshold, recvs, semiring,
                                            own_mask, complement, out_degree=out_degree)
        encodings = ["bitmap" if wire.counted_is_bitmap(int(c), block_len, vw) else "list"
                     for k, c in enumerate(sends.host) if k != me]
        sent = sum(w for k, w in enumerate(send_words) if k != me)
        traffic = Traffic(4 * sent + 8 * (size - 1), _merge_encodings(encodings))
    counters[EXAMINED] = out_counters[EXAMINED]
    return part, counters, traffic


def _exclusive_scan(counts, xp):
    return xp.cumsum(counts) - counts


def fold_words(candidates, target, channel, backend, *, block_len):
    """The fold of words: send each owner its candidates (``candidates``, the MultiTarget a
    kernel claimed into over the channel's space: ids in ``queue``, words in ``next``, the
    parents of their bits in ``parents`` or None) as (id, word) pairs and, with parents, each
    word's parents in bit order; claim what arrives into ``target`` (the MultiTarget of this
    rank's block). Counts go by :func:`_route`, after the fold's one read. Returns (edges this
    rank examined, Traffic)."""
    kernels, xp = backend.kernels, backend.xp
    size = channel.size
    per_owner = kernels.multi_fold_count(candidates.queue, candidates.counters, candidates.next, block_len, size)
    host = backend.to_host(xp.concatenate([candidates.counters.view(np.int64), per_owner]))   # one read
    found, examined = int(host[M_FOUND]), int(host[M_EXAMINED])
    vertices, bits = np.ascontiguousarray(host[M_NCOUNTERS:].reshape(2, size))   # sent to each owner
    queue = candidates.queue[:found]
    owned = queue[xp.argsort(queue // np.int32(block_len))]       # grouped by owner
    send_words = candidates.next[owned]
    (ids, words), sent = _route([(owned % np.int32(block_len)).astype(np.int32), send_words], vertices, channel)
    offsets = parents = None
    if candidates.parents is not None:
        packed = kernels.multi_pack_parents(owned, send_words,
                                            _exclusive_scan(kernels.multi_popcounts(send_words), xp),
                                            candidates.parents, int(bits.sum()))
        (parents,), parent_bytes = _route([packed], bits, channel)
        offsets = _exclusive_scan(kernels.multi_popcounts(words), xp)
        sent += parent_bytes
    kernels.multi_merge(ids, words, offsets, parents, target)
    return examined, Traffic(sent, "list")


# -- the level's one read ---------------------------------------------------------------------
def _allgather_rows(mine, grid):
    """The level's exchange, written once: ``mine`` (a few int64) of every grid rank in one host
    allgather, as a (grid.size, len(mine)) table, row r rank r's."""
    if grid.size == 1:
        return mine[None, :]
    table = np.empty((grid.size, mine.shape[0]), dtype=np.int64)
    grid.comm.Allgather(mine, table)
    return table


def level_counts(counters, grid, backend):
    """Read a product's counters (the one device read) and exchange entries found and their
    out-edges over the grid (host MPI, a few integers). Returns (GlobalCounts, examined here)."""
    host = backend.to_host(counters)
    if int(host[OVERFLOW]):
        raise RuntimeError("internal error: a fold piece held more entries than the bound its "
                           "capacity was sized by")
    found, push_edges, examined = int(host[FOUND]), int(host[PUSH_EDGES]), int(host[EXAMINED])
    table = _allgather_rows(np.array([found, push_edges], dtype=np.int64), grid).ravel().tolist()
    rank_nvals = table[0::2]              # Python integers: a level reads them several times
    return GlobalCounts(tuple(rank_nvals), sum(rank_nvals), sum(table[1::2])), examined


def level_counts_words(counters, grid, backend, *, examined=None):
    """:func:`level_counts` for words: read a multi-source product's counters (the one device
    read; after a fold, ``examined`` is what its read found) and exchange vertices and entries
    found, edges examined, out-edges and the searches still alive over the grid. Returns
    (LevelCounts, examined here)."""
    host = backend.to_host(counters)
    if examined is None:
        examined = int(host[M_EXAMINED])
    mine = np.array([int(host[M_FOUND]), int(host[M_BITS]), examined, int(host[M_PUSH_EDGES]),
                     int(host[M_COMPLETED]), 0], dtype=np.int64)
    mine[5] = np.asarray(host[M_LIVE:M_LIVE + 1]).view(np.int64)[0]        # the bits, as they are
    table = _allgather_rows(mine, grid)
    live = int(np.bitwise_or.reduce(np.ascontiguousarray(table[:, 5]).view(np.uint64)))
    return LevelCounts(tuple(int(x) for x in table[:, 0]), int(table[:, 0].sum()), int(table[:, 1].sum()),
                       int(table[:, 2].sum()), int(table[:, 3].sum()), int(table[:, 4].sum()), live), examined


# -- routing, construction and gathers --------------------------------------------------------
def _route(arrays, send_counts, channel):
    """The routing, written once: arrays grouped by member (``send_counts[k]`` elements of each
    for member k), the counts by one small host alltoall, then one alltoallv an array. Returns
    (the arrays received, in sender order; the bytes this rank sent to the others)."""
    send_counts = np.ascontiguousarray(send_counts, dtype=np.int64)
    recv_counts = np.empty_like(send_counts)
    channel.comm.Alltoall(send_counts, recv_counts)
    others = int(send_counts.sum()) - int(send_counts[channel.rank])
    received, sent = [], 0
    for array in arrays:
        received.append(channel.alltoallv(array, send_counts, recv_counts))
        sent += array.dtype.itemsize * others
        del array                   # a permuted copy (route_to_owners) goes before the next one is made
    return received, sent


def route_to_owners(owner_rank, arrays, channel, backend):
    """Send element k of every array to member ``owner_rank[k]`` of the channel, on the
    transport (device to device on the GPU backend). Returns the arrays of the elements this
    rank owns, in sender order. Counts go by host MPI (one small alltoall, :func:`_route`)."""
    size = channel.size
    if size == 1:
        return list(arrays)
    xp = backend.xp
    owner_rank = xp.asarray(owner_rank)
    order = xp.argsort(owner_rank, kind="stable")
    send_counts = backend.to_host(xp.bincount(owner_rank, minlength=size)).astype(np.int64)
    received, _ = _route((xp.ascontiguousarray(array[order]) for array in arrays), send_counts, channel)
    return received


def allgather_arrays(array, channel, backend):
    """Every member's 1-D array concatenated in member order, on every member, as numpy. Device
    arrays are gathered on the transport and read once (a result vector of a big graph is
    gathered over NVLink, not through every rank's host)."""
    if channel.size == 1:
        return np.ascontiguousarray(backend.to_host(array))
    counts = np.empty(channel.size, dtype=np.int64)
    channel.comm.Allgather(np.array([array.shape[0]], dtype=np.int64), counts)
    return np.ascontiguousarray(backend.to_host(channel.allgatherv(array, counts)))


def sum_blocks(array, channel):
    """``array`` holds one block a member; sum over the members, member k keeping block k."""
    if channel.size == 1:
        return array
    block = array.shape[0] // channel.size
    received = channel.alltoallv(array, [block] * channel.size, [block] * channel.size)
    return received.reshape(channel.size, block).sum(axis=0)
