"""What the tests of the CUDA kernels against their CPU twins share: random blocks, masks, and
an output's entries read back with its bitmap and queue checked against each other."""
import numpy as np

from lagraph_dist.local import cpu_kernels as K
from lagraph_dist.local.parts import LocalCSR


def random_csr(rng, nmajor, nminor, density, hub=True):
    dense = rng.random((nmajor, nminor)) < density
    if hub:                                   # one long row/column so the warp paths run
        dense[nmajor // 2, :] = rng.random(nminor) < 0.9
    rows, cols = np.nonzero(dense)
    indptr = np.zeros(nmajor + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=nmajor), out=indptr[1:])
    return LocalCSR(indptr, cols.astype(np.int32), nminor)


def to_gpu(csr, cp):
    return LocalCSR(cp.asarray(csr.indptr), cp.asarray(csr.indices), csr.nminor)


def mask_of(rng, length, kind):
    if kind == "none":
        return None, False
    return K.bitmap_from_list(np.flatnonzero(rng.random(length) < 0.5).astype(np.int32), length), \
        kind == "complement"


def entries(part, counters, backend):
    """{id: value} of a kernel output, after reading its count from the counters; checks that
    the output's bitmap and queue hold the same ids."""
    host_counters = backend.to_host(counters)
    part.set_found(int(host_counters[K.FOUND]))
    ids = backend.to_host(part.ids).astype(np.int64)
    assert len(set(ids.tolist())) == ids.shape[0], "the output queue repeats an id"
    words = backend.to_host(part.words)
    assert sorted(ids.tolist()) == K.list_from_bitmap(words).tolist(), "queue and bitmap disagree"
    values = backend.to_host(part.values)[ids]
    return dict(zip(ids.tolist(), values.tolist())), host_counters


def assign_twins_agree(gpu, ids, words, values, kwargs):
    """assign_from_list of the same ``ids`` into copies of the same bitmap and values (the
    source in ``kwargs``), on the CPU twin and on the GPU: the same words and values after."""
    cp = gpu.xp
    cpu_words, cpu_values = words.copy(), values.copy()
    K.assign_from_list(ids, cpu_words, cpu_values, **kwargs)
    gpu_words, gpu_values = cp.asarray(words), cp.asarray(values)
    gpu.kernels.assign_from_list(cp.asarray(ids), gpu_words, gpu_values,
                                 **{k: (cp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()})
    np.testing.assert_array_equal(cp.asnumpy(gpu_words), cpu_words)
    np.testing.assert_array_equal(cp.asnumpy(gpu_values), cpu_values)
