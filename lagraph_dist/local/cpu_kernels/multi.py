"""Twins of kernels/multi.cu: up to 64 searches at once on a frontier of one uint64 word a vertex."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lagraph_dist.local.cpu_kernels.common import _edges_of
from lagraph_dist.local.layout import M_BITS, M_COMPLETED, M_EXAMINED, M_FOUND, M_LIVE, M_NCOUNTERS, M_PUSH_EDGES


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
