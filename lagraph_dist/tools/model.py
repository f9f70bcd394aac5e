"""A model of the bytes a distributed BFS sends, level by level (Bisson et al. 2015, sections
2.2 and 5; Pan et al. 2018, section II-B).

It predicts what this code sends, not what an ideal code would: every size comes from the
wire rules of :mod:`lagraph_dist.local.wire` and the block length of
:class:`lagraph_dist.comm.grid.Layout`, called as :mod:`lagraph_dist.comm.collectives` calls them,
for the backend named (``backend``, "gpu" by default; both send parents as 32-bit words when the
graph's ids fit, at their own 64 bits otherwise). A product runs along two
grid directions (:func:`_channels`): push ``vxm(q, A)`` and a pull through a transposed view
expand along grid columns (R members) and fold along grid rows (C members); on a symmetric
matrix ``A.T`` is A itself, and a pull ``mxv(A, q)`` expands along rows and folds along
columns. Per product on an R x C grid of P = R*C ranks:

* **expand**: one encoding for each channel's whole message, by the rule on the channel's
  frontier entries against its space (its members' blocks). A list sends each member's ids
  (32-bit local ids) to the other members; a bitmap sends each member's block bitmap. When
  the semiring reads the left values they travel too, as booleans (a byte an entry beside a
  list, the dense block beside a bitmap). Exact when the frontier's entries on each rank are
  given; otherwise they are spread evenly over the channels.
* **fold**: every rank packs one piece per member of its fold channel. When a bound every
  rank knows (a push level's frontier out-edges, capped by the block) makes every piece a
  short list, pieces have a fixed capacity and no counts travel: exact. Otherwise every rank
  sends an 8-byte count to each peer, then pieces sized by their counts. How a level's
  candidates spread over the pieces is not known here. ``fold`` assumes each of the D
  discovered vertices travels once, spread evenly over the pieces of the ranks that hold
  frontier (a rank finds candidates only from its expand channel's frontier); the self
  pieces stay home. ``fold_upper`` lets every such rank of a fold channel find every
  discovered vertex of the channel (a push no more often than it reads edges): several
  ranks of a row finding the same vertex, which a pull does once per rank holding a parent
  of it (Pan et al. II-B), lie between the two. Neither counts the vertices a rank's
  lower-bound mask lets through after another rank of its row found them at an earlier
  level: on the shrinking levels of a uniform random graph those made the measured fold
  exceed ``fold_upper`` (tests/test_model.py gives the measured band).
* **mask**: each rank's visited bitmap is gathered along its fold channel by the search's
  first product over that output space, then kept up to date from what the products find (a
  lower bound of the mask, Bisson et al. section 5); later products send none.

Bytes are summed over all ranks, as :func:`lagraph_dist.core.stats.summarize_levels` sums the
measured ones. The one exchange of a level's counters over the grid (a few integers a rank,
host MPI) is not counted in bytes, as the code does not count it either; it is counted among
the level's collective calls, which a time model charges a latency each.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lagraph_dist.local import wire
from lagraph_dist.core.errors import DimensionMismatch, InvalidValue
from lagraph_dist.comm.grid import WORD_BITS, Layout
from lagraph_dist.local.layout import MAX_OWNERS
from lagraph_dist.semirings import lookup_semiring

__all__ = ["LevelSizes", "level_bytes", "search_bytes", "level_sizes_from_records",
           "MAX_GRID_RANKS", "MAX_FOLD_MEMBERS"]

MAX_FOLD_MEMBERS = MAX_OWNERS          # collectives.fold packs at most this many pieces a rank
MAX_GRID_RANKS = MAX_OWNERS * MAX_OWNERS
COUNT_BYTES = np.dtype(np.int64).itemsize      # one piece's count in a counted fold
WORD_BYTES = WORD_BITS // 8
LEFT_VALUE_BYTES = np.dtype(bool).itemsize     # products._product sends left values as booleans
STAGES = ("expand", "fold", "mask")


@dataclass(frozen=True)
class LevelSizes:
    """What the model needs of one BFS level: the frontier's entries, their out-edges (None
    when no product counted them, as for the source alone), the vertices the level discovered,
    its direction ("push" or "pull"), and, when known, the frontier's entries on each grid
    rank (else the model spreads them evenly)."""

    frontier: int
    frontier_edges: int | None
    discovered: int
    direction: str
    frontier_per_rank: tuple | None = None


# -- arguments --------------------------------------------------------------------------------
def _checked_grid(grid_shape):
    try:
        rows, cols = (int(x) for x in grid_shape)
    except (TypeError, ValueError):
        raise InvalidValue(f"grid_shape must be (rows, cols), got {grid_shape!r}") from None
    if rows < 1 or cols < 1 or rows * cols > MAX_GRID_RANKS:
        raise InvalidValue(f"a grid of {rows} x {cols} is outside 1 x 1 .. {MAX_GRID_RANKS} ranks")
    return rows, cols


def _checked_count(name, value, *, optional=False):
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise InvalidValue(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def _checked_per_rank(frontier_per_rank, frontier, rows, cols):
    counts = [_checked_count("frontier_per_rank entries", c) for c in frontier_per_rank]
    if len(counts) != rows * cols:
        raise DimensionMismatch(f"frontier_per_rank has {len(counts)} entries for a grid of "
                                f"{rows * cols} ranks")
    if sum(counts) != frontier:
        raise InvalidValue(f"frontier_per_rank sums to {sum(counts)}, not the frontier's {frontier}")
    return counts


# -- the stages -------------------------------------------------------------------------------
def _channels(direction, symmetric, rows, cols):
    """(expand along rows?, expand members, fold members, output space) of a product.

    Push ``vxm(q, A)`` and a pull through a transposed view, ``mxv(A.T, q)`` with A
    unsymmetric, read the blocks as stored: expand along grid columns, fold along grid rows.
    When A is symmetric, ``A.T`` is A itself and the pull ``mxv(A, q)`` reads the blocks the
    other way: expand along grid rows, fold along grid columns (products.orientation).
    """
    if direction == "pull" and symmetric:
        return True, cols, rows, "col"
    return False, rows, cols, "row"


def _channel_totals(frontier, frontier_per_rank, rows, cols, along_rows):
    """Frontier entries of each expand channel (rank i*C + j sits in row i and column j);
    spread evenly over the channels when the distribution is not given."""
    lines = rows if along_rows else cols
    if frontier_per_rank is None:
        return [frontier / lines] * lines
    if along_rows:
        return [sum(frontier_per_rank[i * cols:(i + 1) * cols]) for i in range(rows)]
    return [sum(frontier_per_rank[i * cols + j] for i in range(rows)) for j in range(cols)]


def _expand(channel_totals, members, block_len, reads_values):
    """(bytes, encoding) of the expand over all channels of ``members`` ranks each."""
    if members == 1:
        return 0, "none"
    total, encodings = 0.0, []
    for entries in channel_totals:
        if wire.prefers_bitmap(entries, members * block_len):
            per_member = block_len // 8 + (block_len * LEFT_VALUE_BYTES if reads_values else 0)
            total += members * per_member * (members - 1)
            encodings.append("bitmap")
        else:
            per_entry = WORD_BYTES + (LEFT_VALUE_BYTES if reads_values else 0)
            total += entries * per_entry * (members - 1)
            encodings.append("list")
    return round(total), _merged(encodings)


def _active_channels(totals, frontier_per_rank):
    """Expand channels that hold frontier entries: only their ranks find candidates, as a
    rank reads the edges out of its channel's space. Spread evenly, ``frontier`` entries fall
    into the expected number of distinct channels of as many uniform draws."""
    if frontier_per_rank is not None:
        return sum(1 for entries in totals if entries > 0)
    lines, frontier = len(totals), sum(totals)
    expected = lines * (1 - (1 - 1 / lines) ** frontier)
    return min(lines, max(1, round(expected)))


def _counted_fold(ranks, members, block_len, entries, producers, vw):
    """(bytes, encodings) of a counted fold whose ``entries`` candidates spread evenly over the
    pieces of ``producers`` ranks, the self pieces (1 in ``members``) staying home. Every rank
    sends its counts, producing or not."""
    pieces = producers * members
    low, high = divmod(entries, pieces) if pieces else (0, 0)     # as even as whole entries allow
    spread = [(low, pieces - high), (low + 1, high)]
    words = sum(n * wire.counted_piece_words(count, block_len, vw) for count, n in spread)
    sent = ranks * (members - 1) * COUNT_BYTES + WORD_BYTES * words * (members - 1) / members
    encodings = ["bitmap" if wire.counted_is_bitmap(count, block_len, vw) else "list"
                 for count, n in spread if n]
    return round(sent), encodings


def _fold(ranks, members, block_len, vw, *, bound, discovered, push_edges, producers,
          producers_a_channel):
    """(bytes, upper bytes, encoding, layout) of the fold over all channels of ``members``
    ranks each; ``producers``: the ranks holding frontier, ``producers_a_channel`` of them in
    each fold channel."""
    if members == 1:
        return 0, 0, "none", "none"
    cap = wire.fixed_capacity(bound, block_len)
    if cap is not None:
        fixed = ranks * (members - 1) * WORD_BYTES * wire.fixed_piece_words(cap, vw)
        return fixed, fixed, "list", "fixed"
    low, encodings = _counted_fold(ranks, members, block_len, discovered, producers, vw)
    # at most, every producer of a channel finds each discovered vertex, and a push finds no
    # more candidates than it reads edges
    most = discovered * producers_a_channel
    if push_edges is not None:
        most = max(discovered, min(most, push_edges))
    high, _ = _counted_fold(ranks, members, block_len, most, producers, vw)
    return low, high, _merged(encodings), "counted"


def _mask(ranks, members, block_len, gathers):
    """(bytes, encoding) of the mask's gather along the fold's channels, when it happens."""
    if members == 1 or not gathers:
        return 0, "none"
    return ranks * (members - 1) * (block_len // 8), "bitmap"


def _collectives(expand_members, fold_members, ranks, reads_values, fold_layout, first_product,
                 gathers_mask):
    """Collective calls of one product (what a latency term multiplies)."""
    count = 0
    if expand_members > 1:
        count += 2 if reads_values else 1
        count += 1 if first_product else 0      # the source's member counts: one host allgather
    if fold_members > 1:
        count += 2 if fold_layout == "counted" else 1
        count += 1 if gathers_mask else 0
    return count + (1 if ranks > 1 else 0)      # the level's counters over the grid


def _merged(encodings):
    seen = set(encodings)
    return seen.pop() if len(seen) == 1 else ("none" if not seen else "mixed")


# -- public -----------------------------------------------------------------------------------
def level_bytes(grid_shape, n, *, frontier, frontier_edges, discovered, direction, semiring,
                symmetric, first_product=False, gathers_mask=None, frontier_per_rank=None,
                backend="gpu") -> dict:
    """Predicted bytes of one BFS level on a ``grid_shape`` = (R, C) grid, summed over ranks.

    ``frontier``: the level's input entries; ``frontier_edges``: their out-edges, or None
    when no product counted them (the source's level: the code then sends a counted fold);
    ``discovered``: the entries the level found; ``direction``: "push" or "pull";
    ``semiring``: the product's (``any_secondi`` when BFS wants parents, else ``any_pair``);
    ``symmetric``: the matrix is stored symmetric (a pull then runs along the other grid
    direction, see :func:`_channels`); ``first_product``: the search's first level (the
    source's member counts are gathered); ``gathers_mask``: this product gathers the mask
    (the search's first product over its output space; default ``first_product``);
    ``frontier_per_rank``: the frontier's entries on each grid rank (rank i*C + j), when
    known; else they are taken as spread evenly over the expand's channels; ``backend``:
    "gpu" or "cpu", the backend whose wire is counted (:func:`lagraph_dist.local.wire.value_words`).

    Returns ``{"expand", "fold", "mask", "fold_upper"}`` bytes (see the module docstring),
    ``"encoding"`` of each stage (as the benchmark records it), ``"fold_layout"`` ("fixed",
    "counted" or "none") and ``"collectives"`` (collective calls of the level).
    """
    rows, cols = _checked_grid(grid_shape)
    n = _checked_count("n", n)
    frontier = _checked_count("frontier", frontier)
    frontier_edges = _checked_count("frontier_edges", frontier_edges, optional=True)
    discovered = _checked_count("discovered", discovered)
    if direction not in ("push", "pull"):
        raise InvalidValue(f"direction must be 'push' or 'pull', got {direction!r}")
    if backend not in ("cpu", "gpu"):
        raise InvalidValue(f"backend must be 'cpu' or 'gpu', got {backend!r}")
    if discovered and not frontier:
        raise InvalidValue(f"an empty frontier cannot discover {discovered} vertices")
    if frontier_per_rank is not None:
        frontier_per_rank = _checked_per_rank(frontier_per_rank, frontier, rows, cols)
    gathers_mask = first_product if gathers_mask is None else bool(gathers_mask)
    semiring = lookup_semiring(semiring)
    reads_values = semiring.reads_left_values
    block_len = Layout(n, rows, cols).block_len
    ranks = rows * cols
    along_rows, expand_members, fold_members, _ = _channels(direction, symmetric, rows, cols)
    if fold_members > MAX_FOLD_MEMBERS:
        raise InvalidValue(f"a {direction} level on a {rows} x {cols} grid folds over {fold_members} "
                           f"ranks; collectives.fold supports up to {MAX_FOLD_MEMBERS}")

    totals = _channel_totals(frontier, frontier_per_rank, rows, cols, along_rows)
    expand, expand_encoding = _expand(totals, expand_members, block_len, reads_values)
    # products._fold_bound: a push from a counted frontier finds at most its out-edges
    push_edges = frontier_edges if direction == "push" else None
    bound = block_len if push_edges is None else min(block_len, push_edges)
    active = _active_channels(totals, frontier_per_rank)
    fold, fold_upper, fold_encoding, fold_layout = _fold(
        ranks, fold_members, block_len, wire.value_words(semiring, backend=backend, vertices=n), bound=bound,
        discovered=discovered, push_edges=push_edges, producers=active * expand_members,
        producers_a_channel=active)
    mask, mask_encoding = _mask(ranks, fold_members, block_len, gathers_mask)
    return {"expand": expand, "fold": fold, "mask": mask, "fold_upper": fold_upper,
            "encoding": {"expand": expand_encoding, "fold": fold_encoding, "mask": mask_encoding},
            "fold_layout": fold_layout,
            "collectives": _collectives(expand_members, fold_members, ranks, reads_values,
                                        fold_layout, first_product, gathers_mask)}


def search_bytes(grid_shape, n, levels, *, semiring, symmetric, backend="gpu") -> dict:
    """Predicted bytes of a whole BFS: ``levels`` are :class:`LevelSizes` (or tuples of their
    fields), first level first.

    The first level's out-edges are taken as unknown whatever is given: the search starts
    from a vector no product made. The mask is gathered by the first product over each
    output space (a symmetric matrix's push and pull levels have one each). ``backend`` as
    for :func:`level_bytes`. Returns
    ``{"levels": [level_bytes of each], "total": {"expand", "fold", "mask", "all",
    "fold_upper", "all_upper"}, "collectives"}``.
    """
    rows, cols = _checked_grid(grid_shape)
    predicted, gathered = [], set()
    for k, level in enumerate(levels):
        sizes = level if isinstance(level, LevelSizes) else LevelSizes(*level)
        space = _channels(sizes.direction, symmetric, rows, cols)[3]
        predicted.append(level_bytes(
            grid_shape, n, frontier=sizes.frontier,
            frontier_edges=None if k == 0 else sizes.frontier_edges, discovered=sizes.discovered,
            direction=sizes.direction, semiring=semiring, symmetric=symmetric,
            first_product=k == 0, gathers_mask=space not in gathered,
            frontier_per_rank=sizes.frontier_per_rank, backend=backend))
        gathered.add(space)
    total = {stage: sum(p[stage] for p in predicted) for stage in STAGES}
    total["all"] = sum(total.values())
    total["fold_upper"] = sum(p["fold_upper"] for p in predicted)
    total["all_upper"] = total["all"] - total["fold"] + total["fold_upper"]
    return {"levels": predicted, "total": total,
            "collectives": sum(p["collectives"] for p in predicted)}


def level_sizes_from_records(records) -> list:
    """:class:`LevelSizes` of a BFS from its level records (``BFSResult.stats``, or a
    benchmark's ``levels_first_root``).

    A push level reads every out-edge of its frontier, so its ``edges_examined`` is the
    frontier's out-edges; a pull level's examined edges say nothing of them, and the model
    needs them only for push levels (a pull's fold is always counted), so they stay None.
    """
    sizes = []
    for record in records:
        push = record["direction"] == "push"
        sizes.append(LevelSizes(int(record["frontier"]),
                                int(record["edges_examined"]) if push else None,
                                int(record["discovered"]), record["direction"]))
    return sizes

