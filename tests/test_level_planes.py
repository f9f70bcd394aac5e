"""A batch's levels kept as bit planes (lagraph_dist.local.engine.LevelPlanes, what both kernel
sets' fused multi-source runs write on a graph that is not thin): the rows the CPU twin of
ld_level_planes_rows makes from them equal the table they encode, whatever the searches, depths
and slice, and the CPU set's reductions of them equal the table's, computed apart; a DenseRows
of such blocks reads (to_numpy, row, reduce_rows, betweenness's sweeps) as the same DenseRows
of tables does; and blocks in device memory (a stand-in here) are read
through the backend, one search's column alone for row(i). The encoding here is written out bit
by bit, apart from the decoding under test. The CPU's run in planes (and growing them on a deep
graph) gives the levels scipy's hop counts give, read every way."""
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lagraph_dist as ld
from lagraph_dist.algebra import multi
from lagraph_dist.local import cpu_kernels
from lagraph_dist.local.engine import LevelPlanes
from lagraph_dist.local.cpu_kernels import level_planes_rows
from lagraph_dist.local.cpu_kernels import multi_fused as cpu_multi_fused


def encoded(table, depth_planes):
    """The bit planes of a (rows, k) table of levels (-1: unreached), set bit by bit."""
    rows, k = table.shape
    width = max(1, -(-k // 64))
    words = np.zeros((1 + depth_planes, rows, width), dtype=np.uint64)
    for v in range(rows):
        for c in range(k):
            level = int(table[v, c])
            if level < 0:
                continue
            bit = np.uint64(1) << np.uint64(c % 64)
            words[0, v, c // 64] |= bit
            for p in range(depth_planes):
                if level >> p & 1:
                    words[1 + p, v, c // 64] |= bit
    return LevelPlanes(words, k)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 200), st.integers(0, 40), st.integers(0, 6), st.data())
def test_rows_from_planes_equal_the_table(k, rows, depth_planes, data):
    seed = data.draw(st.integers(0, 2**32 - 1))
    table = np.random.default_rng(seed).integers(-1, 1 << depth_planes, size=(rows, k)).astype(np.int32)
    planes = encoded(table, depth_planes)
    assert planes.shape == (rows, k) and planes.depth_planes == depth_planes
    got = level_planes_rows(planes, 0, rows)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, table)
    start = data.draw(st.integers(0, rows))
    stop = data.draw(st.integers(start, rows))
    np.testing.assert_array_equal(level_planes_rows(planes, start, stop), table[start:stop])


def test_a_row_of_every_search_width():
    """Up to 512 searches (8 words a vertex), every column's bit in its own word."""
    table = np.random.default_rng(5).integers(-1, 8, size=(70, 512)).astype(np.int32)
    np.testing.assert_array_equal(cpu_kernels.level_planes_rows(encoded(table, 3), 0, 70), table)


def table_reductions(table, kinds):
    """Each kind's reduction of each column's entries (>= 0) of a (rows, k) table and the
    entries' count, column by column in Python: the identity where a column has none."""
    identity = {"plus": 0, "min": np.iinfo(np.int64).max, "max": np.iinfo(np.int64).min}
    fold = {"plus": sum, "min": min, "max": max}
    out = []
    for kind in kinds:
        out.append([fold[kind](int(x) for x in column if x >= 0) if (column >= 0).any() else identity[kind]
                    for column in table.T])
    out.append([int((column >= 0).sum()) for column in table.T])
    return np.array(out, dtype=np.int64).reshape(len(kinds) + 1, table.shape[1])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 200), st.integers(0, 40), st.integers(0, 6), st.data())
def test_planes_reduced_without_their_table(k, rows, depth_planes, data):
    """The CPU set's level_planes_reduced gives the table's reductions for every slice and
    choice of kinds, and ignores depth bits left where a search did not reach (the kernel
    writes depths only where it reached; the words it is given may hold anything there)."""
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    table = rng.integers(-1, 1 << depth_planes, size=(rows, k)).astype(np.int32)
    planes = encoded(table, depth_planes)
    unreached = ~planes.words[0]
    planes.words[1:] |= rng.integers(0, 2**63, size=planes.words[1:].shape, dtype=np.uint64) & unreached
    kinds = tuple(data.draw(st.lists(st.sampled_from(["plus", "min", "max"]), max_size=3)))
    start = data.draw(st.integers(0, rows))
    stop = data.draw(st.integers(start, rows))
    got = cpu_kernels.level_planes_reduced(planes, start, stop, kinds)
    assert got.dtype == np.int64 and got.shape == (len(kinds) + 1, k)
    np.testing.assert_array_equal(got, table_reductions(table[start:stop], kinds))


def test_planes_reduced_in_shares_of_rows():
    """Rows enough to be cut into one share a thread, each share taking blocks of rows in turn
    from a slice that starts inside the first block and ends inside the last: the shares' sums,
    minima and maxima combine to the slice's, over 512 searches."""
    table = np.random.default_rng(9).integers(-1, 8, size=(9000, 512)).astype(np.int32)
    table[:, 7] = -1                        # a search that reached nothing
    table[6000:, :] = -1                    # rows none reached, together at the end (a degree twin's)
    got = cpu_kernels.level_planes_reduced(encoded(table, 3), 100, 9000, ("max", "plus", "min"))
    table = table[100:]
    identity = np.iinfo(np.int64)
    entries = np.ma.masked_less(table.astype(np.int64), 0)
    want = [entries.max(axis=0).filled(identity.min), entries.sum(axis=0, dtype=np.int64).filled(0),
            entries.min(axis=0).filled(identity.max), (table >= 0).sum(axis=0)]
    np.testing.assert_array_equal(got, np.array(want, dtype=np.int64))
    assert got[0, 7] == identity.min and got[1, 7] == 0 and got[2, 7] == identity.max and got[3, 7] == 0


def test_planes_reduced_by_an_unknown_kind_is_refused():
    planes = encoded(np.zeros((2, 3), np.int32), 1)
    with pytest.raises(ValueError, match="reduces by plus, min, max, not 'times'"):
        cpu_kernels.level_planes_reduced(planes, 0, 2, ("plus", "times"))


def as_planes(rows, depth_planes=None):
    """The DenseRows ``rows`` with each table block encoded as bit planes."""
    blocks = []
    for block in rows.blocks:
        planes = depth_planes if depth_planes is not None else int(block.max() + 1).bit_length()
        blocks.append(encoded(block, planes))
    return multi.DenseRows(rows.n, rows.grid, rows.backend, blocks)


@pytest.fixture(scope="module")
def searched():
    """A Kronecker graph's batches with their levels as tables (forced: the CPU keeps a graph's
    that is not thin as planes), which the tests encode as planes themselves."""
    A = ld.kronecker(7, seed=3, backend="cpu")
    sources = np.random.default_rng(1).integers(0, A.n, 150)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cpu_multi_fused, "multi_fused_level_planes", False)
        levels = ld.bfs_multi(A, sources, parents=False, batch_size=64).levels
    assert all(isinstance(block, np.ndarray) for block in levels.blocks)
    return A, levels


def test_dense_rows_of_planes_read_as_the_tables(searched):
    A, tables = searched
    planes = as_planes(tables)
    assert [type(b) for b in planes.blocks] == [LevelPlanes] * 3 and planes.shape == tables.shape
    np.testing.assert_array_equal(planes.to_numpy(), tables.to_numpy())
    for i in (0, 63, 64, 149):
        np.testing.assert_array_equal(planes.row(i), tables.row(i))
    for want, got in zip(tables.reduce_rows("max", "plus", "min", nvals=True),
                         planes.reduce_rows("max", "plus", "min", nvals=True)):
        np.testing.assert_array_equal(got, want)
    for table, made in zip(tables.blocks, planes.tables()):
        np.testing.assert_array_equal(made, table)


def test_reductions_of_host_planes_make_no_table(searched, monkeypatch):
    """reduce_rows of planes in host memory reads them through the CPU set's
    level_planes_reduced (no table made); a kernel set without that member makes the table a
    slice at a time: the same reductions."""
    A, tables = searched
    planes = as_planes(tables)
    want = tables.reduce_rows("plus", "max", "min", nvals=True)

    def no_table(*args):
        raise AssertionError("a table was made")
    monkeypatch.setattr(cpu_kernels, "level_planes_rows", no_table)
    for got, expected in zip(planes.reduce_rows("plus", "max", "min", nvals=True), want):
        np.testing.assert_array_equal(got, expected)
    monkeypatch.undo()
    monkeypatch.setattr(multi, "_planes_reduction", lambda block: None)
    for got, expected in zip(planes.reduce_rows("plus", "max", "min", nvals=True), want):
        np.testing.assert_array_equal(got, expected)


def test_more_planes_than_the_depths_take_read_the_same(searched):
    A, tables = searched
    np.testing.assert_array_equal(as_planes(tables, depth_planes=7).to_numpy(), tables.to_numpy())


def test_betweenness_sweeps_read_planes_as_tables(searched):
    A, tables = searched
    want, reached = multi.path_dependencies(A, tables)
    got, got_reached = multi.path_dependencies(A, as_planes(tables))
    np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())
    np.testing.assert_array_equal(got_reached, reached)


def test_a_row_reads_only_its_column(searched, monkeypatch):
    """DenseRows.row(i) reads search i's column alone: of a table, or of each plane the one
    word holding its bit, never the whole block made into rows."""
    A, tables = searched
    planes = as_planes(tables)
    monkeypatch.setattr(multi, "host_table", lambda *args: pytest.fail("row(i) made the whole block's rows"))
    for i in (0, 1, 63, 64, 100, 149):
        np.testing.assert_array_equal(planes.row(i), tables.row(i))
        np.testing.assert_array_equal(tables.row(i), hop_rows(A, tables, i))
    with pytest.raises(IndexError):
        planes.row(150)


def hop_rows(A, tables, i):
    """Search i's levels by scipy from its source, found as the vertex at level 0 of its row."""
    from extras_checks import hop_levels
    source = int(np.flatnonzero(np.concatenate([t for t in tables.blocks], axis=1)[:, i] == 0)[0])
    return hop_levels(A.to_scipy(), [source])[0]


class StandInDevice:
    """A device array's stand-in (not numpy: the blocks holding it count as in device memory),
    sliced as one is; the stand-in backend below reads it to the host, counting the elements."""

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return StandInDevice(self.array[index])

    @property
    def shape(self):
        return self.array.shape


def stand_in_backend(read):
    def to_host(array, out=None):
        if isinstance(array, np.ndarray):        # (a gather's host arrays)
            return array
        read.append(array.array.size)
        if out is None:
            return np.array(array.array)
        out[...] = array.array
        return out

    def rows(planes, start, stop):               # (the device's kernel: the twin, on the stand-in's words)
        return StandInDevice(cpu_kernels.level_planes_rows(LevelPlanes(planes.words.array, planes.k), start, stop))
    return SimpleNamespace(name="gpu", to_host=to_host, kernels=SimpleNamespace(level_planes_rows=rows))


def test_blocks_in_device_memory_are_read_through_the_backend(searched):
    """Blocks held on a device (here a stand-in): to_numpy makes the rows with the backend's
    kernel and copies them out; row(i) copies one word of each plane, or a table's column."""
    A, tables = searched
    read = []
    backend = stand_in_backend(read)
    planes = multi.DenseRows(tables.n, tables.grid, backend,
                             [LevelPlanes(StandInDevice(encoded(b, 4).words), b.shape[1]) for b in tables.blocks])
    on_device = multi.DenseRows(tables.n, tables.grid, backend, [StandInDevice(b) for b in tables.blocks])
    np.testing.assert_array_equal(planes.to_numpy(), tables.to_numpy())
    np.testing.assert_array_equal(on_device.to_numpy(), tables.to_numpy())
    rows = tables.n
    for i in (0, 64, 149):
        read.clear()
        np.testing.assert_array_equal(planes.row(i), tables.row(i))
        assert read == [5 * rows]                # (the reached plane and four depth planes, one word a row)
        read.clear()
        np.testing.assert_array_equal(on_device.row(i), tables.row(i))
        assert read == [rows]


# -- the CPU's own runs in planes -------------------------------------------------------------------
def test_cpu_batches_keep_a_dense_graphs_levels_as_planes(searched, monkeypatch):
    """By the graph, the CPU's batches on a graph that is not thin keep their levels as planes,
    read (to_numpy, row, reduce_rows, betweenness's sweeps) as the tables of the same searches;
    forced either way; a bad setting refused."""
    A, tables = searched
    sources = np.random.default_rng(1).integers(0, A.n, 150)
    monkeypatch.setattr(cpu_multi_fused, "multi_fused_level_planes", None)
    planes = ld.bfs_multi(A, sources, parents=False, batch_size=64).levels
    assert [type(b) for b in planes.blocks] == [LevelPlanes] * 3
    np.testing.assert_array_equal(planes.to_numpy(), tables.to_numpy())
    for i in (0, 64, 149):
        np.testing.assert_array_equal(planes.row(i), hop_rows(A, tables, i))
    for want, got in zip(tables.reduce_rows("max", "plus", nvals=True), planes.reduce_rows("max", "plus", nvals=True)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(multi.path_dependencies(A, planes)[0].to_numpy(),
                                  multi.path_dependencies(A, tables)[0].to_numpy())
    with_parents = ld.bfs_multi(A, sources[:64], parents=True)
    assert isinstance(with_parents.levels.blocks[0], LevelPlanes)
    np.testing.assert_array_equal(with_parents.levels.to_numpy(), tables.to_numpy()[:64])
    for i in (0, 63):
        ld.validate(A, int(sources[i]), levels=with_parents.levels.row(i), parents=with_parents.parents.row(i))
    monkeypatch.setattr(cpu_multi_fused, "multi_fused_level_planes", "yes")
    with pytest.raises(ValueError, match="multi_fused_level_planes"):
        ld.bfs_multi(A, sources[:4])


def test_cpu_planes_grow_with_a_deep_batch(monkeypatch):
    """Forced into planes on a path (searches run together), a batch makes more depth planes as
    its depth needs them: every depth limit's levels are scipy's, and as many planes as the
    depths take; searches run one at a time (the mesh's choice) write a table."""
    from extras_checks import hop_levels
    n = 700
    A = ld.Matrix.from_edges(np.arange(n - 1), np.arange(1, n), n, symmetrize=True, backend="cpu")
    sources = np.array([0, 350, n - 1, 0, 3])
    expected = hop_levels(A.to_scipy(), sources)
    monkeypatch.setattr(cpu_multi_fused, "multi_fused_level_planes", True)
    with ld.settings.changed(multi_searches="together"):
        for limit in (None, 1, 7, 8, 300):
            levels = ld.bfs_multi(A, sources, parents=False, depth_limit=limit).levels
            want = expected if limit is None else np.where(expected > limit, -1, expected)
            np.testing.assert_array_equal(levels.to_numpy(), want)
            block = levels.blocks[0]
            assert isinstance(block, LevelPlanes) and block.depth_planes == int(want.max()).bit_length()
    with ld.settings.changed(multi_searches="separate"):
        levels = ld.bfs_multi(A, sources, parents=False).levels
        assert isinstance(levels.blocks[0], np.ndarray)
        np.testing.assert_array_equal(levels.to_numpy(), expected)
