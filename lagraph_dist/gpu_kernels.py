"""The GPU backend's local kernels: our CUDA sources in ``kernels/`` driven through CuPy.

Sources are read with ``importlib.resources`` and built with ``cupy.RawModule`` (templates
instantiated through ``name_expressions``), memoised per device. Every function here has a
numpy twin of the same name in :mod:`lagraph_dist.cpu_kernels`; the GPU tests compare them.
A product reads its two counters (entries found, edges examined) back in one small copy.
"""
from __future__ import annotations

import functools
from importlib import resources

import numpy as np

from lagraph_dist.local import LocalPart

__all__ = ["GpuKernels", "kernel_sources"]

THREADS = 256
LONG_ROW_THRESHOLD = 8       # pull rows longer than this go to the warp-per-row kernel, whose
                             # 32-wide reads coalesce; a lane scanning its own row does not
EDGES_PER_THREAD = 4         # Bisson et al. 2015 measured 4 as best for push

_MULT = {"pair": 0, "land": 1, "secondi": 2}
_ADD = {"any": 0, "min": 1, "lor": 2}
_CTYPE = {np.dtype(bool): "bool", np.dtype(np.int64): "long long"}
# the (multiply, add, value type) combinations of the package's semirings
_INSTANCES = [(0, 0, "bool"), (1, 2, "bool"), (2, 0, "long long"), (2, 1, "long long")]


def kernel_sources():
    """{file name: source text} of every CUDA source shipped in lagraph_dist.kernels."""
    folder = resources.files("lagraph_dist.kernels")
    return {entry.name: entry.read_text() for entry in folder.iterdir()
            if entry.name.endswith((".cu", ".cuh"))}


def _template(name, mult, add, ctype):
    return f"{name}<{mult}, {add}, {ctype}>"


@functools.lru_cache(maxsize=None)
def _modules(device_id):
    """The compiled modules for one device (memoised per device, as CuPy's own kernels are)."""
    import cupy
    folder = resources.files("lagraph_dist.kernels")
    with resources.as_file(folder) as path:
        options = ("-std=c++17", f"-I{path}", f"-DLD_EDGES_PER_THREAD={EDGES_PER_THREAD}")
        sources = kernel_sources()
        push_names = [_template("ld_push_spmspv", *i) for i in _INSTANCES]
        pull_names = [_template(k, *i) for i in _INSTANCES for k in ("ld_pull_rows", "ld_pull_long_rows")]
        with cupy.cuda.Device(device_id):
            bitmap = cupy.RawModule(code=sources["bitmap.cu"], options=options)
            push = cupy.RawModule(code=sources["push.cu"], options=options, name_expressions=push_names)
            pull = cupy.RawModule(code=sources["pull.cu"], options=options, name_expressions=pull_names)
            for module in (bitmap, push, pull):
                module.compile()
    return {"bitmap": bitmap, "push": push, "pull": pull}


class GpuKernels:
    """CUDA kernels with the numpy twins' signatures (see :mod:`lagraph_dist.cpu_kernels`)."""

    def __init__(self):
        import cupy
        self.cp = cupy
        self._pool = cupy.get_default_memory_pool()
        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        self._sms = int(props["multiProcessorCount"])
        self._dummy_words = cupy.zeros(1, cupy.uint32)

    # -- bookkeeping ----------------------------------------------------------------------
    def _module(self, name):
        return _modules(self.cp.cuda.Device().id)[name]

    def _blocks(self, work_items, per_thread=1, cap_per_sm=32):
        wanted = -(-max(int(work_items), 1) // (THREADS * per_thread))
        return max(1, min(wanted, self._sms * cap_per_sm))

    def peak_bytes(self):
        """High-water mark of the CuPy pool: it keeps every block it ever held at once until
        released, so its size is the peak since :meth:`reset_peak` (no per-allocation hook,
        which would cost host time in every level)."""
        return self._pool.total_bytes()

    def reset_peak(self):
        self._pool.free_all_blocks()

    def device_info(self):
        cp = self.cp
        device = cp.cuda.Device()
        props = cp.cuda.runtime.getDeviceProperties(device.id)
        free, total = cp.cuda.runtime.memGetInfo()
        return {"device": props["name"].decode(), "compute_capability": device.compute_capability,
                "device_memory_bytes": int(total), "gpus_visible": cp.cuda.runtime.getDeviceCount(),
                "cupy": cp.__version__, "cuda_runtime": cp.cuda.runtime.runtimeGetVersion()}

    # -- bitmaps ----------------------------------------------------------------------------
    def bitmap_from_list(self, ids, length):
        cp = self.cp
        words = cp.zeros(length // 32, dtype=cp.uint32)
        count = ids.shape[0]
        if count:
            self._module("bitmap").get_function("ld_bitmap_from_list")(
                (self._blocks(count),), (THREADS,), (ids.astype(cp.int32, copy=False), np.int64(count), words))
        return words

    def list_from_bitmap(self, words, count=None):
        cp = self.cp
        nwords = words.shape[0]
        module = self._module("bitmap")
        counts = cp.empty(nwords, dtype=cp.int32)
        module.get_function("ld_popcount_words")((self._blocks(nwords),), (THREADS,), (words, np.int64(nwords), counts))
        inclusive = cp.cumsum(counts, dtype=cp.int64)
        if count is None:
            count = int(inclusive[-1]) if nwords else 0
        ids = cp.empty(count, dtype=cp.int32)
        if count:
            offsets = inclusive - counts
            module.get_function("ld_list_from_bitmap")(
                (self._blocks(nwords * 32),), (THREADS,), (words, np.int64(nwords), offsets, ids))
        return ids

    def popcount(self, words):
        cp = self.cp
        total = cp.zeros(1, dtype=cp.uint64)
        nwords = words.shape[0]
        self._module("bitmap").get_function("ld_count_bits")((self._blocks(nwords),), (THREADS,),
                                                            (words, np.int64(nwords), total))
        return int(total.get()[0])

    def bitmap_test(self, words, ids):
        cp = self.cp
        out = cp.empty(ids.shape[0], dtype=cp.bool_)
        if ids.shape[0]:
            self._module("bitmap").get_function("ld_bitmap_test")(
                (self._blocks(ids.shape[0]),), (THREADS,),
                (words, ids.astype(cp.int32, copy=False), np.int64(ids.shape[0]), out))
        return out

    # -- products ---------------------------------------------------------------------------
    def _output(self, semiring, length):
        """Empty output bitmap, values at the monoid's identity where the kernel needs one."""
        cp = self.cp
        dtype = semiring.out_dtype
        kind = semiring.add.kind
        if kind == "min":
            values = cp.full(length, semiring.add.identity, dtype=dtype)
        elif kind == "lor":
            values = cp.zeros(length, dtype=dtype)
        else:                       # any: the first claimant writes, nothing to initialise
            values = cp.empty(length, dtype=dtype)
        return cp.zeros(length // 32, dtype=cp.uint32), values, cp.zeros(2, dtype=cp.uint64)

    def _mask(self, mask_words, complement):
        if mask_words is None:
            return self._dummy_words, np.int32(0)
        return mask_words, np.int32(2 if complement else 1)

    @staticmethod
    def _codes(semiring):
        return _MULT[semiring.multiply.name], _ADD[semiring.add.kind], _CTYPE[np.dtype(semiring.out_dtype)]

    def _finish(self, words, values, counters, length):
        found, examined = (int(x) for x in counters.get())     # the one small copy
        return LocalPart("bitmap", length, found, values, words=words), examined

    def push_spmspv(self, csr, frontier_ids, frontier_values, semiring, mask_words, complement, in_map):
        cp = self.cp
        words, values, counters = self._output(semiring, csr.nminor)
        nf = int(frontier_ids.shape[0])
        if nf == 0:
            return LocalPart("bitmap", csr.nminor, 0, values, words=words), 0
        frontier = frontier_ids.astype(cp.int32, copy=False)
        scan = cp.zeros(nf + 1, dtype=cp.int64)
        self._module("push").get_function("ld_frontier_degrees")(
            (self._blocks(nf),), (THREADS,), (csr.indptr, frontier, np.int32(nf), scan[1:]))
        cp.cumsum(scan[1:], out=scan[1:])
        mask, mode = self._mask(mask_words, complement)
        left = frontier_values if frontier_values is not None else values[:1]
        kernel = self._module("push").get_function(_template("ld_push_spmspv", *self._codes(semiring)))
        kernel((self._sms * 8,), (THREADS,),
               (csr.indptr, csr.indices, frontier, left, scan, np.int32(nf), mask, mode, words, values,
                counters, np.int64(in_map.block_len), np.int64(in_map.stride), np.int64(in_map.offset)))
        return self._finish(words, values, counters, csr.nminor)

    def _long_row_capacity(self, csr):
        """How many rows the warp-per-row kernel may get (counted once per block)."""
        if getattr(csr, "_long_rows", None) is None:
            csr._long_rows = int(self.cp.count_nonzero(csr.degrees() > LONG_ROW_THRESHOLD))
        return csr._long_rows

    def pull_spmv(self, csr, frontier_words, frontier_values, semiring, mask_words, complement, in_map):
        cp = self.cp
        nrows = csr.nmajor
        words, values, counters = self._output(semiring, nrows)
        long_rows = cp.empty(max(self._long_row_capacity(csr), 1), dtype=cp.int32)
        n_long = cp.zeros(1, dtype=cp.uint32)
        mask, mode = self._mask(mask_words, complement)
        left = frontier_values if frontier_values is not None else values[:1]
        idmap = (np.int64(in_map.block_len), np.int64(in_map.stride), np.int64(in_map.offset))
        codes = self._codes(semiring)
        module = self._module("pull")
        module.get_function(_template("ld_pull_rows", *codes))(
            (self._blocks(nrows, cap_per_sm=16),), (THREADS,),
            (csr.indptr, csr.indices, np.int64(nrows), frontier_words, left, mask, mode, words, values,
             long_rows, n_long, np.int64(LONG_ROW_THRESHOLD), counters) + idmap)
        module.get_function(_template("ld_pull_long_rows", *codes))(
            (self._sms * 4,), (THREADS,),
            (csr.indptr, csr.indices, long_rows, n_long, frontier_words, left, words, values, counters) + idmap)
        return self._finish(words, values, counters, nrows)
