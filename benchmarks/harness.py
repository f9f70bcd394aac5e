"""What the benchmarks of this folder share, a section each below: graphs named by a spec, timing,
checks, peers, command lines, records and the cells of the tables made from them (by the scripts
and ``results_report.py``). A script puts ``benchmarks/`` first on ``sys.path`` and imports it.
The graph specs (each made symmetric):

    kron:SCALE          Graph500 Kronecker graph, edge factor 16, seed 0 (its roots are drawn)
    mesh:ROWSxCOLS      4-neighbour mesh, vertex (r, c) = r * cols + c (searched from a corner)
    path:N              path 0 - 1 - ... - N-1 (searched from an end)
    road:N              N points of the unit square, each joined to its 3 nearest (``knn_edges``)
    mtx:PATH[:K]        a Matrix Market file; K: the sources its runs ask for (drawn roots)
"""
import argparse
import json
import math
import re
import sys
import time
from collections import namedtuple
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import scipy.sparse as sp

import lagraph_dist as ld
from lagraph_dist.core.text import plural  # noqa: F401  (the tables' counted nouns: the package's rule)
from lagraph_dist.io import generators
from lagraph_dist.tools.bench import pick_roots, write_json

RESULTS = Path(__file__).resolve().parent / "results"
PEERS = ("scipy", "graphblas-push", "graphblas-pushpull")
BACKENDS = ("auto", "cpu", "gpu")
SPECS = "kron:SCALE, kron2:SCALE, mesh:ROWSxCOLS, path:N, road:N or mtx:PATH[:K]"
EDGEFACTOR = 16
ROAD_K = 3
LEVELS_KEPT = 64        # a search of at most this many levels keeps its levels' figures (a summary for deeper ones)


# -- graphs ---------------------------------------------------------------------------------------
class SpecError(argparse.ArgumentTypeError, ValueError):
    """A spec that names no graph (argparse prints its message as it is, as a ``type=``'s error)."""


@dataclass(frozen=True)
class Spec:
    """A graph as a spec names it: ``kind`` (kron, kron2, mesh, path, road, mtx) and its sizes; ``n``
    is None for a file until it is read. ``kron2`` is two disjoint copies of the Kronecker graph:
    a search from one leaves the other's hubs unreached, rows a pull level reads in vain."""

    text: str
    kind: str
    n: int | None = None
    scale: int | None = None
    rows: int | None = None
    cols: int | None = None
    file: str | None = None
    sources: int | None = None

    @property
    def drawn_roots(self):
        """Whether its roots are drawn (``tools.bench.pick_roots``) rather than vertex 0."""
        return self.kind in ("kron", "kron2", "mtx")


def _count(text, spec, least):
    try:
        return at_least(least)(text)
    except argparse.ArgumentTypeError as error:
        raise SpecError(f"{spec!r}: {error} (a graph is {SPECS})") from None


def parse_spec(text):
    """The Spec of ``text``; SpecError, saying what a spec is, for anything else."""
    kind, _, rest = text.partition(":")
    if not rest or kind not in ("kron", "kron2", "mesh", "path", "road", "mtx"):
        raise SpecError(f"unknown graph {text!r}: a graph is {SPECS}")
    if kind in ("kron", "kron2"):
        scale = _count(rest, text, 1)
        return Spec(text, kind, n=(1 if kind == "kron" else 2) << scale, scale=scale)
    if kind == "mesh":
        match = re.fullmatch(r"(\d+)x(\d+)", rest)
        if not match or min(int(match[1]), int(match[2])) < 1:
            raise SpecError(f"{text!r}: a mesh is mesh:ROWSxCOLS with both at least 1")
        rows, cols = int(match[1]), int(match[2])
        return Spec(text, kind, n=rows * cols, rows=rows, cols=cols)
    if kind == "path":
        return Spec(text, kind, n=_count(rest, text, 2))
    if kind == "road":
        return Spec(text, kind, n=_count(rest, text, ROAD_K + 1))
    file, colon, count = rest.rpartition(":")           # mtx:PATH[:K]
    if not colon or not re.fullmatch(r"\d+", count):
        return Spec(text, kind, file=rest)
    return Spec(text, kind, file=file, sources=_count(count, text, 1))


def graph_name(spec, grouped=False):
    """The name a record and a table give the graph ('path 100,000' with ``grouped``)."""
    def size():          # (a Matrix Market file's n is known only once it is read)
        return f"{spec.n:,}" if grouped else f"{spec.n}"
    return {"kron": lambda: f"Kronecker {spec.scale}", "kron2": lambda: f"two Kronecker {spec.scale}",
            "mesh": lambda: f"mesh {spec.rows}x{spec.cols}",
            "path": lambda: f"path {size()}", "road": lambda: f"road {size()} (k={ROAD_K})",
            "mtx": lambda: Path(spec.file).name.removesuffix(".gz").removesuffix(".mtx")}[spec.kind]()


def graph_info(spec):
    """The graph's entries in a record: what makes it again."""
    kronecker = {"kind": "kronecker", "scale": spec.scale, "edgefactor": EDGEFACTOR, "seed": 0}
    return {"kron": kronecker, "kron2": {**kronecker, "copies": 2},
            "mesh": {"kind": "mesh", "rows": spec.rows, "cols": spec.cols},
            "path": {"kind": "path"}, "road": {"kind": "road", "k": ROAD_K},
            "mtx": {"kind": "real", "file": Path(spec.file or "").name}}[spec.kind]


def edges(spec, xp=np):
    """(src, dst, n): the graph's edges one way (a build adds the reverse), as ``xp`` arrays; a
    Kronecker graph's self-loops dropped, as ``ld.kronecker`` drops them."""
    if spec.kind in ("kron", "kron2"):
        src, dst = generators.kronecker_edges(spec.scale, EDGEFACTOR, seed=0, xp=xp)
        keep = src != dst
        src, dst = src[keep], dst[keep]
        if spec.kind == "kron2":                # the second copy's ids past the first's
            shift = 1 << spec.scale
            src, dst = xp.concatenate([src, src + shift]), xp.concatenate([dst, dst + shift])
        return src, dst, spec.n
    if spec.kind == "mesh":
        return (*generators.grid2d_edges(spec.rows, spec.cols, xp=xp), spec.n)
    if spec.kind == "path":
        src = xp.arange(spec.n - 1, dtype=xp.int64)
        return src, src + 1, spec.n
    if spec.kind == "road":
        src, dst = generators.knn_edges(spec.n, ROAD_K)
        return xp.asarray(src), xp.asarray(dst), spec.n
    from lagraph_dist.io.mtx import read_mtx
    graph = read_mtx(spec.file)
    return xp.asarray(graph.src), xp.asarray(graph.dst), graph.nrows


def matrix(spec, backend):
    """The graph as a Matrix on ``backend``: a Kronecker graph generated where it will live
    (``ld.kronecker``), a file read by ``Matrix.from_mtx``, the others from their host edges."""
    if spec.kind == "kron":
        return ld.kronecker(spec.scale, backend=backend)
    if spec.kind == "mtx":
        return ld.Matrix.from_mtx(spec.file, backend=backend)
    src, dst, n = edges(spec)
    return ld.Matrix.from_edges(src, dst, n, symmetrize=True, backend=backend)


def build(text, backend="gpu"):
    """(the Matrix of the spec ``text`` on ``backend``, its roots): [0] for a mesh, a path or a
    road, None where the caller draws them."""
    spec = parse_spec(text)
    return matrix(spec, backend), (None if spec.drawn_roots else [0])


def hub_first_indices(indptr, indices, order, xp=np):
    """A CSR's entries with each row's in the vertex order ``order`` (a new array): hub first
    where ``order`` is ``ld.sort_by_degree``'s. One int64 key an entry (its row, then its vertex's
    place in ``order``; rows * rows < 2**63 to scale 31) sorted: about 24 bytes an entry at the
    peak."""
    from lagraph_dist.local.parts import LocalCSR
    rows = indptr.shape[0] - 1
    order = xp.asarray(order)
    place = xp.empty(order.shape[0], xp.int64)         # (inverse_permutation's, on either backend)
    place[order] = xp.arange(order.shape[0])
    key = LocalCSR(indptr, indices, order.shape[0]).majors(xp) * rows
    key += place[indices]
    del place
    key.sort()
    return order[key % rows].astype(indices.dtype)


def batch_sources(A, k, seed):
    """``k`` sources of a multi-source batch: ``pick_roots``'s, each again in turn where the
    graph offers fewer."""
    roots = pick_roots(A, k, seed=seed)
    return [roots[i % len(roots)] for i in range(k)]


def modelled_batch(description, seed=2):
    """What a probe that models a batch's work on the host starts from: (its arguments: a graph
    spec, ``--sources`` (64) and ``--json``; the graph on the CPU backend; the batch's sources
    (:func:`batch_sources`); their levels, a (k, n) int64 array from one levels-only
    ``ld.bfs_multi``)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("graph")
    parser.add_argument("--sources", type=int, default=64)
    parser.add_argument("--json")
    args = parser.parse_args()
    A = matrix(parse_spec(args.graph), "cpu")
    sources = batch_sources(A, args.sources, seed)
    return args, A, sources, ld.bfs_multi(A, sources, parents=False).levels.to_numpy()


def build_timed(make):
    """(the Matrix ``make()`` builds, seconds from the call to its device work being done)."""
    started = time.perf_counter()
    A = make()
    A.backend.sync()
    return A, time.perf_counter() - started


def summed(S):
    """S with its duplicates summed, as a scipy user makes it canonical."""
    S.sum_duplicates()
    return S


def scipy_csr(src, dst, n):
    """scipy's CSR of the edges both ways, duplicates summed: what a scipy user builds."""
    i, j = np.concatenate([src, dst]), np.concatenate([dst, src])
    return summed(sp.csr_matrix((np.ones(i.shape[0], dtype=np.int8), (i, j)), shape=(n, n)))


# -- timing ---------------------------------------------------------------------------------------
def timed(A, func, *args, **kwargs):
    """(result, seconds) of one call, from the call to its work being complete (docs/benchmarking.md):
    A's ranks start together and the clock stops once the device work is done on every rank;
    with A None, a host call with nothing to wait for. On one rank a call that launched none of
    our kernels and read nothing from the device (a small graph's search on the host twin) has
    nothing to wait for either: its clock stops at its return, as a peer's does."""
    several = A is not None and A.grid.size > 1
    if several:
        A.grid.comm.Barrier()
    device_work = None if A is None else (A.backend.kernel_launches, A.backend.device_reads)
    started = time.perf_counter()
    result = func(*args, **kwargs)
    if several or (A is not None and (A.backend.kernel_launches, A.backend.device_reads) != device_work):
        A.backend.sync()
        if several:
            A.grid.comm.Barrier()
    return result, time.perf_counter() - started


Calls = namedtuple("Calls", "seconds kept last")


def timed_calls(call, repeats, *, check=None, budget=None, A=None, keep="all", warmups=1):
    """``warmups`` untimed warm-up calls (every kernel compiled, pools sized), then at most ``repeats``
    timed calls, fewer once ``budget`` seconds are spent (one at least). Each result goes to
    ``check`` outside the clock, and is dropped before the next call, so that two results never
    share the memory; ``kept`` holds what ``check`` returned: for every call (``keep="all"``),
    or only for the call nearest the median of the calls so far (``"median"``: what ``check``
    kept of the others is dropped before the next call, so that a call does not find the
    memory of all those before it taken, where a peer's results are dropped; a 100,000-level
    path's records are 4 MB a call, whose fresh pages cost our call 2.7 ms against 0.6);
    ``last`` is the last result."""
    if keep not in ("all", "median"):
        raise ValueError(f"keep is 'all' or 'median', not {keep!r}")
    for _ in range(warmups):
        call()
    seconds, kept, result, kept_took = [], [], None, None
    while len(seconds) < repeats and (budget is None or not seconds or sum(seconds) < budget):
        result = None
        result, took = timed(A, call)
        seconds.append(took)
        if check is None:
            continue
        made = check(result)
        if keep == "all":
            kept.append(made)
        elif kept_took is None or _nearer_the_median(seconds, took, kept_took):
            kept, kept_took = [made], took
        made = None
    return Calls(seconds, kept, result)


def _nearer_the_median(seconds, took, than):
    middle = float(np.median(seconds))
    return abs(took - middle) < abs(than - middle)


def time_summary(seconds):
    """The seconds of some timed calls, their median and best in ms."""
    return {"seconds": seconds, "median_ms": 1e3 * float(np.median(seconds)), "best_ms": 1e3 * min(seconds)}


def contender_run(A, contender, roots, expected, repeats, *, budget=None, ours=False, warmups=1):
    """``contender`` (a :class:`Peer`) from every root: :func:`timed_calls` a root (a peer's stop past
    ``budget`` seconds a root), every result checked against ``expected[root]`` outside the clock. Ours
    are timed to the end of their device work and keep the level figures of the first root's call
    nearest the median of its calls as they come (:func:`timed_calls`' ``keep="median"``: one
    call's records held at a time), made once the calls are done: a check that made
    every result's stats (a dict a level) left the caches and allocator to the next call in a
    state that slowed a small graph's call 2-7x, where scipy's results have none to make."""
    seconds, stats = [], None
    for root in roots:
        def check(raw):
            contender.check(A, root, expected[root], raw)
            return raw.stats_when_called() if ours else None
        calls = timed_calls(lambda: contender.search(root), repeats, check=check, budget=budget, A=A if ours else None,
                            keep="median", warmups=warmups)
        seconds += calls.seconds
        if ours and stats is None:
            stats = level_figures(calls.kept[0]())
    # reaching this line means every timed result passed its checks (a failure raises)
    run = time_summary(seconds) | {"roots": len(roots), "validated": len(seconds), "levels_equal": True}
    log(f"  {contender.name}: {run['median_ms']:.3f} ms, {len(seconds)} timed, all validated")
    return (run | {"stats": stats}) if ours else run


def timed_searches(A, roots, direction="auto"):
    """(ms of each search, the last search's result), after one untimed search from the first
    root: each root but the first once, or the one root three times."""
    ld.bfs(A, roots[0], direction=direction)
    times = []
    for root in (roots[1:] or roots) * (1 if len(roots) > 1 else 3):
        result, seconds = timed(A, ld.bfs, A, root, direction=direction)
        times.append(1e3 * seconds)
    return times, result


def ratios(ours, peers):
    """Each peer's median time over each of our directions' (above 1: ours is faster)."""
    return {peer: {d: run["median_ms"] / mine["median_ms"] for d, mine in ours.items()}
            for peer, run in peers.items() if "median_ms" in run}


# -- checks (never timed) -------------------------------------------------------------------------
def require_levels(who, levels, expected):
    """Raise ValidationError naming the first vertex where ``levels`` differ from ``expected``."""
    if levels.shape != expected.shape:
        raise ld.ValidationError(f"{who}: {levels.shape[0]} levels for {expected.shape[0]} vertices")
    wrong = np.flatnonzero(levels != expected)
    if wrong.size:
        v = int(wrong[0])
        raise ld.ValidationError(f"{who}: vertex {v} is at level {int(levels[v])}, expected "
                                 f"{int(expected[v])} ({wrong.size} vertices differ)")


def check_batch(A, sources, batch, single_levels, rows=None):
    """A ``bfs_multi`` result against the same searches one ``ld.bfs`` each: every row's levels
    equal its source's single search's, and the parents of the first ``rows`` rows (all by
    default) pass ``ld.validate``. Returns the rows validated (none when it has no parents)."""
    levels = batch.levels.to_numpy()
    for i, single in enumerate(single_levels):
        if not np.array_equal(levels[i], single):
            raise AssertionError(f"bfs_multi row {i} (source {sources[i]}) differs from ld.bfs's levels")
    if batch.parents is None:
        return 0
    parents = batch.parents.to_numpy()
    rows = len(sources) if rows is None else min(rows, len(sources))
    for i in range(rows):
        ld.validate(A, sources[i], levels[i], parents[i])
    return rows


def scipy_levels(hops):
    """csgraph's hop counts as levels: -1 where unreached."""
    return np.where(np.isinf(hops), -1, hops).astype(np.int64)


def scipy_parents(predecessors, root):
    """csgraph's predecessors in our convention: -1 unreached, the root its own parent."""
    parents = np.where(predecessors < 0, -1, predecessors).astype(np.int64)
    parents[root] = root
    return parents


def level_figures(stats):
    """:func:`level_stats` of one search, and its levels' own figures when it has at most LEVELS_KEPT."""
    figures = level_stats(stats)
    if len(stats) <= LEVELS_KEPT:
        figures["per_level"] = [{key: level[key] for key in ("level", "direction", "frontier", "discovered",
                                                             "edges_examined", "seconds", "run_levels", "run_seconds")
                                 if key in level} for level in stats]
    return figures


def level_stats(records):
    """What ``res.stats`` says about one search: how many levels ran fused, host reads, seconds."""
    host_reads = float(sum(r["host_reads"] for r in records))
    return {"levels": len(records), "fused_levels": sum(1 for r in records if r["fused"]),
            "push_levels": sum(1 for r in records if r["direction"] == "push"),
            "pull_levels": sum(1 for r in records if r["direction"] == "pull"),
            "host_reads": host_reads, "host_reads_per_level": host_reads / max(len(records), 1),
            "seconds": float(sum(map(ld.measured_seconds, records))),
            "engines": sorted({r["engine"] for r in records if "engine" in r})}


# -- peers ----------------------------------------------------------------------------------------
@dataclass
class Peer:
    """A peer's BFS: ``search(root)`` is the timed call, ``answer(raw, root)`` its result as
    (levels or None, parents) in our convention, made outside the clock."""

    name: str
    search: Callable
    answer: Callable

    def check(self, A, root, expected, raw):
        """The result from ``root``: its levels equal ``expected`` and its parents pass ``ld.validate``
        (Graph500 rules); without levels (scipy's tree has none), its tree has the expected depths."""
        levels, parents = self.answer(raw, root)
        if levels is not None:
            require_levels(self.name, levels, expected)
        ld.validate(A, root, expected if levels is None else levels, parents)


def our_bfs(A, direction, name):
    """``ld.bfs`` on A in ``direction`` as a Peer called ``name``, its results checked as the peers' are."""
    return Peer(name, lambda root: ld.bfs(A, root, direction=direction),
                lambda result, root: (result.levels.to_numpy(), result.parents.to_numpy()))


def peers(S, names):
    """([Peer] in the order of ``names``, {name: why it cannot run}) on the scipy graph S, each
    peer's graph converted here, before any clock: scipy's to the float64 CSR csgraph would
    convert S to in every call, python-graphblas's by ``tools.reference.prepare``."""
    import scipy.sparse.csgraph as csgraph
    made, skipped, prepared = {}, {}, None
    if "scipy" in names:
        weighted = sp.csr_matrix(S, dtype=np.float64)
        made["scipy"] = Peer("scipy", lambda root: csgraph.breadth_first_order(
            weighted, root, directed=True, return_predecessors=True),
            lambda raw, root: (None, scipy_parents(raw[1], root)))
    wanted = [name for name in names if name.startswith("graphblas")]
    if wanted:
        from lagraph_dist.tools import reference
        try:
            prepared = reference.prepare(S)
        except ImportError as exc:
            skipped = {name: str(exc) for name in wanted}
    for name in wanted if prepared is not None else ():
        direction = "push" if name == "graphblas-push" else "pushpull"
        made[name] = Peer(name, lambda root, d=direction: reference.bfs(prepared, root, direction=d),
                          lambda raw, root: raw)
    return [made[name] for name in names if name in made], skipped


def run_peers(S, names, run):
    """{peer: ``run(Peer)``'s record or {"skipped": why it cannot run}}, :func:`peers` on S in ``names``' order."""
    made, skipped = peers(S, names)
    runs = {peer.name: run(peer) for peer in made}
    return {name: runs[name] if name in runs else {"skipped": skipped[name]} for name in names}


# -- command lines and progress -------------------------------------------------------------------
def at_least(least):
    """An argparse type: a whole number of at least ``least``."""
    def number(text):
        if not re.fullmatch(r"\d+", text) or int(text) < least:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least {least}")
        return int(text)
    return number


def backend_option(parser, default="auto", help="where the graphs live and the searches run (default auto: "
                                                "the GPU if CuPy sees one)"):
    parser.add_argument("--backend", choices=BACKENDS, default=default, help=help)


def log(text):
    """A progress line, on stderr (a script's table goes to stdout)."""
    print(text, file=sys.stderr, flush=True)


# -- records ------------------------------------------------------------------------------------
def record_file(kind, host, commit):
    """A record's file name: KIND-HOST-COMMIT.json, the host's words lower-cased and dashed, the commit's first 7."""
    host = re.sub(r"[^a-z0-9]+", "-", (host or "host").lower()).strip("-")
    return f"{kind}-{host}-{(commit or 'uncommitted')[:7]}.json"


def write_record(record, path):
    """Write the record to ``path`` (its folder made) and return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(record, path)
    return path


def records(results, patterns):
    """{name: record} of the records under results whose paths (relative to it, their names) match
    any of the glob patterns, in name order."""
    results = Path(results)
    chosen = sorted({path.relative_to(results).as_posix() for pattern in patterns for path in results.glob(pattern)})
    return {name: json.loads((results / name).read_text()) for name in chosen}


def short_commit(commit):
    """A commit as a table or a file name shows it: a git hash's first 7 characters (a new record
    holds the full hash); anything else as it is (an old record's short hash, or a name given by
    hand through $LAGRAPH_DIST_COMMIT such as ``9f19b52+stack``); None stays None."""
    if isinstance(commit, str) and re.fullmatch(r"[0-9a-f]{8,64}", commit):
        return commit[:7]
    return commit


def device_of(env):
    """What a record ran on, in words: the GPU (and its host's processor, where the record names
    it: hosts beside one GPU model differ) or the CPU and its cores."""
    name = env.get("device", "device not recorded")
    if env.get("backend") == "gpu":
        visible = env.get("gpus_visible")
        name = name if not visible or visible == 1 else f"{name} ({visible} GPUs visible)"
        return with_host(name, env)
    return f"CPU {name}, {env.get('cpu_count', '?')} cores"


def with_host(device, named):
    """``device`` (a GPU's name), then its host's processor where ``named`` (a record or its
    environment) has one: hosts beside one GPU model differ."""
    return f"{device}, host {named['host_cpu']}" if named.get("host_cpu") else device


def commit_of(env):
    """A full hash by its first 7 characters (an old record holds 7 characters or a name given by hand)."""
    return short_commit(env.get("commit")) or "not recorded"


def record_commit(record):
    """The commit a record without an environment names at its top (else the code write_json stamped)."""
    return short_commit(record.get("commit") or (record.get("code") or {}).get("commit"))


def grid_text(grid):
    """A grid's shape as the records' names write it: 2x4."""
    return "x".join(map(str, grid))


def grid_of(record):
    """The grid a record ran on, as text."""
    return grid_text(record.get("grid") or record["environment"]["grid"])


# -- table cells and tables -----------------------------------------------------------------------
def missing(x):
    return x is None or (isinstance(x, float) and math.isnan(x))


def sig(x, digits=3):
    """x to `digits` significant figures, written plainly (no exponent); '-' when absent."""
    if missing(x):
        return "-"
    if x == 0:
        return "0"
    if abs(x) >= 10 ** digits:
        return f"{x:.0f}"
    text = np.format_float_positional(x, precision=digits, unique=False, fractional=False, trim="k")
    return text.removesuffix(".")            # '112.' when the figures end at the point


def rate(teps, unit=1e9):
    """TEPS in `unit` (GTEPS by default): one decimal from 10 up, three figures below."""
    if missing(teps):
        return "-"
    value = teps / unit
    return f"{value:.1f}" if value >= 10 else sig(value)


def ms(seconds):
    return "-" if missing(seconds) else sig(1e3 * seconds, 4)


def times(x):
    return "-" if missing(x) else sig(x) + "x"


def megabytes(nbytes):
    return "-" if missing(nbytes) else sig(nbytes / 1e6)


def gib(nbytes):
    return "-" if missing(nbytes) or not nbytes else sig(nbytes / 2**30)


def count(n):
    return f"{n:,}"


def span(low, high, show):
    """'low .. high', or one figure where both read the same."""
    low_text, high_text = show(low), show(high)
    return low_text if low_text == high_text else f"{low_text} .. {high_text}"


def table(header, rows):
    """A markdown table's lines: the header, its rule, then one line a row."""
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + [
        "| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]


def md_table(header, rows):
    """:func:`table` as one text."""
    return "\n".join(table(header, rows))


def paragraphs(*parts):
    """Markdown blocks one after another, the empty ones left out."""
    return "\n\n".join(part for part in parts if part)
