"""The collectives of a distributed product, written once over any transport.

* :func:`expand`: every member of the input communicator gets the input's pieces of all
  members (an allgatherv along the grid column for ``vxm``), as one list or one bitmap over
  the input space, chosen by the wire rule for the whole message;
* :func:`fold`: a rank's output over its output space goes to the owners of its blocks (an
  alltoallv along the grid row), packed by one kernel and merged by one kernel;
* :func:`level_counts`: the one read of a product's counters, and their exchange over the
  grid (entries found per rank, their out-edges), which gives termination, the direction
  rule and the next expand's sizes without another collective.

Construction uses :func:`route_to_owners`; gathers for tests and outputs use
:func:`allgather_arrays`. Every collective counts the bytes this rank sent.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lagraph_dist.local.layout import MAX_OWNERS
from lagraph_dist.local import wire
from lagraph_dist.local.cpu_kernels import EXAMINED, FOUND, OVERFLOW, PUSH_EDGES
from lagraph_dist.comm.grid import WORD_BITS
from lagraph_dist.local.parts import LocalPart

__all__ = ["Traffic", "GlobalCounts", "expand", "fold", "level_counts", "route_to_owners",
           "allgather_arrays", "sum_blocks"]


@dataclass
class Traffic:
    """What one collective sent from this rank to the others."""

    bytes: int = 0
    encoding: str = "none"     # "list", "bitmap", "mixed" or "none"


@dataclass(frozen=True)
class GlobalCounts:
    """A product output's counts over the grid, known on every rank after its one exchange:
    entries per grid rank, their total, and the out-edges a push from them would examine."""

    rank_nvals: tuple
    nvals: int
    push_edges: int


def _nbytes(array):
    return int(array.shape[0]) * array.dtype.itemsize


def _merge_encodings(encodings):
    seen = set(encodings) - {"none"}
    return seen.pop() if len(seen) == 1 else ("none" if not seen else "mixed")


# -- expand -----------------------------------------------------------------------------------
def expand(part, channel, backend, *, member_counts, with_values, block_len):
    """The input over the channel's whole space (member k's block at k * block_len), as a list
    or a bitmap part; ``member_counts`` are the members' entry counts, known on the host."""
    if channel.size == 1:
        return part, Traffic()
    xp = backend.xp
    length = channel.size * block_len
    total = int(sum(member_counts))
    if wire.prefers_bitmap(total, length):
        mine = part.to_bitmap(backend)
        words = channel.allgatherv(mine.words, [block_len // WORD_BITS] * channel.size)
        values = (channel.allgatherv(mine.values, [block_len] * channel.size) if with_values
                  else xp.ones(1, dtype=part.dtype))
        gathered = LocalPart("bitmap", length, total, values, words=words)
        sent = _nbytes(mine.words) + (_nbytes(mine.values) if with_values else 0)
        return gathered, Traffic(sent * (channel.size - 1), "bitmap")
    mine = part.to_list(backend)
    shifted = mine.ids + np.int32(channel.rank * block_len) if channel.rank else mine.ids
    ids = channel.allgatherv(shifted.astype(np.int32, copy=False), member_counts)
    values = (channel.allgatherv(mine.values, member_counts) if with_values
              else xp.ones(ids.shape[0], dtype=part.dtype))
    gathered = LocalPart.from_list(ids, values, length, ids_sorted=False)
    sent = _nbytes(shifted) + (_nbytes(mine.values) if with_values else 0)
    return gathered, Traffic(sent * (channel.size - 1), "list")


def gather_words(words, channel, block_len):
    """Every member's block bitmap, concatenated over the channel's space (an exact mask)."""
    return channel.allgatherv(words, [block_len // WORD_BITS] * channel.size)


# -- fold -------------------------------------------------------------------------------------
def fold(out, out_counters, channel, backend, *, semiring, block_len, bound, own_mask, complement,
         out_degree):
    """Send each owner its piece of ``out`` (this rank's output over the channel's space) and
    merge what arrives into this rank's block. ``bound`` bounds any piece's entries (or is
    None); ``own_mask`` is the exact mask over this rank's block. Returns (part, counters
    with this rank's examined edges, Traffic)."""
    kernels, xp = backend.kernels, backend.xp
    size, me = channel.size, channel.rank
    if size > MAX_OWNERS:
        raise ValueError(f"the fold supports up to {MAX_OWNERS} members a grid row, got {size}")
    vw = wire.value_words(semiring)
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


# -- the level's one read ---------------------------------------------------------------------
def level_counts(counters, grid, backend):
    """Read a product's counters (the one device read) and exchange entries found and their
    out-edges over the grid (host MPI, a few integers). Returns (GlobalCounts, examined here)."""
    host = backend.to_host(counters)
    if int(host[OVERFLOW]):
        raise RuntimeError("internal error: a fold piece held more entries than the bound its "
                           "capacity was sized by")
    found, push_edges, examined = int(host[FOUND]), int(host[PUSH_EDGES]), int(host[EXAMINED])
    if grid.size == 1:
        return GlobalCounts((found,), found, push_edges), examined
    table = np.empty((grid.size, 2), dtype=np.int64)
    grid.comm.Allgather(np.array([found, push_edges], dtype=np.int64), table)
    return GlobalCounts(tuple(int(x) for x in table[:, 0]), int(table[:, 0].sum()),
                        int(table[:, 1].sum())), examined


# -- construction and gathers -----------------------------------------------------------------
def route_to_owners(owner_rank, arrays, channel, backend):
    """Send element k of every array to member ``owner_rank[k]`` of the channel, on the
    transport (device to device on the GPU backend). Returns the arrays of the elements this
    rank owns, in sender order. Counts go by host MPI (one small alltoall)."""
    size = channel.size
    if size == 1:
        return list(arrays)
    xp = backend.xp
    owner_rank = xp.asarray(owner_rank)
    order = xp.argsort(owner_rank, kind="stable")
    send_counts = backend.to_host(xp.bincount(owner_rank, minlength=size)).astype(np.int64)
    recv_counts = np.empty(size, dtype=np.int64)
    channel.comm.Alltoall(send_counts, recv_counts)
    return [channel.alltoallv(xp.ascontiguousarray(array[order]), send_counts, recv_counts)
            for array in arrays]


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
