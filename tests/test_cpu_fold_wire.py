"""The CPU fold's wire: parents as 32-bit words when the graph's ids fit (wire.value_words with
a backend and a vertex count), and the pack's two ways to its owners (a binary search an owner
for increasing ids, a division an entry otherwise), which must give the same buffer."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from lagraph_dist.local import wire
from lagraph_dist.local.cpu_kernels import FOUND, OVERFLOW, bitmap_from_list, fold_count, fold_merge, fold_pack, \
    new_counters
from lagraph_dist.local.parts import LocalPart
from lagraph_dist.semirings import any_pair, any_secondi, lor_land, min_secondi


@pytest.mark.parametrize("semiring, backend, vertices, words", [
    (any_secondi, "cpu", 1 << 20, 1),
    (min_secondi, "cpu", 1 << 32, 1),           # the last id, 2^32 - 1, still fits
    (any_secondi, "cpu", (1 << 32) + 1, 2),
    (any_secondi, "cpu", None, 2),              # ids not known to fit
    (any_secondi, "gpu", 1 << 20, 1),           # kernels/fold.cu narrows them too
    (any_secondi, "gpu", (1 << 32) + 1, 2),
    (any_secondi, None, 1 << 20, 2),
    (any_pair, "cpu", 1 << 20, 0),
    (lor_land, "cpu", 1 << 20, 1),              # booleans are not ids: their own byte, in a word
])
def test_value_words(semiring, backend, vertices, words):
    assert wire.value_words(semiring, backend=backend, vertices=vertices) == words


def test_wire_dtype_narrows_only_what_value_words_narrowed():
    assert wire.wire_dtype(np.int64, 1) == np.uint32
    assert wire.wire_dtype(np.int64, 2) == np.int64
    assert wire.wire_dtype(np.bool_, 1) == np.bool_


def product_output(rng, nowners, block_len, count, n, semiring=any_secondi):
    """A product's output over ``nowners`` blocks holding ``count`` entries (increasing ids, as
    a CPU kernel lists them) valued by ids below ``n`` (the largest among them when there is
    room; True for a pair product)."""
    length = nowners * block_len
    ids = np.sort(rng.choice(length, size=count, replace=False)).astype(np.int32)
    if semiring.out_dtype == bool:
        values = np.ones(length, bool)
    else:
        values = np.full(length, -7, np.int64)          # what no entry owns must not travel
        values[ids] = rng.integers(0, n, count)
        if count:
            values[ids[0]] = n - 1
    part = LocalPart("bitmap", length, None, values, words=bitmap_from_list(ids, length), ids=ids)
    counters = new_counters()
    counters[FOUND] = count
    return part, counters


def unsorted_twin(part):
    """The same part, its ids not declared increasing: the pack's division way."""
    return LocalPart("bitmap", part.length, None, part.values, words=part.words, ids=part.ids, ids_sorted=False)


@settings(max_examples=80, deadline=None)
@given(nowners=st.integers(1, 5), block_words=st.integers(1, 6), fill=st.floats(0, 1),
       semiring=st.sampled_from([any_secondi, min_secondi, any_pair]), narrow=st.booleans(),
       fixed=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_pack_ways_agree_and_the_merge_gets_the_parents_back(nowners, block_words, fill, semiring, narrow, fixed,
                                                             seed):
    rng = np.random.default_rng(seed)
    block_len = 32 * block_words
    n = (1 << 32) if narrow else (1 << 40)
    vw = wire.value_words(semiring, backend="cpu", vertices=n)
    assert vw == (0 if semiring is any_pair else 1 if narrow else 2)
    part, counters = product_output(rng, nowners, block_len, int(fill * nowners * block_len), n, semiring)
    threshold = wire.bitmap_threshold(block_len)
    counts = fold_count(part, counters, block_len, nowners)
    np.testing.assert_array_equal(counts, np.bincount(part.ids // block_len, minlength=nowners))
    np.testing.assert_array_equal(counts, fold_count(unsorted_twin(part), counters, block_len, nowners))
    cap = max(int(counts.max()), 1) if fixed else 0
    pieces = None if fixed else wire.PieceCounts(counts, counts)
    send = fold_pack(part, counters, vw, block_len, nowners, cap, threshold, pieces)
    np.testing.assert_array_equal(send, fold_pack(unsorted_twin(part), counters, vw, block_len, nowners, cap,
                                                  threshold, pieces))
    sizes = ([wire.fixed_piece_words(cap, vw)] * nowners if fixed else
             [wire.counted_piece_words(int(c), block_len, vw, threshold) for c in counts])
    assert send.shape[0] == sum(sizes)
    # every owner merges its piece alone (one member sending): the entries and parents it was sent
    at = 0
    for k in range(nowners):
        piece = send[at:at + sizes[k]]
        at += sizes[k]
        one = np.array([counts[k]], np.int64)
        merged, merged_counters = fold_merge(piece, 1, block_len, vw, cap, threshold,
                                             None if fixed else wire.PieceCounts(one, one), semiring, None, False)
        mine = part.ids[(part.ids >= k * block_len) & (part.ids < (k + 1) * block_len)]
        np.testing.assert_array_equal(merged.ids, mine - k * block_len)
        if vw:
            np.testing.assert_array_equal(merged.values[merged.ids], part.values[mine])
        assert int(merged_counters[OVERFLOW]) == 0


def test_a_wrong_bound_is_reported_by_both_ways():
    rng = np.random.default_rng(3)
    part, counters = product_output(rng, 2, 64, 20, 1 << 20)
    vw = wire.value_words(any_secondi, backend="cpu", vertices=1 << 20)
    for way in (part, unsorted_twin(part)):
        send = fold_pack(way, counters, vw, 64, 2, 3, 2)
        assert (send == fold_pack(part, counters, vw, 64, 2, 3, 2)).all()
        piece = send[:wire.fixed_piece_words(3, vw)]
        merged, merged_counters = fold_merge(piece, 1, 64, vw, 3, 2, None, any_secondi, None, False)
        assert int(merged_counters[OVERFLOW]) == 1 and merged.nvals == 3
