"""The algebra with values (issue 51): every valued semiring's vxm and mxv (masked,
complemented, by values; push and pull) on each vector dtype against python-graphblas on
random graphs, ewise_add/ewise_mult/apply/reduce with the new monoids and dtypes, the
semiring policy the kernels read, and the bad inputs. The same products on 1 x 2, 2 x 2 and 2 x 3
grids, in one start of the ranks: tests/mpi/check_semirings_values.py."""
import functools
import re
import sys
import time
from pathlib import Path

import graphblas as gb
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import lagraph_dist as ld
from lagraph_dist.local.layout import ADD_CODES, MULT_CODES
from lagraph_dist.semirings import VALUE_DTYPES, semirings

sys.path.insert(0, str(Path(__file__).resolve().parent))
from helpers import needs_mpi, run_mpi                      # noqa: E402
from semiring_cases import (DTYPES, MASKS, VALUED, check_product, random_graph,  # noqa: E402
                            random_values)

HERE = Path(__file__).resolve().parent
BACKENDS = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


def _backend(name):
    if name == "gpu":
        pytest.importorskip("cupy")
        import cupy
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("no CUDA device")
        _gpu_built()
    return name


@functools.lru_cache(maxsize=None)
def _gpu_built():
    """The valued semirings' GPU modules, built at once in threads before the first GPU case
    (each would otherwise compile on its first product, one after another)."""
    started = time.perf_counter()
    built = ld.get_backend("gpu").kernels.build_semirings()
    print(f"\nbuilt {built} GPU modules on demand in {time.perf_counter() - started:.1f} s")
    return built


@st.composite
def cases(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(1, 70))
    S = random_graph(rng, n, draw(st.sampled_from([0.0, 0.05, 0.2])))
    ids = np.flatnonzero(rng.random(n) < draw(st.sampled_from([0.1, 0.5, 1.0])))
    mask_ids = np.flatnonzero(rng.random(n) < 0.5)
    return rng, S, ids, mask_ids


def _run(backend, name, dtype, case, product, mask_kind, encoding):
    rng, S, ids, mask_ids = case
    A = ld.Matrix.from_scipy(S, backend=backend)
    problem = check_product(name, dtype, product, mask_kind, encoding, S=S, A=A, ids=ids,
                            values=random_values(rng, dtype, ids.shape[0]), mask_ids=mask_ids,
                            mask_values=rng.random(mask_ids.shape[0]) < 0.5)
    assert problem is None, (name, np.dtype(dtype).name, product, mask_kind, encoding, problem)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", VALUED + ("lor_land", "min_secondi", "any_pair"))
@settings(max_examples=12, deadline=None)
@given(case=cases(), dtype=st.sampled_from(DTYPES), product=st.sampled_from(["vxm", "mxv"]),
       mask_kind=st.sampled_from(MASKS), encoding=st.sampled_from(["push", "pull"]))
def test_products_agree_with_graphblas(backend, name, case, dtype, product, mask_kind, encoding):
    if name in ("lor_land", "any_pair", "min_secondi") and dtype != np.bool_:
        dtype = np.bool_        # the searches' semirings: their types differ from graphblas's otherwise
    _run(_backend(backend), name, dtype, case, product, mask_kind, encoding)


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_dtype_of_every_semiring_once(backend):
    """Each (semiring, dtype) pushed and pulled once, so that none is left to hypothesis's luck."""
    rng = np.random.default_rng(5)
    case = (rng, random_graph(rng, 40, 0.1), np.arange(0, 40, 3), np.arange(0, 40, 2))
    for name in VALUED:
        for dtype in DTYPES:
            for encoding in ("push", "pull"):
                _run(_backend(backend), name, dtype, case, "vxm" if encoding == "push" else "mxv", "~S", encoding)


# -- element-wise, apply, reduce ------------------------------------------------------------------
def _pair(rng, n, dtype_u, dtype_v, backend):
    iu, iv = np.flatnonzero(rng.random(n) < 0.5), np.flatnonzero(rng.random(n) < 0.5)
    xu, xv = random_values(rng, dtype_u, iu.shape[0]), random_values(rng, dtype_v, iv.shape[0])
    ours = (ld.Vector.from_indices(iu, n, values=xu, backend=backend, dtype=dtype_u),
            ld.Vector.from_indices(iv, n, values=xv, backend=backend, dtype=dtype_v))
    theirs = (gb.Vector.from_coo(iu, xu, size=n, dtype=dtype_u), gb.Vector.from_coo(iv, xv, size=n, dtype=dtype_v))
    return ours, theirs


def _same(w, expected):
    ids, vals = expected.to_coo()
    got = w.indices()
    assert got.tolist() == ids.tolist()
    assert w.dtype == np.dtype(expected.dtype.np_type), (w.dtype, expected.dtype)
    np.testing.assert_allclose(w.to_numpy(fill=0)[got].astype(np.float64), vals.astype(np.float64), rtol=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtypes", [(np.int32, np.int32), (np.int64, np.float32), (np.float64, np.float64),
                                    (np.bool_, np.bool_)], ids=str)
def test_elementwise_apply_reduce_agree_with_graphblas(backend, dtypes):
    backend = _backend(backend)
    rng = np.random.default_rng(11)
    (u, v), (ug, vg) = _pair(rng, 90, *dtypes, backend)
    numeric = dtypes[0] != np.bool_
    for name in ("plus", "min", "max", "any", "lor", "land"):
        if name == "plus" and not numeric:
            with pytest.raises(ld.DomainMismatch, match="bool"):
                ld.ewise_add(u, v, name)
            continue
        w = ld.ewise_add(u, v, name)
        if name != "any":
            _same(w, ug.ewise_add(vg, getattr(gb.monoid, name)).new())
        _same((u.ewise_add(v, getattr(ld.monoid, name))).new() if name != "any" else w,
              ug.ewise_add(vg, getattr(gb.monoid, name)).new() if name != "any" else None) if name != "any" else None
    for name in ("first", "second", "plus", "times", "min", "max", "pair", "minus", "truediv"):
        if name in ("plus", "minus", "truediv") and not numeric:
            with pytest.raises(ld.DomainMismatch, match="bool"):
                ld.ewise_mult(u, v, name)
            continue
        _same(ld.ewise_mult(u, v, getattr(ld.binary, name)), ug.ewise_mult(vg, getattr(gb.binary, name)).new())
        _same(u.ewise_mult(v, getattr(ld.binary, name)).new(), ug.ewise_mult(vg, getattr(gb.binary, name)).new())
    scalar = 3 if numeric else True
    for name in ("first", "second", "plus", "times", "min", "max", "minus", "truediv"):
        if name in ("plus", "minus", "truediv") and not numeric:
            continue
        op = getattr(ld.binary, name)
        _same(u.apply(op, right=scalar).new(), ug.apply(getattr(gb.binary, name), right=scalar).new())
        _same(u.apply(op, left=scalar).new(), ug.apply(getattr(gb.binary, name), left=scalar).new())
    for name in ("plus", "min", "max", "lor", "land"):
        if name == "plus" and not numeric:
            with pytest.raises(ld.DomainMismatch, match="bool"):
                ld.reduce(u, name)
            continue
        expected = ug.reduce(getattr(gb.monoid, name)).new().value
        assert np.isclose(float(u.reduce(getattr(ld.monoid, name)).value), float(expected), rtol=1e-5)
        assert np.isclose(float(ld.reduce(u, name)), float(expected), rtol=1e-5)


# -- the policy and bad inputs --------------------------------------------------------------------
def test_the_policy_lives_on_the_objects():
    for s in semirings.every():
        assert s.codes == (ADD_CODES[s.add.kind], MULT_CODES[s.multiply.name]), s
    assert ld.monoid.min.identity_of(np.float32) == np.inf and ld.monoid.min.identity_of(np.int32) == 2**31 - 1
    assert ld.monoid.max.identity_of(np.int64) == -2**63 and ld.monoid.max.terminal_of(np.float64) == np.inf
    assert ld.monoid.plus.identity_of(np.float64) == 0 and ld.monoid.land.identity is True
    assert ld.semiring.plus_pair.typed(np.bool_).out_dtype == np.int64
    assert ld.semiring.min_first.typed(np.float32).out_dtype == np.float32
    assert ld.semiring.any_pair.typed(np.float64) is ld.semiring.any_pair      # the searches' stay themselves
    assert ld.semiring.plus_first.for_product(np.int32, vector_left=False).multiply is ld.binary.second
    assert list(ld.semirings) == [ld.semiring.any_pair, ld.semiring.lor_land, ld.semiring.any_secondi,
                                  ld.semiring.min_secondi]      # built ahead; the rest on first use
    assert {np.dtype(d) for d in DTYPES} == set(VALUE_DTYPES)


def test_every_product_the_cpu_runs_has_gpu_kernels():
    """Each typed, oriented semiring a product can run (every semiring the package names, every
    dtype it takes, vxm and mxv) maps to a (multiply, add, value type) of the GPU's kernels:
    the searches' four built ahead, the rest on demand; a value type the kernels lack is
    Unsupported, naming what runs. (No device needed: the codes alone.)"""
    from dataclasses import replace

    from lagraph_dist.core.errors import DomainMismatch as Refused
    from lagraph_dist.local.gpu_kernels import base
    ctypes = {"bool", "int", "long long", "float", "double"}
    seen = set()
    for s in semirings.every():
        for dtype in VALUE_DTYPES:
            for vector_left in (True, False):
                try:
                    typed = s.for_product(dtype, vector_left=vector_left)
                except Refused:
                    continue
                mult, add, ctype = base.KernelsBase._codes(typed)
                assert (add, mult) == typed.codes and ctype in ctypes
                assert ctype == base._CTYPE[np.dtype(typed.out_dtype)]
                seen.add((mult, add, ctype))
    assert set(base._INSTANCES) < seen and len(base._INSTANCES) == 4
    assert len(seen) == 41                     # the four, and 37 built on demand
    ahead = base._ahead()
    on_demand = base._on_demand("pull", "ld_pull_long_rows", (3, 3, "float"))
    assert on_demand == ("ld_pull_rows<3, 3, float>", "ld_pull_long_rows<3, 3, float>")
    assert not set(on_demand) & set(ahead["pull"])
    odd = replace(ld.semiring.plus_first, dtype=np.dtype(np.uint8))
    with pytest.raises(ld.Unsupported, match="float64"):
        base.KernelsBase._codes(odd)


def test_bad_inputs_raise_the_packages_exceptions():
    A = ld.Matrix.from_edges([0, 1], [1, 2], 4, backend="cpu")
    u = ld.Vector.from_indices([0, 1], 4, values=[True, False], backend="cpu")
    with pytest.raises(ld.DomainMismatch, match="plus_cubed"):
        ld.vxm(u, A, "plus_cubed")
    with pytest.raises(ld.DomainMismatch, match="bool"):
        ld.vxm(u, A, ld.semiring.plus_first)                  # graphblas: plus does not work with BOOL
    with pytest.raises(ld.DomainMismatch, match="bool"):
        ld.mxv(A, u, ld.semiring.min_plus)
    small = ld.Vector.from_indices([0], 4, values=np.array([3], np.uint8), backend="cpu", dtype=np.uint8)
    with pytest.raises(ld.DomainMismatch, match="uint8"):
        ld.vxm(small, A, ld.semiring.plus_times)
    with pytest.raises(ld.DomainMismatch, match="positional"):
        ld.ewise_mult(u, u, ld.binary.secondi)
    with pytest.raises(ld.Unsupported, match="positional"):
        u.apply(ld.binary.secondi, right=1)
    with pytest.raises(ld.DomainMismatch, match="bool"):
        ld.apply(u, ld.binary.plus, right=True)
    with pytest.raises(ld.DomainMismatch, match="right"):
        ld.apply(u, ld.binary.plus)


# -- grids ------------------------------------------------------------------------------------------
GRIDS = [(1, 2), (2, 2), (2, 3)]         # 1 x 2 first: its 2 ranks compile the loops, the others wait


@needs_mpi
@pytest.mark.timeout(360)
def test_products_agree_on_grids():
    """Every grid of GRIDS in one start of 6 ranks (each start of the ranks costs seconds on 2
    cores): each grid runs on the first ranks while the others wait; a failure names its grid."""
    shapes = [f"{rows}x{cols}" for rows, cols in GRIDS]
    ranks = max(rows * cols for rows, cols in GRIDS)
    done = run_mpi(ranks, HERE / "mpi" / "check_semirings_values.py", *shapes, timeout=300)
    assert done.returncode == 0, f"grids {shapes}:\n" + done.stdout[-3000:] + done.stderr[-3000:]
    assert sorted(re.findall(r"rank (\d+) ok", done.stdout)) == sorted(str(r) for r in range(ranks)), \
        f"grids {shapes}: not every rank reported ok\n{done.stdout}"
