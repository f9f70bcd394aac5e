"""The Graph500 Kronecker generator written with numpy array operations, from its statement in
lagraph_dist.io.generators: the tests' independent reference for the compiled generators
(kernels/kronecker.cuh, lagraph_dist.local.cpu_kernels.kronecker). Only the hash and the keys
come from the package (they define the graph)."""
import numpy as np

from lagraph_dist.io import generators


def rmat_bits(scale, seed, counter):
    """Unpermuted R-MAT endpoints (uint64) of the edges numbered ``counter``: levels 2m and
    2m + 1 take the high and low 32 bits of hash stream m."""
    src = np.zeros(counter.shape, dtype=np.uint64)
    dst = np.zeros(counter.shape, dtype=np.uint64)
    t_a, t_ab, t_abc = (np.uint64(t) for t in generators._quadrant_thresholds())
    for level in range(scale):
        draw = generators._hash64(np, seed, level // 2, counter)
        draw = draw >> np.uint64(32) if level % 2 == 0 else draw & np.uint64(0xFFFFFFFF)
        row = draw >= t_ab
        col = (draw >= t_a) ^ row ^ (draw >= t_abc)       # the quadrant's index, its low bit
        src |= row.astype(np.uint64) << np.uint64(level)
        dst |= col.astype(np.uint64) << np.uint64(level)
    return src, dst


def permute_vertices(v, scale, keys):
    """The seeded bijection of ``[0, 2**scale)``, elementwise on uint64 ``v``."""
    mask = np.uint64((1 << scale) - 1)
    shift = np.uint64((scale + 1) // 2)
    for add, mul in keys:
        v = (v + np.uint64(add)) & mask
        v = v ^ (v >> shift)
        v = (v * np.uint64(mul)) & mask
    return v ^ (v >> shift)


def kronecker_edges(scale, seed, first, count):
    """int64 (src, dst) of edges ``first .. first + count - 1``."""
    counter = np.arange(first, first + count, dtype=np.uint64)
    src, dst = rmat_bits(scale, seed, counter)
    keys = generators._permutation_keys(seed, scale)
    return (permute_vertices(src, scale, keys).astype(np.int64),
            permute_vertices(dst, scale, keys).astype(np.int64))
