"""Numpy twins of the CUDA kernels in ``kernels/``: the CPU backend runs them, and the GPU
tests compare the CUDA kernels against them on random inputs.

Each twin follows its kernel's contract (inputs, outputs, counters, wire layout) and its
algorithm where that shapes the result: push finds every frontier edge by a search over the
exclusive scan of frontier degrees (Bisson et al. 2015, 3.4); pull scans each candidate row's
inputs in increasing order and stops at the first hit when the semiring allows it. A product
returns its output part (a bitmap that also knows its entries as a list) and its counters
(:data:`FOUND`, :data:`EXAMINED`, :data:`PUSH_EDGES`, ...), read by the caller once.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from lagraph_dist.local import wire
from lagraph_dist.local.layout import (EXAMINED, FOUND, LONG_ROWS, M_BITS, M_COMPLETED, M_EXAMINED,  # noqa: F401
                                        M_FOUND, M_LIVE, M_NCOUNTERS, M_PUSH_EDGES, NCOUNTERS, OVERFLOW, PUSH_EDGES,
                                        STOP_EMPTY, STOP_LEVELS, STOP_TARGET, STOP_TOO_BIG)
from lagraph_dist.local.parts import LocalPart, combine_duplicates, multiply_values

__all__ = ["bitmap_from_list", "list_from_bitmap", "popcount", "bitmap_test", "new_counters",
           "push_spmspv", "pull_spmv", "assign_from_list", "fold_count", "fold_pack", "fold_merge",
           "bfs_fused", "fused_workspace", "FOUND", "EXAMINED", "PUSH_EDGES", "OVERFLOW", "NCOUNTERS",
           "MultiTarget", "multi_new_counters", "multi_push", "multi_pull", "multi_merge",
           "multi_popcounts", "multi_nonzero_ids", "multi_fold_count", "multi_pack_parents",
           "M_FOUND", "M_BITS", "M_EXAMINED", "M_PUSH_EDGES", "M_COMPLETED", "M_LIVE", "M_NCOUNTERS"]

# the counters every product writes (FOUND ... NCOUNTERS) and why a fused run stopped (STOP_*)
# are the kernels' own numbers, from lagraph_dist.local.layout


def new_counters():
    return np.zeros(NCOUNTERS, dtype=np.uint64)


def bitmap_from_list(ids, length, words=None):
    """Packed uint32 words with bit l set for each l in ``ids`` (``length`` a multiple of 32);
    set into ``words`` in place when given."""
    present = np.zeros(length, dtype=bool)
    present[ids] = True
    fresh = np.packbits(present, bitorder="little").view(np.uint32)
    if words is None:
        return fresh
    words |= fresh
    return words


def list_from_bitmap(words, count=None):
    """Sorted int32 ids of the set bits (``count``, when known, is only a size hint)."""
    bits = np.unpackbits(words.view(np.uint8), bitorder="little")
    return np.flatnonzero(bits).astype(np.int32)


def popcount(words) -> int:
    return int(np.bitwise_count(words).sum())


def bitmap_test(words, ids):
    """Bool per id: is its bit set?"""
    ids = ids.astype(np.int64, copy=False)
    return ((words[ids >> 5] >> (ids & 31).astype(np.uint32)) & 1).astype(bool)


def _allowed(rows, mask_words, complement):
    if mask_words is None:
        return np.ones(rows.shape[0], dtype=bool)
    hit = bitmap_test(mask_words, rows)
    return ~hit if complement else hit


def _edges_of(csr, majors):
    """Every (position in ``majors``, minor id) pair of the given rows, load-balanced.

    Edge e belongs to the last frontier entry whose exclusive degree scan is <= e, the search
    each GPU thread does for its edge.
    """
    starts = csr.indptr[majors]
    degrees = csr.indptr[majors + 1] - starts
    scan = np.cumsum(degrees) - degrees
    total = int(degrees.sum()) if degrees.shape[0] else 0
    edge = np.arange(total, dtype=np.int64)
    owner = np.searchsorted(scan, edge, side="right") - 1
    minors = csr.indices[starts[owner] + (edge - scan[owner])]
    return owner, minors, total


def _output_part(ids, values, length, semiring, examined, out_degree):
    """A kernel's output: a bitmap part that also lists its entries, and its counters."""
    dense = np.zeros(length, dtype=semiring.out_dtype)
    dense[ids] = values
    part = LocalPart("bitmap", length, None, dense, words=bitmap_from_list(ids, length), ids=ids,
                     ids_sorted=True)
    counters = new_counters()
    counters[FOUND] = ids.shape[0]
    counters[EXAMINED] = examined
    if out_degree is not None:
        counters[PUSH_EDGES] = int(out_degree[ids].sum())
    return part, counters


def push_spmspv(csr, frontier_ids, frontier_values, semiring, mask_words, complement, in_map,
                *, out_degree=None, frontier_edges=None):
    """Top-down w = u' M over a list frontier; returns (output-space part, counters).

    ``out_degree`` (dense over the output space) makes the counters sum the found entries'
    degrees; ``frontier_edges`` (the frontier's total degree, when the caller knows it) only
    sizes the GPU launch.
    """
    majors = frontier_ids.astype(np.int64)
    owner, rows, examined = _edges_of(csr, majors)
    keep = _allowed(rows, mask_words, complement)
    owner, rows = owner[keep], rows[keep]
    left = None if frontier_values is None else frontier_values[owner]
    values = multiply_values(semiring, frontier_ids[owner], left, in_map, np)
    ids, values = combine_duplicates(rows.astype(np.int32), values, semiring.add, np)
    return _output_part(ids, values, csr.nminor, semiring, examined, out_degree)


def pull_spmv(csr, frontier_words, frontier_values, semiring, mask_words, complement, in_map,
              *, out_degree=None):
    """Bottom-up w = u' M over a bitmap frontier, one candidate output row at a time.

    ``csr`` is indexed by output row; candidates are the rows the mask lets through. A row that
    may stop at its first hit counts the inputs scanned up to and including it as examined.
    """
    all_rows = np.arange(csr.nmajor, dtype=np.int64)
    rows = all_rows[_allowed(all_rows, mask_words, complement)]
    owner, cols, total = _edges_of(csr, rows)
    hit = bitmap_test(frontier_words, cols)
    degrees = csr.indptr[rows + 1] - csr.indptr[rows]
    if semiring.first_hit_is_final:
        position = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(degrees) - degrees, degrees)
        first = np.full(rows.shape[0], np.iinfo(np.int64).max)
        np.minimum.at(first, owner[hit], position[hit])
        found = first != np.iinfo(np.int64).max
        examined = int(np.where(found, first + 1, degrees).sum())
        keep = hit & (position == first[owner])
    else:
        examined, keep = total, hit
    left = None if frontier_values is None else frontier_values[cols[keep]]
    values = multiply_values(semiring, cols[keep], left, in_map, np)
    ids, values = combine_duplicates(rows[owner[keep]].astype(np.int32), values, semiring.add, np)
    return _output_part(ids, values, csr.nmajor, semiring, examined, out_degree)


def assign_from_list(ids, words, values, *, src_dense=None, src_compact=None, scalar=None):
    """In place: set the bits of ``ids`` in ``words`` and write their values from
    ``src_dense[id]``, ``src_compact[i]`` or ``scalar`` (GrB_assign with a structural mask)."""
    bitmap_from_list(ids, words.shape[0] * 32, words)
    if scalar is not None:
        values[ids] = scalar
    elif src_compact is not None:
        values[ids] = src_compact
    else:
        values[ids] = src_dense[ids]


# -- the fold: pack per owner, merge at the owner (kernels/fold.cu) ------------------------
def _found_ids(part, counters):
    return part.ids[:int(counters[FOUND])].astype(np.int64)


def fold_count(part, counters, block_len, nowners):
    """Entries of the output queue owned by each of the ``nowners`` members (int64)."""
    return np.bincount(_found_ids(part, counters) // block_len, minlength=nowners).astype(np.int64)


def _value_view(region, dtype, count):
    return region.view(dtype)[:count] if count else np.zeros(0, dtype)


def fold_pack(part, counters, vw, block_len, nowners, cap, threshold, counts=None):
    """The send buffer (uint32) of the ``nowners`` pieces of ``part`` (see :mod:`lagraph_dist.local.wire`):
    fixed pieces of capacity ``cap`` when cap > 0, else counted pieces laid out by ``counts``."""
    ids = _found_ids(part, counters)
    owners = ids // block_len
    dtype = part.values.dtype
    pieces = []
    for k in range(nowners):
        mine = ids[owners == k]
        local = (mine - k * block_len).astype(np.uint32)
        if cap > 0:
            piece = np.zeros(wire.fixed_piece_words(cap, vw), dtype=np.uint32)
            piece[0] = mine.shape[0]
            kept = min(mine.shape[0], cap)            # a wrong bound: the merge reports it
            piece[2:2 + kept] = local[:kept]
            if vw:
                _value_view(piece[2 + wire.even(cap):], dtype, cap)[:kept] = part.values[mine[:kept]]
        elif vw == 0 and int(counts.host[k]) > threshold:
            piece = part.words[k * (block_len // 32):(k + 1) * (block_len // 32)].copy()
        else:
            piece = np.zeros(wire.even(mine.shape[0]) + mine.shape[0] * vw, dtype=np.uint32)
            piece[:mine.shape[0]] = local
            if vw:
                _value_view(piece[wire.even(mine.shape[0]):], dtype, mine.shape[0])[:] = part.values[mine]
        pieces.append(piece)
    return np.concatenate(pieces) if pieces else np.zeros(0, np.uint32)


def _received_pieces(recv, nowners, block_len, vw, cap, threshold, counts, dtype):
    """(ids, values or None) of every received piece, and whether a fixed piece overflowed."""
    out, overflow, at = [], False, 0
    for k in range(nowners):
        if cap > 0:
            piece = recv[at:at + wire.fixed_piece_words(cap, vw)]
            at += piece.shape[0]
            count = int(piece[0])
            overflow |= count > cap
            count = min(count, cap)
            ids = piece[2:2 + count].astype(np.int64)
            values = _value_view(piece[2 + wire.even(cap):], dtype, count) if vw else None
        else:
            count = int(counts.host[k])
            size = wire.counted_piece_words(count, block_len, vw, threshold)
            piece = recv[at:at + size]
            at += size
            if wire.counted_is_bitmap(count, block_len, vw, threshold):
                ids = list_from_bitmap(piece).astype(np.int64)
            else:
                ids = piece[:count].astype(np.int64)
            values = _value_view(piece[wire.even(count):], dtype, count) if vw else None
        out.append((ids, values))
    return out, overflow


def fold_merge(recv, nowners, block_len, vw, cap, threshold, counts, semiring, mask_words, complement,
               *, out_degree=None):
    """The owner's block from the received pieces: entries the (exact) mask allows, combined
    by the semiring's monoid; returns (part, counters) like a product kernel."""
    dtype = np.dtype(semiring.out_dtype)
    pieces, overflow = _received_pieces(recv, nowners, block_len, vw, cap, threshold, counts, dtype)
    ids = np.concatenate([p[0] for p in pieces]) if pieces else np.zeros(0, np.int64)
    if vw:
        values = np.concatenate([p[1] for p in pieces]).astype(dtype)
    else:
        values = np.ones(ids.shape[0], dtype=dtype)
    keep = _allowed(ids, mask_words, complement)
    ids, values = combine_duplicates(ids[keep].astype(np.int32), values[keep], semiring.add, np)
    part, counters = _output_part(ids, values, block_len, semiring, 0, out_degree)
    counters[OVERFLOW] = int(overflow)
    return part, counters


# -- the fused search (kernels/fused.cu) -----------------------------------------------------
def _push_found(out_csr, frontier, words):
    """A push level: the unvisited out-neighbours of ``frontier`` (each once) and a parent each."""
    owner, neighbours, _ = _edges_of(out_csr, frontier)
    fresh = ~bitmap_test(words, neighbours)
    found, first = np.unique(neighbours[fresh], return_index=True)
    return found, frontier[owner[fresh][first]]


def _pull_found(in_csr, frontier_bits, words, n):
    """A pull level: every unvisited row with an in-neighbour in the frontier, its first such
    in-neighbour as parent, and the in-edges read up to it (all of them when none)."""
    rows = np.flatnonzero(~bitmap_test(words, np.arange(n))).astype(np.int64)
    owner, sources, total = _edges_of(in_csr, rows)
    hit = bitmap_test(frontier_bits, sources)
    hit_rows, first = np.unique(owner[hit], return_index=True)
    parents = sources[np.flatnonzero(hit)[first]]
    degrees = in_csr.indptr[rows + 1] - in_csr.indptr[rows]
    starts = np.cumsum(degrees) - degrees
    read_to_hit = np.flatnonzero(hit)[first] - starts[hit_rows] + 1
    examined = int(total - degrees[hit_rows].sum() + read_to_hit.sum())
    return rows[hit_rows].astype(np.int64), parents, examined


def fused_workspace(n, nnz):
    """The twin keeps no buffers between runs."""
    return None


#: what times each level of :func:`bfs_fused` (recorded with the level)
FUSED_LEVEL_CLOCK = "host perf_counter"


def bfs_fused(out_csr, in_csr, words, parents, depth_words, depths, first_depth, frontier_ids, positional,
              rule, max_frontier, max_edges, max_levels, target, workspace=None):
    """Levels of the composite ``ops.repeat_masked_vxm`` run without leaving the backend, push or
    pull as ``rule`` (a :class:`lagraph_dist.core.direction.DirectionRule`, updated) chooses: each
    level claims the unvisited out-neighbours of the frontier (push, through ``out_csr``) or the
    unvisited vertices with an in-neighbour in it (pull, through ``in_csr``) in ``words`` (in
    place), writes their parent (``positional``) or True into ``parents`` and the depth into
    ``depths`` (and their bits into ``depth_words``) when depths are kept.

    Returns (records: (frontier, discovered, examined, push, seconds) per level, frontier ids,
    frontier out-edges, why it stopped); a level's seconds are measured with the host's
    ``time.perf_counter`` around that level alone. It stops after the level that empties the frontier, reaches
    ``target`` (-1: none) or makes the frontier exceed ``max_frontier`` vertices, or after
    ``max_levels`` levels; a push frontier of more than ``max_edges`` out-edges is not expanded
    (it may be the first: then no level runs). Pull levels count the in-edges read up to each
    row's first frontier in-neighbour; the kernel reads in steps, so its count may be higher.
    """
    n = out_csr.nmajor
    degree = lambda ids: int((out_csr.indptr[ids + 1] - out_csr.indptr[ids]).sum())   # noqa: E731
    records, frontier = [], frontier_ids.astype(np.int64)
    edges = degree(frontier)
    reason = STOP_LEVELS
    for level in range(max_levels):
        if frontier.shape[0] == 0:
            reason = STOP_EMPTY
            break
        started = time.perf_counter()
        frontier_nvals = frontier.shape[0]
        push = rule.choose(frontier_nvals, edges)
        if push and edges > max_edges:   # the caller expands it (the queues could not hold it)
            reason = STOP_TOO_BIG
            break
        if push:
            found, sources = _push_found(out_csr, frontier, words)
            examined = edges
        else:
            bits = bitmap_from_list(frontier, words.shape[0] * 32)
            found, sources, examined = _pull_found(in_csr, bits, words, n)
        bitmap_from_list(found, words.shape[0] * 32, words)
        parents[found] = sources if positional else True
        if depths is not None:
            depths[found] = first_depth + level
            bitmap_from_list(found, depth_words.shape[0] * 32, depth_words)
        frontier, edges = found, degree(found)
        records.append((frontier_nvals, found.shape[0], examined, int(push), time.perf_counter() - started))
        if frontier.shape[0] == 0:
            reason = STOP_EMPTY
            break
        if 0 <= target and bool((frontier == target).any()):
            reason = STOP_TARGET
            break
        if frontier.shape[0] > max_frontier:
            reason = STOP_TOO_BIG
            break
    return records, frontier.astype(np.int32), edges, reason


# -- multi-source search: k <= 64 searches at once (kernels/multi.cu) -------------------------
# A frontier-matrix part holds one uint64 word a vertex: bit i is search i. Every kernel below
# claims bits into a MultiTarget: a bit (v, i) not yet in words[v] is set there, in next[v] and,
# when wanted, levels[v, i] = depth and parents[v, i] = its parent. Claims are first-come: the
# kernels' result is one valid choice of parents, the same levels and words whatever the order.

# counters of the multi-source kernels: M_FOUND ... M_NCOUNTERS of lagraph_dist.local.layout


@dataclass
class MultiTarget:
    """Where a multi-source kernel claims bits, over one space of ``length`` vertices.

    ``words``: uint64, the bits already claimed, updated in place; ``next``: zeroed uint64,
    receives the bits claimed now; ``queue``: int32 room for ``length`` ids, receives each
    vertex whose next word became nonzero (any order; counters[M_FOUND] of them);
    ``parents``/``levels``: (length, width) int64 or None; ``depth``: the value written to
    levels; ``full``: the bits of all the batch's searches; ``out_degree``: dense int64 over
    the space, or None (then M_PUSH_EDGES and M_COMPLETED stay 0); ``counters``: M_NCOUNTERS
    zeroed uint64, added to.
    """

    words: object
    next: object
    queue: object
    parents: object
    levels: object
    width: int
    depth: int
    full: int
    out_degree: object
    counters: object


def multi_new_counters():
    return np.zeros(M_NCOUNTERS, dtype=np.uint64)


def _searches_in(words, width):
    """The search indices i < ``width`` whose bit is set in at least one of ``words``."""
    present = int(np.bitwise_or.reduce(words)) if words.shape[0] else 0
    return [i for i in range(width) if present >> i & 1]


def _bit_masks(words, i):
    """(has bit i, the bits below i) of every word."""
    has = ((words >> np.uint64(i)) & np.uint64(1)).astype(bool)
    below = words & np.uint64((1 << i) - 1)
    return has, below


def _multi_take(target, vertices, fresh):
    """Set ``fresh`` (new bits, nonzero) of the unique ``vertices`` in the target's words and
    next words, levels at the depth, queue and counters (parents are the caller's)."""
    if vertices.shape[0] == 0:
        return
    before = target.words[vertices]
    target.words[vertices] = before | fresh
    entered = target.next[vertices] == 0
    target.next[vertices] |= fresh
    tail = int(target.counters[M_FOUND])
    appended = vertices[entered]
    target.queue[tail:tail + appended.shape[0]] = appended
    counters = target.counters
    counters[M_FOUND] += np.uint64(appended.shape[0])
    counters[M_BITS] += np.uint64(int(np.bitwise_count(fresh).sum()))
    counters[M_LIVE] |= np.bitwise_or.reduce(fresh)
    if target.out_degree is not None:
        counters[M_PUSH_EDGES] += np.uint64(int(target.out_degree[appended].sum()))
        done = (before | fresh) == np.uint64(target.full)
        counters[M_COMPLETED] += np.uint64(int(target.out_degree[vertices[done]].sum()))
    if target.levels is not None:
        for i in range(target.width):
            has, _ = _bit_masks(fresh, i)
            target.levels[vertices[has], i] = target.depth


def _multi_claim(target, vertices, bits, parent_of):
    """Claims in order: claim c offers ``bits[c]`` of vertex ``vertices[c]``; the first claim of
    each (vertex, bit) not yet in the words takes it, with parent ``parent_of(i, claims)`` (the
    parents of bit i for the claim positions ``claims``)."""
    vertices = vertices.astype(np.int64, copy=False)
    bits = bits & ~target.words[vertices]
    offered = np.flatnonzero(bits)
    vertices, bits = vertices[offered], bits[offered]
    unique, inverse = np.unique(vertices, return_inverse=True)
    fresh = np.zeros(unique.shape[0], dtype=np.uint64)
    np.bitwise_or.at(fresh, inverse, bits)
    if target.parents is not None:
        for i in _searches_in(fresh, target.width):
            has, _ = _bit_masks(bits, i)
            claims = np.flatnonzero(has)
            first_of, first = np.unique(inverse[claims], return_index=True)
            target.parents[unique[first_of], i] = parent_of(i, offered[claims[first]])
    _multi_take(target, unique.astype(np.int32), fresh)


def multi_push(csr, frontier_ids, frontier_words, in_map, target):
    """Top-down: every frontier vertex u (input-space id, ``frontier_words[u]`` its searches)
    offers its bits to each out-neighbour, with parent u's global id. Returns the counters."""
    majors = frontier_ids.astype(np.int64)
    owner, minors, examined = _edges_of(csr, majors)
    sources = majors[owner]
    parents = in_map.to_global(sources)
    _multi_claim(target, minors, frontier_words[sources], lambda i, claims: parents[claims])
    target.counters[M_EXAMINED] += np.uint64(examined)
    return target.counters


def multi_pull(csr, frontier_words, live, in_map, target):
    """Bottom-up: each output row v with bits of ``live`` not in ``words[v]`` scans its inputs
    in order, 32 a step, until it has found all of them or none are left; bit i's parent is
    the first input holding it. The examined count is the inputs of the steps taken."""
    wanted = np.uint64(live) & ~target.words
    rows = np.flatnonzero(wanted)
    owner, cols, total = _edges_of(csr, rows)
    degrees = csr.indptr[rows + 1] - csr.indptr[rows]
    position = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(degrees) - degrees, degrees)
    hits = frontier_words[cols] & wanted[rows][owner]
    got = np.zeros(rows.shape[0], dtype=np.uint64)
    np.bitwise_or.at(got, owner, hits)
    needed = np.zeros(rows.shape[0], dtype=np.int64)       # the last first-hit position a row needs
    for i in _searches_in(got, target.width):
        has, _ = _bit_masks(hits, i)
        edges = np.flatnonzero(has)
        row_of, first = np.unique(owner[edges], return_index=True)
        first_edge = edges[first]
        np.maximum.at(needed, row_of, position[first_edge])
        if target.parents is not None:
            target.parents[rows[row_of], i] = in_map.to_global(cols[first_edge])
    complete = got == wanted[rows]
    steps_read = np.minimum(degrees, (needed // 32 + 1) * 32)
    examined = int(np.where(complete, steps_read, degrees).sum())
    found = got != 0
    _multi_take(target, rows[found].astype(np.int32), got[found])
    target.counters[M_EXAMINED] += np.uint64(examined)
    return target.counters


def multi_popcounts(words):
    """Set bits of every word (int64)."""
    return np.bitwise_count(words).astype(np.int64)


def multi_nonzero_ids(words, count=None):
    """int32 ids of the nonzero words, increasing (``count``, when known, is only a size hint)."""
    return np.flatnonzero(words).astype(np.int32)


def multi_fold_count(queue, counters, words, block_len, nowners):
    """int64 [vertices per owner (nowners), bits per owner (nowners)] of the queue's first
    counters[M_FOUND] vertices, owner = id // block_len."""
    ids = queue[:int(counters[M_FOUND])].astype(np.int64)
    owners = ids // block_len
    vertices = np.bincount(owners, minlength=nowners)
    bits = np.bincount(owners, weights=np.bitwise_count(words[ids]), minlength=nowners)
    return np.concatenate([vertices, bits]).astype(np.int64)


def multi_pack_parents(sources, words, offsets, cand_parents, total):
    """The parents of every set bit of ``words[e]``, in increasing bit order, at
    ``offsets[e]`` on (int64, ``total`` of them): ``cand_parents[sources[e], i]``."""
    out = np.empty(total, dtype=np.int64)
    for i in range(cand_parents.shape[1]):
        has, below = _bit_masks(words, i)
        rank = np.bitwise_count(below[has]).astype(np.int64)
        out[offsets[has] + rank] = cand_parents[sources[has].astype(np.int64), i]
    return out


def multi_merge(ids, words, offsets, parents, target):
    """The owner's claims of received (id, word) pairs; bit i of entry e has parent
    ``parents[offsets[e] + (bits of words[e] below i)]`` (``parents`` None: no parents)."""
    def parent_of(i, claims):
        _, below = _bit_masks(words[claims], i)
        return parents[offsets[claims] + np.bitwise_count(below).astype(np.int64)]
    _multi_claim(target, ids, words, parent_of)
    return target.counters
