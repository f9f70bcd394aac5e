"""Per-level BFS statistics: recorded locally by each product, summed over the grid once."""
from __future__ import annotations

import numpy as np

__all__ = ["level_record", "measured_seconds", "summarize_levels", "StatsWhenRead", "HOST_CLOCK"]

#: the clock of a level run as separate calls: the host's, around the level (whose read of the
#: counters waits for the device)
HOST_CLOCK = "host perf_counter"

_STAGES = ("expand", "mask", "fold")


_NO_TRAFFIC = {"expand": 0, "mask": 0, "fold": 0}
_NO_ENCODING = {"expand": "none", "mask": "none", "fold": "none"}


def level_record(level, direction, frontier_nvals, discovered, product_stats, seconds, host_reads,
                 launches, *, clock, edges_examined=None, fused=False, timed_levels=1):
    """One level as this rank saw it (counts are local until :func:`summarize_levels`).

    ``seconds`` is the level's own time, measured by ``clock``; ``host_reads`` and ``launches``
    count the device reads and our kernel launches made during the level. A level of a fused
    run (``fused=True``, no product of its own) has no stage split; its seconds come from the
    backend's clock inside the run, the run's one launch counts on its first level and its
    one read on its last.

    A level timed only as part of a run of levels (``timed_levels`` 0: the CPU's one-vertex
    levels, whose clock is read once a run) has ``seconds`` None; the run's last level
    (``timed_levels`` = the run's length) too, with the run's own seconds as ``run_seconds``
    and its length as ``run_levels``. :func:`measured_seconds` sums either kind.
    """
    record = {
        "level": level,
        "direction": direction,
        "fused": fused,
        "frontier": frontier_nvals,
        "discovered": discovered,
        "edges_examined": edges_examined if product_stats is None else product_stats.edges_examined,
        "bytes": dict(_NO_TRAFFIC if product_stats is None else product_stats.bytes),
        "encoding": dict(_NO_ENCODING if product_stats is None else product_stats.encoding),
        "stage_seconds": {} if product_stats is None else dict(product_stats.seconds),
        "seconds": seconds if timed_levels == 1 else None,
        "clock": clock,
        "host_reads": host_reads,
        "launches": launches,
    }
    if timed_levels > 1:
        record["run_levels"], record["run_seconds"] = timed_levels, seconds
    return record


def level_ms_text(record, *, say_run=True) -> str:
    """A level record's milliseconds as a table shows them: its own, "-" for a level timed only
    within a run, and on a run's last level the run's (saying so with ``say_run``)."""
    if record["seconds"] is not None:
        return f"{1e3 * record['seconds']:.3f}"
    if "run_levels" in record:
        run = f" (a run of {record['run_levels']} levels)" if say_run else ""
        return f"{1e3 * record['run_seconds']:.3f}{run}"
    return "-"


def measured_seconds(record) -> float:
    """The seconds a level record's clock read: the level's own, a run's on the run's last
    level, 0 on a level timed only within a run (so that summing them over the records sums
    every measured second once)."""
    seconds = record["seconds"]
    return seconds if seconds is not None else record.get("run_seconds", 0.0)


class StatsWhenRead:
    """A search result whose ``_stats`` may be handed over as a function that makes them: on one
    rank they are made when first read, so that a search of many levels makes no dict a level
    inside its time."""

    @property
    def stats(self) -> list:
        if callable(self._stats):
            self._stats = self._stats()
        return self._stats

    def stats_when_called(self):
        """A function giving :attr:`stats`' records, made when it is called; it holds the
        levels' records, not the result's vectors. A caller that keeps many results' figures
        and reads few (a benchmark's checks) then makes no dict a level for the others."""
        made = self._stats
        return made if callable(made) else (lambda: made)


def _merge_encodings(per_rank):
    seen = {e for e in per_rank if e != "none"}
    return seen.pop() if len(seen) == 1 else ("none" if not seen else "mixed")


def summarize_levels(records, grid, transport, engine):
    """Collective: edges and bytes summed over all ranks, encodings merged, the slowest rank's
    seconds; each record names the transport and the ``engine``, the backend whose kernels ran
    the levels (a small graph of the GPU backend is searched by the host's: ``"cpu"``). One
    allgather for the whole BFS, none per level."""
    for record in records:
        record["transport"], record["engine"] = transport, engine
    if grid.size == 1 or not records:
        return records
    local = [(r["edges_examined"], [r["bytes"][s] for s in _STAGES], [r["encoding"][s] for s in _STAGES],
              r["seconds"]) for r in records]
    everyone = grid.comm.allgather(local)
    for k, record in enumerate(records):
        per_rank = [ranks[k] for ranks in everyone]
        record["edges_examined"] = int(sum(p[0] for p in per_rank))
        for s_index, stage in enumerate(_STAGES):
            record["bytes"][stage] = int(sum(p[1][s_index] for p in per_rank))
            record["encoding"][stage] = _merge_encodings(p[2][s_index] for p in per_rank)
        record["seconds"] = float(np.max([p[3] for p in per_rank]))
    return records
