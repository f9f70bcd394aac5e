"""What an algorithm's products did, a record each: the per-level figures of the algorithms
built on the algebra (betweenness's sweeps, the components' searches, closeness's batches).

``with product_trace() as records:`` around any algebra calls collects, in the order they ran,
a :func:`lagraph_dist.core.stats.level_record` dict (its edges read, bytes and seconds a stage,
host reads and launches, each measured around or inside the call) for

- each vector product (``vxm``, ``mxv``) made outside a search, its ``op`` "vxm" or "mxv";
- each level of a search (``repeat_masked_vxm``: ``op`` "search"; a batch of searches,
  ``repeat_masked_mxm`` or one fused call of the backend: "searches"), the records the search
  keeps itself (a fused run's levels timed by the backend's clock inside the run), not its
  products again.

Records number from 1 in the trace (``level``) and say which call of the trace they came from
(``call``, from 1). Nothing is kept while no trace is open; traces nest, each seeing what
runs inside it. Collective like the calls it watches: each rank keeps its own (local counts).
"""
from __future__ import annotations

from contextlib import contextmanager

from lagraph_dist.core.stats import level_record

__all__ = ["product_trace", "tracing", "note_product", "note_levels", "inside_search"]

_open: list = []          # the records of each open trace, innermost last
_searching = [0]          # > 0 inside a search, whose products its own records stand for
_calls = [0]              # calls noted so far (a trace's call numbers count from its start)


class _Trace(list):
    """One trace's records, and the call count when it opened."""

    def __init__(self):
        super().__init__()
        self.first_call = _calls[0]


@contextmanager
def product_trace():
    """Collect a record for each product and search level run inside the block."""
    records = _Trace()
    _open.append(records)
    try:
        yield records
    finally:
        del _open[next(k for k, t in enumerate(_open) if t is records)]     # (by identity: equal lists are not it)


def tracing() -> bool:
    """Whether a trace is open (the hooks cost nothing when none is)."""
    return bool(_open)


class _InsideSearch:
    """The context of :func:`inside_search`, a class: entered and left in 0.23 us here, where a
    generator's context took 1.08 (2-core development machine)."""

    __slots__ = ()

    def __enter__(self):
        _searching[0] += 1

    def __exit__(self, *exc):
        _searching[0] -= 1


_INSIDE_SEARCH = _InsideSearch()


def inside_search():
    """A search's products are not noted one by one: the search notes its own level records."""
    return _INSIDE_SEARCH


def note_product(op, frontier, discovered, stats, host_reads, launches, clock):
    """A vector product's record (``stats``: its ProductStats, whose stage seconds add up to
    the product's own)."""
    if not _open or _searching[0]:
        return
    _calls[0] += 1
    _append(op, [level_record(0, stats.kernel, frontier, discovered, stats, sum(stats.seconds.values()),
                              host_reads, launches, clock=clock)])


def note_levels(op, level_records, *, direction=None):
    """A search's levels (its LevelRecords), one record each; ``direction`` names what ran
    where a record's push flag does not (betweenness's sweeps go both ways)."""
    if not _open or _searching[0]:
        return
    _calls[0] += 1
    _append(op, [r.as_dict(0, direction) for r in level_records])


def _append(op, records):
    for trace in _open:
        call = _calls[0] - trace.first_call
        for record in records:
            record = dict(record, op=op, call=call, level=len(trace) + 1)
            trace.append(record)
