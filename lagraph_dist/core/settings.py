"""What a benchmark, a probe or a test may vary without editing the package: one object,
:data:`settings`, whose fields the package reads where it uses them (never copied at import),
so that assigning a field, or :meth:`Settings.changed` around a block, takes effect at once.

Each field says its default, what reads it and why one would change it. None changes an
answer: they trade time, memory or what is measured.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, fields

__all__ = ["Settings", "settings"]


@dataclass
class Settings:
    #: ``algebra/products.StageTimer``: wait for the device at the end of every stage of a
    #: product, so that each stage's seconds are device-complete (a host round trip a stage;
    #: ``lagraph-dist bfs --stage-timing`` and per-stage breakdowns). Off: stage seconds are host
    #: dispatch times and only a level's total is device-complete.
    sync_stage_timers: bool = False
    #: the GPU: a search's outputs are made again while the next search's kernel runs when they
    #: take at most this many bytes (``KernelsBase.made_ahead``; ``algebra/memory.py`` counts
    #: them); 0 turns it off. Small graphs' outputs are noise beside the kernel, a big graph's
    #: memory is better left to the graph.
    results_ahead_bytes: int = 256 << 20
    #: the GPU's fused search: level records written into the host's page-locked mirror with
    #: the status (``gpu_kernels/fused.py``); deeper searches read the rest from the device.
    fused_records_read: int = 4096
    #: ``-D`` options added to every CUDA build after the layout's (``gpu_kernels/base.py``): a
    #: traced or clocked build of the kernels for a probe. Set before the first build of a module
    #: (modules are built once a process).
    extra_cuda_defines: tuple[str, ...] = ()

    #: the CPU's multi-source batch (``cpu_kernels/multi_fused.py``): "auto" runs its searches
    #: bit-parallel unless its first levels show their waves running apart (a mesh's, a road
    #: graph's), then one at a time; "together" and "separate" force either (a benchmark's
    #: comparison). ``res.stats`` names what ran (``"searches"``).
    multi_searches: str = "auto"
    #: ``bfs_multi`` on one process (``algorithms/degree_twin.py``): "auto" runs its fused
    #: batches on the graph's degree-ordered twin (renumbered hubs first, made once and kept:
    #: a second copy of the graph) once the graph's levels-only calls have asked for the kernel
    #: set's ``MULTI_TWIN_AFTER`` searches (2^17 on the GPU, 2^12 on the CPU), unless the graph is
    #: thin or the twin does not fit; "always" and "never" force either (a benchmark's
    #: comparison). The results are in the graph's own ids either way; ``res.stats`` says which
    #: ``order`` ran.
    multi_degree_order: str = "auto"
    #: the CPU's search from a source (``cpu_kernels/fused.py``): "auto" tests each vertex's value
    #: instead of its visited bit in the thin levels of a thin graph whose arrays fit
    #: ``fused.MARKED_CACHE_SHARE`` of the last-level cache (``fused.marked_values``: their stores
    #: then hit the lines the tests loaded); "always" and "never" force either (a benchmark's
    #: comparison, a host whose cache the policy misjudges). The answer is the same either way.
    marked_searches: str = "auto"
    #: the GPU backend on one process: ``ld.bfs`` on a matrix of at most this many stored edges
    #: runs on the host's compiled kernels, on the matrix's host twin
    #: (``algebra/host_engine.py``), its result vectors held in host memory until a device
    #: operation reads them; so does a search on a larger graph where the host's costs less by
    #: the models of ``algorithms/small_graphs.py`` (a long path's, Kronecker 12's); 0 runs every
    #: search on the device. Such a
    #: graph's search costs the host less than the device call's fixed price (one H200's host:
    #: docs/notes/host-overhead.md). ``res.stats`` records name the ``engine`` that ran.
    host_search_edges: int = 1 << 16
    #: one process: ``ld.bfs`` (and a component's search) on a matrix of at most this many
    #: stored edges, with direction "auto" or "push", runs the host's one-pass queue search
    #: (``cpu_kernels/queue.py``: push only, one compiled loop and a few Python steps) instead
    #: of the fused search, whose call costs more than such a graph's levels; so does a graph
    #: of more edges whose levels are narrow (``engine.narrow_levels``: up to 2^17 edges by the
    #: edges a level, a thin one up to ``engine.DEPTH_PROBE_EDGES`` by the vertices a level: a
    #: path's, a long mesh's; its depth measured once a matrix);
    #: 0 never. On the GPU backend it applies on the host twin (``host_search_edges``), and to a
    #: CPU batch's searches run one at a time. ``res.stats`` records say
    #: ``engine: "queue"`` where it ran.
    queue_search_edges: int = 1 << 16
    #: the GPU backend on one process: where a batch of searches (``bfs_multi``, and the BFS
    #: family built on it: betweenness, closeness, eccentricity) runs on the matrix's host twin.
    #: "auto" on a thin graph of at most ``host_search_edges`` stored edges, or of at most
    #: ``engine.DEPTH_PROBE_EDGES``, whose batch costs the host less than the device by the
    #: models of ``algorithms/small_graphs.py`` (the device pays a grid barrier and a level's
    #: fixed cost at each level, the host a batch's fixed cost and each thread's queue searches:
    #: a long path's batch goes to the host, a 30 x 30 mesh's 64 searches stay on the device);
    #: "always" on every graph of at most ``host_search_edges``; "never" on none. ``res.stats``
    #: records say which ``engine`` ran; the results are the GPU backend's, held in host memory.
    host_batches: str = "auto"

    @contextlib.contextmanager
    def changed(self, **values):
        """Inside the block the named fields hold ``values``; afterwards what they held before."""
        names = {f.name for f in fields(self)}
        unknown = sorted(set(values) - names)
        if unknown:
            raise AttributeError(f"no setting named {', '.join(unknown)} (settings: {', '.join(sorted(names))})")
        before = {name: getattr(self, name) for name in values}
        for name, value in values.items():
            setattr(self, name, value)
        try:
            yield self
        finally:
            for name, value in before.items():
                setattr(self, name, value)


#: the package's one settings object
settings = Settings()
