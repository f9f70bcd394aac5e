"""The valued semirings' products against python-graphblas, written once for the in-process
tests (tests/test_semirings_values.py) and the grid check (tests/mpi/check_semirings_values.py).

A case is (semiring, dtype, product, mask kind, encoding): the same random vector and graph on
both libraries, graphblas's matrix holding ones of the vector's type (ours is a pattern, whose
entries are 1). graphblas refusing a (semiring, dtype) means ours must refuse it too
(DomainMismatch)."""
import warnings

import graphblas as gb
import numpy as np
import scipy.sparse as sp

import lagraph_dist as ld

VALUED = ("plus_pair", "plus_first", "plus_second", "plus_times", "min_first", "min_second", "min_plus",
          "max_first", "max_second")
DTYPES = (np.bool_, np.int32, np.int64, np.float32, np.float64)
MASKS = ("none", "S", "~S", "V")


def random_graph(rng, n, density):
    S = sp.random(n, n, density=density, random_state=np.random.RandomState(rng.integers(2**31)), format="coo")
    return sp.csr_matrix((np.ones(S.nnz, bool), (S.row, S.col)), shape=(n, n))


def random_values(rng, dtype, count):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(count) < 0.6
    if dtype.kind == "f":
        return rng.normal(0, 4, count).astype(dtype)
    return rng.integers(-6, 7, count).astype(dtype)


def graphblas_semiring(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(gb.semiring.ss, name) if name.endswith("secondi") else getattr(gb.semiring, name)


def to_graphblas_matrix(S, dtype):
    S = S.tocoo()
    return gb.Matrix.from_coo(S.row, S.col, np.ones(S.nnz, dtype), nrows=S.shape[0], ncols=S.shape[1], dtype=dtype)


def entries(w):
    """{id: value} of one of our vectors (collective)."""
    ids = w.indices()
    dense = w.to_numpy(fill=0)
    return ids, dense[ids]


def check_product(name, dtype, product, mask_kind, encoding, *, S, A, ids, values, mask_ids, mask_values):
    """One case: ours (``A``, on its grid) against graphblas (``S``). Returns a string saying
    what went wrong, or None."""
    n = S.shape[0]
    dtype = np.dtype(dtype)
    ug = gb.Vector.from_coo(ids, values, size=n, dtype=dtype)
    mg = gb.Vector.from_coo(mask_ids, mask_values, size=n, dtype=bool)
    Ag = to_graphblas_matrix(S, dtype)
    semiring = getattr(ld.semiring, name)
    gb_mask = {"none": None, "S": mg.S, "~S": ~mg.S, "V": mg.V}[mask_kind]
    try:
        expr = ug.vxm(Ag, graphblas_semiring(name)) if product == "vxm" else Ag.mxv(ug, graphblas_semiring(name))
        expected = expr.new(mask=gb_mask)
    except (KeyError, TypeError, gb.exceptions.DomainMismatch):
        expected = None
    grid = A.grid
    mine = slice(None) if grid.rank == 0 else slice(0, 0)       # all entries given on rank 0
    u = ld.Vector.from_indices(ids[mine], n, values=values[mine], grid=grid, backend=A.backend, dtype=dtype)
    m = ld.Vector.from_indices(mask_ids[mine], n, values=mask_values[mine], grid=grid, backend=A.backend)
    u = u.to_list() if encoding == "push" else u.to_bitmap()
    kwargs = {} if mask_kind == "none" else {"mask": m, "complement": mask_kind == "~S",
                                               "structure": mask_kind != "V"}
    try:
        w = ld.vxm(u, A, semiring, **kwargs) if product == "vxm" else ld.mxv(A, u, semiring, **kwargs)
    except ld.DomainMismatch as exc:
        return None if expected is None else f"refused what graphblas computes: {exc}"
    if expected is None:
        return f"computed {name} on {dtype} that graphblas refuses"
    got_ids, got_values = entries(w)
    want_ids, want_values = expected.to_coo()
    if not np.array_equal(got_ids, want_ids.astype(np.int64)):
        return f"pattern {got_ids.tolist()} != {want_ids.tolist()}"
    # (the searches' semirings keep the package's types: any_pair bool, *_secondi int64)
    if name in VALUED and w.dtype != np.dtype(expected.dtype.np_type):
        return f"dtype {w.dtype} != {expected.dtype.np_type}"
    if dtype.kind == "f":
        ok = np.allclose(got_values, want_values, rtol=1e-5, atol=1e-5)
    else:
        ok = np.array_equal(got_values, want_values)
    return None if ok else f"values {got_values.tolist()} != {want_values.tolist()}"
