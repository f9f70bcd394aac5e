"""The GPU backend's local kernels: our CUDA sources in ``kernels/`` driven through CuPy.

Sources are read with ``importlib.resources`` and built with ``cupy.RawModule`` (templates
instantiated through ``name_expressions``), memoised per device. Every function here has a
numpy twin of the same name and contract in :mod:`lagraph_dist.local.cpu_kernels`; the GPU tests
compare them. Products return their output part and their counters on the device; nothing
here reads the device except where a docstring says so.
"""
from __future__ import annotations

import functools
from importlib import resources

import numpy as np

from lagraph_dist.local import wire
from lagraph_dist.local.layout import (ADD_ANY, ADD_CODES, ADD_LOR, ADD_MIN, FUSED_GIANT_DEGREE, FUSED_NSLOTS,
                                        FUSED_NSTATUS, FUSED_RECORD, FUSED_THREADS, LONG_ROW_THRESHOLD, M_NCOUNTERS,
                                        MULT_CODES, MULT_LAND, MULT_PAIR, MULT_SECONDI, NCOUNTERS, PUSH_THREADS,
                                        SMALL_SCAN, THREADS, TILE_EDGES, cuda_defines)
from lagraph_dist.local.parts import LocalPart

__all__ = ["GpuKernels", "kernel_sources"]

# launch shapes, codes and layouts shared with the CUDA sources: lagraph_dist.local.layout
FUSED_LEVEL_CLOCK = "device %globaltimer"   # what times each fused level (kernels/fused.cu)
FUSED_RECORDS_READ = 64      # level records read with the status (deeper runs read again)
FUSED_THIN_DEGREE = 8        # average degree under which the fused grid takes one block an SM

_MULT = MULT_CODES
_ADD = ADD_CODES
_CTYPE = {np.dtype(bool): "bool", np.dtype(np.int64): "long long"}
# the (multiply, add, value type) combinations of the package's semirings
_INSTANCES = [(MULT_PAIR, ADD_ANY, "bool"), (MULT_LAND, ADD_LOR, "bool"), (MULT_SECONDI, ADD_ANY, "long long"),
              (MULT_SECONDI, ADD_MIN, "long long")]
_VALUE_TYPES = ("bool", "long long")


def kernel_sources():
    """{file name: source text} of every CUDA source shipped in lagraph_dist.kernels."""
    folder = resources.files("lagraph_dist.kernels")
    return {entry.name: entry.read_text() for entry in folder.iterdir()
            if entry.name.endswith((".cu", ".cuh"))}


def _level_records(rows, started_ns):
    """The twin's per-level tuples from the kernel's rows (frontier, discovered, examined, push,
    %globaltimer at the level's end): a level's seconds are its end less the previous end."""
    ends = rows[:, 4].astype(np.int64)
    seconds = np.diff(ends, prepend=np.int64(started_ns)) * 1e-9
    return [(int(f), int(d), int(e), int(p), float(t)) for (f, d, e, p, _), t in zip(rows.tolist(), seconds)]


def _template(name, *args):
    return f"{name}<{', '.join(str(a) for a in args)}>"


@functools.lru_cache(maxsize=None)
def _modules(device_id):
    """The compiled modules for one device (memoised per device, as CuPy's own kernels are)."""
    import cupy
    folder = resources.files("lagraph_dist.kernels")
    with resources.as_file(folder) as path:
        options = ("-std=c++17", f"-I{path}") + cuda_defines()
        sources = kernel_sources()
        names = {
            "bitmap": [_template("ld_assign_from_list", v) for v in _VALUE_TYPES],
            "push": [_template("ld_push_spmspv", *i) for i in _INSTANCES],
            "pull": [_template(k, *i) for i in _INSTANCES for k in ("ld_pull_rows", "ld_pull_long_rows")],
            "fold": [_template("ld_fold_pack", v) for v in _VALUE_TYPES]
                    + [_template("ld_fold_merge", add, v) for _, add, v in _INSTANCES],
            "fused": [_template("ld_bfs_fused", 0, "bool"), _template("ld_bfs_fused", 2, "long long")],
            "multi": [_template(k, p) for k in ("ld_multi_push", "ld_multi_pull", "ld_multi_merge")
                      for p in ("false", "true")],
        }
        modules = {}
        with cupy.cuda.Device(device_id):
            for name, expressions in names.items():
                modules[name] = cupy.RawModule(code=sources[f"{name}.cu"], options=options,
                                               name_expressions=expressions,
                                               enable_cooperative_groups=name == "fused")
                modules[name].compile()
    return modules


class _Counted:
    """A kernel whose every launch adds one to its owner's ``launches``; its attributes
    (registers, shared memory) are the kernel's."""

    def __init__(self, function, owner):
        self._function, self._owner = function, owner

    def __call__(self, *args, **kwargs):
        self._owner.launches += 1
        return self._function(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._function, name)


class GpuKernels:
    """CUDA kernels with the numpy twins' signatures (see :mod:`lagraph_dist.local.cpu_kernels`)."""

    def __init__(self):
        import cupy
        self.cp = cupy
        self._pool = cupy.get_default_memory_pool()
        props = self._props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)   # slow: once
        self._sms = int(props["multiProcessorCount"])
        self._dummy_words = cupy.zeros(2, cupy.uint32)
        self.reads = 0          # device-to-host reads made through read()
        self.launches = 0       # launches of our kernels (functions got through _function)
        # blocks a multiprocessor of the fused search (None: the policy of _fused_grid; fewer
        # make its grid barrier cheaper, more hide the latency of big levels)
        self.fused_blocks_per_sm = None

    FUSED_LEVEL_CLOCK = FUSED_LEVEL_CLOCK     # as the numpy twin's module names it

    def read(self, array):
        """The one way this backend copies device data to the host (counted)."""
        self.reads += 1
        return self.cp.asnumpy(array)

    # -- bookkeeping ----------------------------------------------------------------------
    def _function(self, module, name, *template_args):
        """The kernel, wrapped to count its launches."""
        name = _template(name, *template_args) if template_args else name
        function = _modules(self.cp.cuda.Device().id)[module].get_function(name)
        return _Counted(function, self)

    def _blocks(self, work_items, per_thread=1, cap_per_sm=32, threads=THREADS):
        wanted = -(-max(int(work_items), 1) // (threads * per_thread))
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

    def new_counters(self):
        return self.cp.zeros(NCOUNTERS, dtype=self.cp.uint64)

    # -- bitmaps ----------------------------------------------------------------------------
    def bitmap_from_list(self, ids, length, words=None):
        cp = self.cp
        if words is None:
            words = cp.zeros(length // 32, dtype=cp.uint32)
        count = ids.shape[0]
        if count:
            self._function("bitmap", "ld_bitmap_from_list")(
                (self._blocks(count),), (THREADS,), (ids.astype(cp.int32, copy=False), np.int64(count), words))
        return words

    def list_from_bitmap(self, words, count=None):
        cp = self.cp
        nwords = words.shape[0]
        counts = cp.empty(nwords, dtype=cp.int32)
        self._function("bitmap", "ld_popcount_words")((self._blocks(nwords),), (THREADS,),
                                                      (words, np.int64(nwords), counts))
        inclusive = cp.cumsum(counts, dtype=cp.int64)
        if count is None:
            count = int(self.read(inclusive[-1:])[0]) if nwords else 0
        ids = cp.empty(count, dtype=cp.int32)
        if count:
            self._function("bitmap", "ld_list_from_bitmap")(
                (self._blocks(nwords * 32),), (THREADS,), (words, np.int64(nwords), inclusive - counts, ids))
        return ids

    def popcount(self, words):
        """Set bits of ``words`` (reads one number back)."""
        cp = self.cp
        total = cp.zeros(1, dtype=cp.uint64)
        nwords = words.shape[0]
        self._function("bitmap", "ld_count_bits")((self._blocks(nwords),), (THREADS,),
                                                  (words, np.int64(nwords), total))
        return int(self.read(total)[0])

    def bitmap_test(self, words, ids):
        cp = self.cp
        out = cp.empty(ids.shape[0], dtype=cp.bool_)
        if ids.shape[0]:
            self._function("bitmap", "ld_bitmap_test")(
                (self._blocks(ids.shape[0]),), (THREADS,),
                (words, ids.astype(cp.int32, copy=False), np.int64(ids.shape[0]), out))
        return out

    def assign_from_list(self, ids, words, values, *, src_dense=None, src_compact=None, scalar=None):
        """In place: set the bits of ``ids`` and write their values (one launch)."""
        count = int(ids.shape[0])
        if not count:
            return
        dtype = values.dtype
        mode = 2 if scalar is not None else 1 if src_compact is not None else 0
        src = src_dense if mode == 0 else src_compact
        src = values if src is None else src.astype(dtype, copy=False)
        self._function("bitmap", "ld_assign_from_list", _CTYPE[np.dtype(dtype)])(
            (self._blocks(count),), (THREADS,),
            (ids.astype(self.cp.int32, copy=False), np.int64(count), src, src, dtype.type(scalar or 0),
             np.int32(mode), words, values))

    # -- products ---------------------------------------------------------------------------
    def _output(self, semiring, length, queue_capacity):
        """Zeroed output bitmap and counters (one memset), values at the monoid's identity where
        the kernel needs one, and the output queue."""
        cp = self.cp
        scratch = cp.zeros(2 * NCOUNTERS + length // 32, dtype=cp.uint32)
        counters, words = scratch[:2 * NCOUNTERS].view(cp.uint64), scratch[2 * NCOUNTERS:]
        dtype = semiring.out_dtype
        kind = semiring.add.kind
        if kind == "min":
            values = cp.full(length, semiring.add.identity, dtype=dtype)
        elif kind == "lor":
            values = cp.zeros(length, dtype=dtype)
        else:                       # any: the first claimant writes, nothing to initialise
            values = cp.empty(length, dtype=dtype)
        queue = cp.empty(max(min(int(queue_capacity), length), 1), dtype=cp.int32)
        part = LocalPart("bitmap", length, None, values, words=words, ids=queue, ids_sorted=False)
        return part, counters

    def _mask(self, mask_words, complement):
        if mask_words is None:
            return self._dummy_words, np.int32(0)
        return mask_words, np.int32(2 if complement else 1)

    @staticmethod
    def _codes(semiring):
        return _MULT[semiring.multiply.name], _ADD[semiring.add.kind], _CTYPE[np.dtype(semiring.out_dtype)]

    @staticmethod
    def _idmap(in_map):
        return (np.int64(in_map.block_len), np.int64(in_map.stride), np.int64(in_map.offset))

    @staticmethod
    def _or_null(array):
        """The array, or a null pointer for an optional kernel argument."""
        return array if array is not None else np.intp(0)

    def _frontier_scan(self, csr, frontier):
        cp = self.cp
        nf = int(frontier.shape[0])
        if nf <= SMALL_SCAN:
            scan = cp.empty(nf + 1, dtype=cp.int64)
            self._function("push", "ld_frontier_scan_small")((1,), (SMALL_SCAN,),
                                                             (csr.indptr, frontier, np.int32(nf), scan))
            return scan
        scan = cp.zeros(nf + 1, dtype=cp.int64)
        self._function("push", "ld_frontier_degrees")((self._blocks(nf),), (THREADS,),
                                                      (csr.indptr, frontier, np.int64(nf), scan[1:]))
        cp.cumsum(scan[1:], out=scan[1:])
        return scan

    def push_spmspv(self, csr, frontier_ids, frontier_values, semiring, mask_words, complement, in_map,
                    *, out_degree=None, frontier_edges=None):
        cp = self.cp
        nf = int(frontier_ids.shape[0])
        bound = csr.nminor if frontier_edges is None else frontier_edges
        part, counters = self._output(semiring, csr.nminor, bound)
        if nf == 0:
            return part, counters
        frontier = frontier_ids.astype(cp.int32, copy=False)
        scan = self._frontier_scan(csr, frontier)
        # a block walks a contiguous run of tiles: as many blocks as stay resident, fewer for a
        # small frontier (the total, when the caller knows it, is an upper bound)
        resident = self._sms * 8
        blocks = resident if frontier_edges is None else max(1, min(-(-int(frontier_edges) // TILE_EDGES), resident))
        mask, mode = self._mask(mask_words, complement)
        left = frontier_values if frontier_values is not None else part.values[:1]
        self._function("push", "ld_push_spmspv", *self._codes(semiring))(
            (blocks,), (PUSH_THREADS,),
            (csr.indptr, csr.indices, frontier, left, scan, np.int32(nf), mask, mode, part.words, part.values,
             part.ids, counters, self._or_null(out_degree)) + self._idmap(in_map))
        return part, counters

    def pull_spmv(self, csr, frontier_words, frontier_values, semiring, mask_words, complement, in_map,
                  *, out_degree=None):
        cp = self.cp
        nrows = csr.nmajor
        part, counters = self._output(semiring, nrows, nrows)
        long_rows = cp.empty(max(nrows, 1), dtype=cp.int32)     # at most every row: no count to read
        mask, mode = self._mask(mask_words, complement)
        left = frontier_values if frontier_values is not None else part.values[:1]
        degrees = self._or_null(out_degree)
        codes = self._codes(semiring)
        self._function("pull", "ld_pull_rows", *codes)(
            (self._blocks(nrows, cap_per_sm=16),), (THREADS,),
            (csr.indptr, csr.indices, np.int64(nrows), frontier_words, left, mask, mode, part.words,
             part.values, part.ids, long_rows, np.int64(LONG_ROW_THRESHOLD), counters, degrees)
            + self._idmap(in_map))
        self._function("pull", "ld_pull_long_rows", *codes)(
            (self._sms * 4,), (THREADS,),
            (csr.indptr, csr.indices, long_rows, frontier_words, left, part.words, part.values, part.ids,
             counters, degrees) + self._idmap(in_map))
        return part, counters

    # -- the fold (kernels/fold.cu) -------------------------------------------------------
    def fold_count(self, part, counters, block_len, nowners):
        cp = self.cp
        counts = cp.zeros(nowners, dtype=cp.int64)
        self._function("fold", "ld_fold_count")(
            (self._blocks(part.ids.shape[0]),), (THREADS,),
            (part.ids, counters, np.int64(block_len), np.int32(nowners), counts))
        return counts

    def fold_pack(self, part, counters, vw, block_len, nowners, cap, threshold, counts=None):
        cp = self.cp
        if cap > 0:
            send = cp.empty(nowners * wire.fixed_piece_words(cap, vw), dtype=cp.uint32)
            send.reshape(nowners, -1)[:, 0] = 0          # the count words are the cursors
            cursors, device_counts = self._dummy_words, self._dummy_words
        else:
            send = cp.empty(wire.counted_words(counts.host, block_len, vw), dtype=cp.uint32)
            cursors, device_counts = cp.zeros(nowners, dtype=cp.uint32), counts.device
        self._function("fold", "ld_fold_pack", _CTYPE[np.dtype(part.values.dtype)])(
            (self._blocks(part.ids.shape[0]),), (THREADS,),
            (part.ids, counters, part.words, part.values, np.int64(block_len), np.int32(nowners), np.int32(vw),
             np.int64(cap), np.int64(threshold), device_counts, cursors, send))
        return send

    def fold_merge(self, recv, nowners, block_len, vw, cap, threshold, counts, semiring, mask_words, complement,
                   *, out_degree=None):
        if cap > 0:
            device_counts, capacity, per_piece = self._dummy_words, nowners * cap, cap
        else:
            device_counts = counts.device
            capacity, per_piece = int(counts.host.sum()), max(int(counts.host.max()), 1)
        part, merged = self._output(semiring, block_len, capacity)
        mask, mode = self._mask(mask_words, complement)
        blocks_per_piece = self._blocks(max(per_piece, 1), cap_per_sm=8)
        self._function("fold", "ld_fold_merge", *self._codes(semiring)[1:])(
            (blocks_per_piece, nowners), (THREADS,),
            (recv, np.int32(nowners), np.int64(block_len), np.int32(vw), np.int64(cap), np.int64(threshold),
             device_counts, mask, mode, part.words, part.values, part.ids, merged,
             self._or_null(out_degree)))
        return part, merged

    # -- the fused search (kernels/fused.cu) ------------------------------------------------
    def fused_workspace(self, n, nnz):
        """Buffers of the fused search over an n-vertex graph, made once per matrix (the caller
        keeps them): three frontier queues and bitmaps, giant lists, counters and the report."""
        cp = self.cp
        nwords = -(-n // 32)
        giants = min(n, nnz // FUSED_GIANT_DEGREE + 1)
        return {"queues": cp.empty(3 * max(n, 1), dtype=cp.int32), "bitmaps": cp.empty(3 * max(nwords, 1), dtype=cp.uint32),
                "giants": cp.empty(3 * giants, dtype=cp.int32), "giant_rows": cp.empty(giants, dtype=cp.int32),
                "giant_capacity": giants, "slots": cp.empty(FUSED_NSLOTS, dtype=cp.uint64), "reports": {}, "n": n}

    def _fused_grid(self, function, n, nnz):
        """Blocks of a cooperative launch: as many as fit on the device at once (registers,
        threads and shared memory per multiprocessor, as the occupancy calculator counts), or
        one a multiprocessor on graphs of low average degree, whose thin frontiers make the
        grid barrier the cost of a level (benchmarks/fused_blocks.py: 23 against 32 ms on the
        1000 x 1000 mesh, while Kronecker graphs gain from the second block)."""
        props = self._props
        regs = -(-max(function.num_regs, 1) // 8) * 8
        by_regs = int(props["regsPerMultiprocessor"]) // (regs * FUSED_THREADS)
        by_threads = int(props["maxThreadsPerMultiProcessor"]) // FUSED_THREADS
        by_shared = int(props["sharedMemPerMultiprocessor"]) // max(function.shared_size_bytes + 1024, 1)
        fit = max(1, min(by_regs, by_threads, by_shared, int(props["maxBlocksPerMultiProcessor"])))
        wanted = self.fused_blocks_per_sm or (1 if nnz < FUSED_THIN_DEGREE * n else fit)
        return self._sms * min(fit, wanted)

    def bfs_fused(self, out_csr, in_csr, words, parents, depth_words, depths, first_depth, frontier_ids, positional,
                  rule, max_frontier, max_edges, max_levels, target, workspace=None):
        """Runs the fused search once and reads its status and first per-level records back in
        one copy (a second copy only past FUSED_RECORDS_READ levels). Updates ``rule``'s state.
        Returns the twin's tuple (records, frontier ids (a copy), frontier out-edges, stop
        reason); each level's seconds come from the kernel's %globaltimer readings."""
        cp = self.cp
        n = out_csr.nmajor
        space = workspace or self.fused_workspace(n, int(out_csr.indices.shape[0]))
        if space["n"] != n:      # the kernel indexes its slots by n: a smaller workspace is overrun
            raise ValueError(f"fused workspace made for {space['n']} vertices, used for {n}")
        report = space["reports"].get(max_levels)
        if report is None:
            report = space["reports"][max_levels] = cp.empty(FUSED_NSTATUS + FUSED_RECORD * max_levels, dtype=cp.int64)
        status, records = report[:FUSED_NSTATUS], report[FUSED_NSTATUS:].view(cp.uint64)
        mult, ctype = (2, "long long") if positional else (0, "bool")
        function = self._function("fused", "ld_bfs_fused", mult, ctype)
        frontier = frontier_ids.astype(cp.int32, copy=False)
        function((self._fused_grid(function, n, int(out_csr.indices.shape[0])),), (FUSED_THREADS,),
                 (out_csr.indptr, out_csr.indices, in_csr.indptr, in_csr.indices, np.int64(n), words, parents,
                  self._or_null(depths), self._or_null(depth_words), np.int64(first_depth), frontier,
                  np.int64(frontier.shape[0]), space["queues"], space["bitmaps"], space["giants"],
                  space["giant_rows"], np.int64(space["giant_capacity"]), space["slots"],
                  np.int32(rule.code), np.float64(rule.alpha), np.float64(rule.beta), np.int64(rule.push),
                  np.int64(rule.previous), np.int64(rule.unexplored), np.int64(max_frontier), np.int64(max_edges),
                  np.int64(max_levels), np.int32(target), records, status))   # cooperative: the module's flag
        head = self.read(report[:FUSED_NSTATUS + FUSED_RECORD * min(max_levels, FUSED_RECORDS_READ)])   # the one read
        levels, slot, count, edges, reason, push, previous, unexplored, started = (int(x) for x in head[:FUSED_NSTATUS])
        rule.push, rule.previous, rule.unexplored = bool(push), previous, unexplored
        flat = head[FUSED_NSTATUS:].view(np.uint64)
        if levels > FUSED_RECORDS_READ:
            flat = self.read(records[:FUSED_RECORD * levels])
        records = _level_records(flat.reshape(-1, FUSED_RECORD)[:levels], started)
        ids = space["queues"][slot * n:slot * n + count].copy()
        return records, ids, edges, reason

    # -- multi-source search (kernels/multi.cu) ----------------------------------------------
    def multi_new_counters(self):
        return self.cp.zeros(M_NCOUNTERS, dtype=self.cp.uint64)

    def _multi_target(self, target):
        """The kernels' trailing arguments for a MultiTarget (cpu_kernels.MultiTarget)."""
        return (target.words, target.next, target.queue, self._or_null(target.parents),
                self._or_null(target.levels), np.int32(target.width), np.int64(target.depth),
                np.uint64(target.full), self._or_null(target.out_degree), target.counters)

    @staticmethod
    def _with_parents(target):
        return "true" if target.parents is not None else "false"

    def multi_push(self, csr, frontier_ids, frontier_words, in_map, target):
        nf = int(frontier_ids.shape[0])
        if nf == 0:
            return target.counters
        frontier = frontier_ids.astype(self.cp.int32, copy=False)
        scan = self._frontier_scan(csr, frontier)
        self._function("multi", "ld_multi_push", self._with_parents(target))(
            (self._sms * 8,), (THREADS,),          # edges past the grid's first pass loop
            (csr.indptr, csr.indices, frontier, np.int32(nf), frontier_words, scan)
            + self._idmap(in_map) + self._multi_target(target))
        return target.counters

    def multi_pull(self, csr, frontier_words, live, in_map, target):
        nrows = csr.nmajor
        if nrows:
            self._function("multi", "ld_multi_pull", self._with_parents(target))(
                (self._blocks(nrows, cap_per_sm=16),), (THREADS,),
                (csr.indptr, csr.indices, np.int64(nrows), frontier_words, np.uint64(live))
                + self._idmap(in_map) + self._multi_target(target))
        return target.counters

    def multi_merge(self, ids, words, offsets, parents, target):
        count = int(ids.shape[0])
        if count:
            self._function("multi", "ld_multi_merge", self._with_parents(target))(
                (self._blocks(count),), (THREADS,),
                (ids, words, self._or_null(offsets), self._or_null(parents), np.int64(count))
                + self._multi_target(target))
        return target.counters

    def multi_popcounts(self, words):
        cp = self.cp
        count = int(words.shape[0])
        out = cp.empty(count, dtype=cp.int64)
        if count:
            self._function("multi", "ld_multi_popcounts")((self._blocks(count),), (THREADS,),
                                                          (words, np.int64(count), out))
        return out

    def multi_nonzero_ids(self, words, count=None):
        """int32 ids of the nonzero words, increasing; reads the count back only when not given."""
        cp = self.cp
        nwords = int(words.shape[0])            # a multiple of 32 (whole blocks)
        occupancy = cp.empty(nwords // 32, dtype=cp.uint32)
        if nwords:
            self._function("multi", "ld_multi_occupancy")((self._blocks(nwords),), (THREADS,),
                                                          (words, np.int64(nwords), occupancy))
        return self.list_from_bitmap(occupancy, count)

    def multi_fold_count(self, queue, counters, words, block_len, nowners):
        cp = self.cp
        out = cp.zeros(2 * nowners, dtype=cp.uint64)
        self._function("multi", "ld_multi_fold_count")(
            (self._blocks(queue.shape[0], cap_per_sm=8),), (THREADS,),
            (queue, counters, words, np.int64(block_len), np.int32(nowners), out))
        return out.view(cp.int64)

    def multi_pack_parents(self, sources, words, offsets, cand_parents, total):
        cp = self.cp
        out = cp.empty(int(total), dtype=cp.int64)
        count = int(sources.shape[0])
        if count:
            self._function("multi", "ld_multi_pack_parents")(
                (self._blocks(count),), (THREADS,),
                (sources.astype(cp.int32, copy=False), words, offsets, np.int64(count), cand_parents,
                 np.int32(cand_parents.shape[1]), out))
        return out
