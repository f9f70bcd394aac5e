"""Algebra programs written once, each a function of the library module ``lib``: run with
``graphblas`` (python-graphblas, SuiteSparse) and with ``lagraph_dist``, they must agree.

Only the python-graphblas grammar is used (``lib.Vector``, ``.S``, ``<<``, ``lib.semiring``
...), never a call that one library lacks; positional semirings are spelled
``lib.semiring.ss.*`` as python-graphblas wants. Imported by the single-process tests and by
the MPI check under mpiexec.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np


def library(module, **vector_options):
    """``module`` with its Vector constructors bound to ``vector_options`` (lagraph_dist's
    backend), so a program makes vectors where its matrix lives."""
    if not vector_options:
        return module

    def vector(dtype, size):
        return module.Vector(dtype, size, **vector_options)

    def from_coo(indices, values=1.0, dtype=None, *, size=None):
        return module.Vector.from_coo(indices, values, dtype, size=size, **vector_options)
    vector.from_coo = from_coo
    return SimpleNamespace(Vector=vector, semiring=module.semiring, monoid=module.monoid,
                           binary=module.binary)


# -- the programs -----------------------------------------------------------------------------
def bfs(lib, A, source):
    """(levels, parents) from ``source``: push steps ``q' A`` over any_secondi, masked by the
    complement of the parents found so far."""
    n = A.nrows
    parents = lib.Vector(int, n)
    parents[source] = source
    levels = lib.Vector(int, n)
    levels[source] = 0
    frontier = lib.Vector(int, n)
    frontier[source] = source
    depth = 0
    while frontier.nvals:
        depth += 1
        frontier(~parents.S, replace=True) << frontier.vxm(A, lib.semiring.ss.any_secondi)
        parents(frontier.S) << frontier
        levels(frontier.S) << depth
    return levels, parents


def bfs_pull_levels(lib, A, source):
    """Levels from ``source``, pulled: ``A' q`` by mxv on the transpose over any_pair; the
    visited set grows by an accumulator (lor) instead of a masked assignment."""
    n = A.nrows
    visited = lib.Vector(bool, n)
    visited[source] = True
    levels = lib.Vector(int, n)
    levels[source] = 0
    frontier = visited.dup()
    depth = 0
    while frontier.nvals:
        depth += 1
        frontier(~visited.S, replace=True) << A.T.mxv(frontier, lib.semiring.any_pair)
        visited(lib.binary.lor) << frontier
        levels(frontier.S) << depth
    return levels


def components(lib, A):
    """Connected components of a symmetric A: each vertex labelled with the smallest vertex of
    its component, the minimum over the unlabelled vertices taken by a reduction, the
    component grown by masked any_pair steps."""
    n = A.nrows
    unlabelled = lib.Vector.from_coo(np.arange(n), np.arange(n), size=n)
    labels = lib.Vector(int, n)
    while unlabelled.nvals:
        smallest = unlabelled.reduce(lib.monoid.min).new().value
        seen = lib.Vector(bool, n)
        seen[smallest] = True
        frontier = seen.dup()
        while frontier.nvals:
            frontier(~seen.S, replace=True) << frontier.vxm(A, lib.semiring.any_pair)
            seen(frontier.S) << frontier
        labels(seen.S) << smallest
        unlabelled(~seen.S, replace=True) << unlabelled
    return labels


def tour(lib, A, u, v):
    """Every expression and output form once, on int vectors u and v: {name: result}."""
    results = {
        "vxm min_secondi": u.vxm(A, lib.semiring.ss.min_secondi).new(),
        "mxv any_pair": A.mxv(u, lib.semiring.any_pair).new(),
        "ewise_add min": u.ewise_add(v, lib.monoid.min).new(),
        "ewise_add second": u.ewise_add(v, lib.binary.second).new(),
        "ewise_mult first": u.ewise_mult(v, lib.binary.first).new(),
        "apply second right": u.apply(lib.binary.second, right=5).new(),
        "apply first left": u.apply(lib.binary.first, left=-2).new(),
    }
    flags = lib.Vector(bool, A.nrows)
    flags(u.S) << u                       # cast: nonzero values become True
    results["bool cast"] = flags
    results["mxv lor_land, value mask"] = A.mxv(flags, lib.semiring.lor_land).new(mask=v.V)
    w = v.dup()
    w(u.V, lib.binary.plus) << u
    results["accum plus, value mask"] = w
    w = v.dup()
    w(~u.S, replace=True) << 3
    results["scalar, complement, replace"] = w
    w = v.dup()
    w(u.S) << u.vxm(A, lib.semiring.ss.min_secondi)
    results["masked product, old kept"] = w
    w = v.dup()
    w(lib.monoid.min) << A.T.mxv(u, lib.semiring.ss.min_secondi)
    results["accum min, no mask"] = w
    w = u.dup()
    w(~v.V) << v
    results["complemented value mask"] = w
    results["reduce plus"] = u.reduce(lib.monoid.plus).new().value
    results["reduce min"] = v.reduce(lib.monoid.min).value
    return results


# -- one random update, described by plain data ------------------------------------------------
MASKS = (None, "S", "V", "~S", "~V")
ACCUMS = (None, "first", "second", "min", "plus", "any")
RIGHT_SIDES = ("vector", "scalar", "vxm", "mxv", "ewise_add", "ewise_mult", "apply")


def run_update(lib, A, case, prepare=lambda vector, name: vector):
    """Build the case's vectors in ``lib``, run ``w(mask, accum, replace) << rhs``, and return
    w's (int64 indices, values). ``case`` holds plain data: n, w/u/m entries, rhs, mask (of
    the vector named by mask_of: m, or w itself, or u), accum, replace, op. ``prepare(vector,
    name)`` may re-encode each vector (lagraph_dist's list/bitmap)."""
    n = case["n"]

    def vector(name):
        ids, values = case[name]
        return prepare(lib.Vector.from_coo(ids, values, dtype=values.dtype, size=n), name)

    vectors = {name: vector(name) for name in ("w", "u", "m")}
    w, u, m = vectors["w"], vectors["u"], vectors["m"]
    source = vectors[case.get("mask_of", "m")]
    mask = {None: None, "S": source.S, "V": source.V, "~S": ~source.S,
            "~V": ~source.V}[case["mask"]]
    accum = None if case["accum"] is None else getattr(lib.binary, case["accum"])
    op = getattr(lib.binary, case["op"])
    rhs = {
        "vector": lambda: u,
        "scalar": lambda: case["scalar"],
        "vxm": lambda: u.vxm(A, lib.semiring.ss.min_secondi),
        "mxv": lambda: A.mxv(u, lib.semiring.any_pair),
        "ewise_add": lambda: u.ewise_add(m, op),
        "ewise_mult": lambda: u.ewise_mult(m, op),
        "apply": lambda: u.apply(op, right=case["scalar"]),
    }[case["rhs"]]()
    w(mask=mask, accum=accum, replace=case["replace"]) << rhs
    ids, values = w.to_coo()
    return ids.astype(np.int64), values


def random_case(rng, n=None):
    """A random update case (see :func:`run_update`) from a numpy Generator."""
    n = int(rng.integers(1, 90)) if n is None else n

    def entries(dtype=np.int64):
        ids = np.flatnonzero(rng.random(n) < rng.uniform(0, 1))
        values = rng.integers(-3, 4, ids.shape[0]).astype(dtype)   # zeros: falsy for .V
        return ids, values

    mask = MASKS[rng.integers(len(MASKS))]
    rhs = RIGHT_SIDES[rng.integers(len(RIGHT_SIDES))]
    op_choices = ("first", "second") if rhs in ("ewise_mult", "apply") else ACCUMS[1:]
    return {
        "n": n, "w": entries(), "u": entries(), "m": entries(),
        "mask": mask, "mask_of": ("m", "w", "u")[rng.integers(3)],
        "accum": ACCUMS[rng.integers(len(ACCUMS))], "rhs": rhs,
        "replace": bool(mask is not None and rng.integers(2)),
        "op": op_choices[rng.integers(len(op_choices))], "scalar": int(rng.integers(-5, 6)),
    }


def comparable(case):
    """Whether the case's result is determined: ``any`` may pick either value where both
    operands have one, so such cases are compared by pattern only."""
    return case["accum"] != "any" and not (case["rhs"] == "ewise_add" and case["op"] == "any")


def random_edges(rng, n, m=None):
    m = int(rng.integers(0, 4 * n + 1)) if m is None else m
    return rng.integers(0, n, m), rng.integers(0, n, m)
