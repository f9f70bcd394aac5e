"""What the drivers of kernels/*.cu share: the sources built with the -D defines of
lagraph_dist.local.layout (memoised per device), launches counted, device reads, block sizing,
the memory pool, and the products' output part, mask and arguments.

The modules are built in two ways. Ahead, from a device's first kernels object on: every source
with the searches' four semirings' instances (:data:`_INSTANCES`), the kernels a BFS runs,
compiling in background threads while the caller goes on (a graph's build, say), a kernel
waiting only for its own module (:func:`_module_ahead`). On demand:
any other (kernel, multiply, add, value type) a product asks for (the valued semirings on
bool, int32, int64, float32 and float64 vectors) is a module of its own, that instance alone,
compiled on its first launch and memoised per device (:func:`_module_on_demand`), so the
searches' build does not grow with the semirings; :meth:`KernelsBase.build_semirings` builds
a set of them at once, in threads."""
from __future__ import annotations

import functools
import hashlib
import os
from concurrent.futures import ThreadPoolExecutor
from importlib import resources

import numpy as np

from lagraph_dist.core.errors import DomainMismatch, Unsupported
from lagraph_dist.core.settings import settings
from lagraph_dist.local.layout import (ADD_CODES, FUSED_BUILDS, MULT_CODES, MULTI_FUSED_SHAPES, NCOUNTERS, SMALL_SCAN,
                                      THREADS, cuda_defines)
from lagraph_dist.local.parts import LocalPart
from lagraph_dist.semirings import VALUE_DTYPES, semirings

_MULT = MULT_CODES           # (the codes' names, for messages: the semirings carry the codes)
_ADD = ADD_CODES
#: the kernels' value type V of each vector dtype (lagraph_dist.semirings.VALUE_DTYPES)
_CTYPE = {np.dtype(bool): "bool", np.dtype(np.int32): "int", np.dtype(np.int64): "long long",
          np.dtype(np.float32): "float", np.dtype(np.float64): "double"}
# the (multiply, add, value type) combinations the modules are built with ahead: the registry's
# semirings built ahead (the searches' four); the others are built on their first use
_INSTANCES = [(*reversed(s.codes), _CTYPE[np.dtype(s.out_dtype)]) for s in semirings]
_VALUE_TYPES = ("bool", "long long")    # the value types of the kernels built ahead

#: kernels of one source built together on demand (a pull launches both)
_TOGETHER = {"pull": ("ld_pull_rows", "ld_pull_long_rows")}
#: reads into a given host array of at least this many bytes go through page-locked stages
#: (KernelsBase._read_staged) of STAGE_BYTES
STAGED_READ_BYTES = 1 << 26
STAGE_BYTES = 1 << 27
#: a null pointer kernel argument (CuPy passes a numpy scalar by value, 8 bytes)
NULL_POINTER = np.uint64(0)


def kernel_sources():
    """{file name: source text} of every CUDA source shipped in lagraph_dist.kernels."""
    folder = resources.files("lagraph_dist.kernels")
    return {entry.name: entry.read_text() for entry in folder.iterdir()
            if entry.name.endswith((".cu", ".cuh"))}


@functools.lru_cache(maxsize=None)
def sources_digest() -> str:
    """A digest of every shipped CUDA source, passed to each build as ``-DLD_SOURCES_DIGEST``:
    CuPy's compile cache is keyed by a module's own text and options, not by the headers it
    includes (most of fused.cu is in its headers), so a changed header builds anew."""
    digest = hashlib.sha256()
    for name, text in sorted(kernel_sources().items()):
        digest.update(name.encode())
        digest.update(text.encode())
    return digest.hexdigest()[:16]


def build_options(path) -> tuple[str, ...]:
    """nvrtc's options for every module: the kernels' folder for their headers, the layout's
    defines, the sources' digest, and ``settings.extra_cuda_defines`` (a probe's build)."""
    return (("-std=c++17", f"-I{path}") + cuda_defines() + (f"-DLD_SOURCES_DIGEST=0x{sources_digest()}",)
            + tuple(settings.extra_cuda_defines))


def _template(name, *args):
    return f"{name}<{', '.join(str(a) for a in args)}>"


@functools.lru_cache(maxsize=None)
def _ahead():
    """{source: the name expressions its module is built with ahead}, in the order they start
    compiling: the generator a graph's build runs and the small sources first (a build may
    wait for them), then the single search, then the multi-source search."""
    return {
        "kronecker": [],
        "components": [],
        "dependencies": [],
        "edge_rules": [],
        "bitmap": [_template("ld_assign_from_list", v) for v in _VALUE_TYPES],
        "push": [_template("ld_push_spmspv", *i) for i in _INSTANCES],
        "pull": [_template(k, *i) for i in _INSTANCES for k in ("ld_pull_rows", "ld_pull_long_rows")],
        "fold": [_template("ld_fold_pack", v) for v in _VALUE_TYPES]
                + [_template("ld_fold_merge", add, v) for _, add, v in _INSTANCES],
        "multi": [_template(k, p) for k in ("ld_multi_push", "ld_multi_pull", "ld_multi_merge")
                  for p in ("false", "true")],
        "fused": [_template("ld_bfs_fused", m, v, blocks) for m, v in ((0, "bool"), (2, "long long"))
                  for blocks in FUSED_BUILDS]
                 + [_template("ld_bfs_fused_clustered", m, v) for m, v in ((0, "bool"), (2, "long long"))],
        "multi_fused": [_template("ld_multi_bfs_fused", w, b, p) for w, p in MULTI_FUSED_SHAPES for b in (1, 2)],
    }


def _build(cupy, source, expressions, path, **kwargs):
    module = cupy.RawModule(code=kernel_sources()[f"{source}.cu"],
                            options=build_options(path),
                            name_expressions=list(expressions), **kwargs)
    module.compile()
    return module


#: the sources built ahead one module an instance: each instance is a big cooperative kernel, and
#: their compiles in one module, one after another, were the long pole of a cold build
_ONE_MODULE_AN_INSTANCE = ("fused", "multi_fused")


def _units():
    """[(source, name expressions)] of the modules built ahead: a source's whole list, or one
    expression a module for :data:`_ONE_MODULE_AN_INSTANCE`."""
    units = []
    for source, expressions in _ahead().items():
        if source in _ONE_MODULE_AN_INSTANCE:
            units += [(source, [expression]) for expression in expressions]
        else:
            units.append((source, expressions))
    return units


@functools.lru_cache(maxsize=None)
def _builds(device_id):
    """{(source, name expression or None): the future of the module built ahead that holds it}
    for one device (memoised per device, as CuPy's own kernels are); None stands for a source's
    kernels without template arguments. Every module is queued at the first call, in
    :func:`_ahead`'s order, on a pool of threads (NVRTC compiles outside the GIL), and the call
    returns at once: on a machine whose CuPy cache is cold the sources one after another took
    60 s before the bench at scale 27's first kernel, most of it fused.cu's instances, and they
    now compile while the graph is built."""
    import cupy

    def build(source, expressions):
        with resources.as_file(resources.files("lagraph_dist.kernels")) as path, cupy.cuda.Device(device_id):
            return _build(cupy, source, expressions, path, enable_cooperative_groups=source == "fused")

    # a core is left to the caller, whose CuPy kernels compile too on a cold cache
    pool = ThreadPoolExecutor(max_workers=max((os.cpu_count() or 1) - 1, 1), thread_name_prefix="lagraph-dist-nvrtc")
    futures = {}
    for source, expressions in _units():
        future = pool.submit(build, source, expressions)
        for expression in expressions:
            futures[(source, expression)] = future
        futures.setdefault((source, None), future)
    pool.shutdown(wait=False)
    return futures


def _module_ahead(device_id, source, expression=None):
    """The module built ahead that holds kernel ``expression`` of ``source`` (None: its kernels
    without template arguments), waiting for its compile if that is still running."""
    return _builds(device_id)[(source, expression)].result()


def modules_ahead(device_id, source):
    """Every module built ahead from ``source`` (several for :data:`_ONE_MODULE_AN_INSTANCE`):
    a traced build's probe sets its globals in each."""
    futures = {id(f): f for (s, _), f in _builds(device_id).items() if s == source}
    return [future.result() for future in futures.values()]


@functools.lru_cache(maxsize=None)
def _module_on_demand(device_id, source, expressions):
    """A module of ``source`` holding one instance's kernels (``expressions``, their template
    names), built on its first use and memoised per device."""
    import cupy
    with resources.as_file(resources.files("lagraph_dist.kernels")) as path, cupy.cuda.Device(device_id):
        return _build(cupy, source, expressions, path)


def _on_demand(source, name, args):
    """The name expressions of the module on demand that holds kernel ``name<args>``."""
    together = _TOGETHER.get(source, ())
    return tuple(_template(k, *args) for k in (together if name in together else (name,)))


def _module_holding(device_id, source, name, args):
    """The module whose kernel ``name`` (with template arguments ``args``) a launch takes: the
    one built ahead when it holds it, else the instance's own, built now if need be."""
    if not args:
        return _module_ahead(device_id, source)
    if _template(name, *args) in _ahead()[source]:
        return _module_ahead(device_id, source, _template(name, *args))
    return _module_on_demand(device_id, source, _on_demand(source, name, args))


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

    @functools.cached_property
    def pointer(self):
        """The driver's handle of the kernel (CUfunction), for launches made as driver calls
        (read once: through ``__getattr__`` it is two lookups a launch)."""
        return self._function.kernel.ptr

    # the launch shape's inputs, fixed once the kernel is loaded: read once (each read through
    # CuPy is a driver call, and the fused drivers size every launch by them)
    @functools.cached_property
    def num_regs(self):
        return self._function.num_regs

    @functools.cached_property
    def shared_size_bytes(self):
        return self._function.shared_size_bytes


def row_bits(cp, flags):
    """A flag a row (bool, device) as uint32 words, row 32 w + b being bit b of word w, the last
    word's bits past the rows set (one word at least): the kernels' per-row bitmaps."""
    rows = int(flags.shape[0])
    nwords = max(-(-rows // 32), 1)
    padded = cp.ones(nwords * 32, dtype=cp.bool_)
    padded[:rows] = flags
    weights = cp.left_shift(cp.uint32(1), cp.arange(32, dtype=cp.uint32))
    return (padded.reshape(nwords, 32) * weights).sum(axis=1, dtype=cp.uint32)


class PinnedMirror:
    """Page-locked host memory that a kernel writes a report into as it exits, made once and
    read again after each launch (:meth:`KernelsBase.read_mirrored`): ``array`` its numpy view,
    ``address`` where it starts, the same address on the device (unified addressing: page-locked
    memory from ``cudaHostAlloc`` is mapped into every device's space; checked here)."""

    def __init__(self, cupy, count, dtype):
        dtype = np.dtype(dtype)
        self._memory = cupy.cuda.alloc_pinned_memory(max(count * dtype.itemsize, 1))
        self.array = np.frombuffer(self._memory, dtype, count)
        self.address = self.array.ctypes.data
        seen = cupy.cuda.runtime.pointerGetAttributes(self.address)
        if seen.devicePointer != self.address:
            raise RuntimeError(f"page-locked memory at {self.address:#x} is at {seen.devicePointer:#x} on the "
                               f"device: a kernel cannot write a report there (no unified addressing)")


class KernelArguments:
    """A kernel's arguments as one packed struct (fused.cu's ld_fused_args) in a host buffer
    the driver copies at each launch: ``head`` packed once (the fields that stay from call to
    call), the rest packed in place before each launch (:meth:`pack`); ``pointers`` is the
    address of the one-entry kernelParams array that points at the buffer."""

    def __init__(self, head: bytes, tail):
        self._tail, self._at = tail, len(head)
        self._buffer = np.zeros(len(head) + tail.size, dtype=np.uint8)
        self._buffer[:len(head)] = np.frombuffer(head, dtype=np.uint8)
        self._params = np.array([self._buffer.ctypes.data], dtype=np.uintp)
        self.pointers = self._params.ctypes.data

    def pack(self, *fields):
        self._tail.pack_into(self._buffer, self._at, *fields)


class KernelsBase:
    """The device, the built modules and the bookkeeping every driver uses; the mixins of
    ``bitmap``, ``push``, ``pull``, ``fold``, ``fused`` and ``multi`` add the kernels."""

    def __init__(self):
        import cupy
        self.cp = cupy
        self._pool = cupy.get_default_memory_pool()
        props = self._props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)   # slow: once
        self._sms = int(props["multiProcessorCount"])
        self._clusters = int(props["major"]) >= 9        # thread block clusters (Hopper and later)
        self._dummy_words = cupy.zeros(2, cupy.uint32)
        _builds(cupy.cuda.Device().id)      # the modules built ahead start compiling, in the background
        self._functions = {}    # (device, module, kernel, template arguments): the counted kernel
        self.reads = 0          # device-to-host reads made through read()
        self.launches = 0       # launches of our kernels (functions got through _function)
        # blocks a multiprocessor of the fused search (None: the policy of _fused_launch; fewer
        # make its grid barrier cheaper, more hide the latency of big levels)
        self.fused_blocks_per_sm = None
        # frontier edges up to which a fused push level runs inside one block (0: never; None:
        # the policy of fused.py's _one_block_edges); benchmarks/probes/fused_blocks.py sweeps it
        self.fused_block_edges = None
        # whether block 0 of the one-block-an-SM fused build claims in a shared copy of the
        # visited words where they fit (benchmarks compare both)
        self.fused_cache_visited = True
        # whether the one-block-an-SM build on thin graphs launches in thread block clusters whose
        # first cluster runs the levels between block 0's and the grid's (fused.cu's
        # ld_cluster_levels; compute capability 9.0 and up): on an H100 the 1000 x 1000 mesh's
        # levels 4% faster, the 2000 x 2000's equal, a path's 5%, before their levels took
        # fewer memory instructions and block 0 handed them more (docs/notes/gpu-cluster-levels.md); benchmarks
        # compare both
        self.fused_cluster_levels = True
        # blocks a multiprocessor of push.cu's launches (None: push.py's PUSH_BLOCKS_PER_SM);
        # benchmarks/probes/push_blocks.py sweeps it
        self.push_blocks_per_sm = None
        # the last fused search's levels inside the cluster and those that spilled an inbox (the
        # kernel's status; tests read it to know which mode ran)
        self.fused_cluster_counts = {"levels": 0, "spills": 0}
        self._wanted = None             # (key, make): the outputs the last search took, to make again
        self._ahead = None              # (key, what make() made) for the next search

    # -- a search's outputs, made while the previous search's kernel ran -----------------------
    def made_ahead(self, key, make):
        """A search's outputs: ``make()`` returns (them, their bytes). They are what
        :meth:`make_ahead` made while the last search's kernel ran when that was made under the
        same ``key`` (the same graph searched again), else ``make()`` now; either way ``make``
        is kept to be called during the next search's kernel when the outputs take at most
        ``settings.results_ahead_bytes``. At most one set is held ahead; the objects are opaque here (the
        caller's vectors, their arrays inside)."""
        key = (self.cp.cuda.runtime.getDevice(), key)
        ahead, self._ahead = self._ahead, None
        made, nbytes = ahead[1] if ahead is not None and ahead[0] == key else make()
        self._wanted = (key, make) if nbytes <= settings.results_ahead_bytes else None
        return made

    def make_ahead(self):
        """Make the outputs the next search will likely take (the last search's kind), at a
        moment the host would wait on the device anyway: while a fused search's kernel runs,
        where the outputs' four allocations (4-7 us each on the H100 host) and their vectors
        are off the call's path."""
        wanted, self._wanted = self._wanted, None
        if wanted is not None:
            key, make = wanted
            self._ahead = (key, make())

    def read(self, array, out=None):
        """The way this backend copies device data to the host (counted): a new host array, or
        ``out`` (a C-contiguous numpy array of the same shape and dtype) written, through
        page-locked stages (:meth:`_read_staged`) when it is big."""
        self.reads += 1
        if out is not None and out.nbytes >= STAGED_READ_BYTES:
            return self._read_staged(array, out)
        return self.cp.asnumpy(array, out=out)

    def _read_staged(self, array, out, stage_bytes=STAGE_BYTES):
        """``array`` copied into ``out`` through two page-locked buffers of ``stage_bytes``: the
        device copies a stage into one while the host's threads copy the other into place. A
        copy straight into fresh pageable memory went at about 2 GB/s, the driver's one thread
        faulting in every page (the level check's 34 GB graph at scale 27 took 17 s); here the
        faults are spread over the cores."""
        cp = self.cp
        if not out.flags.c_contiguous:      # (a reshape would copy it, and the read land in the copy)
            raise ValueError("a staged read writes into a C-contiguous host array")
        source = cp.ascontiguousarray(array).reshape(-1).view(cp.uint8)
        target = out.reshape(-1).view(np.uint8)
        if source.size != target.size:
            raise ValueError(f"a read of {source.size} bytes into {target.size}")
        stages = [np.frombuffer(cp.cuda.alloc_pinned_memory(stage_bytes), np.uint8, stage_bytes) for _ in range(2)]
        stream = cp.cuda.get_current_stream()
        threads = os.cpu_count() or 1
        copying = [[], []]          # each stage's host copies in flight
        with ThreadPoolExecutor(max_workers=threads) as pool:
            for start in range(0, source.size, stage_bytes):
                stage = (start // stage_bytes) % 2
                for copy in copying[stage]:
                    copy.result()
                size = min(stage_bytes, source.size - start)
                cp.cuda.runtime.memcpyAsync(stages[stage].ctypes.data, source[start:].data.ptr, size,
                                            cp.cuda.runtime.memcpyDeviceToHost, stream.ptr)
                stream.synchronize()
                share = -(-size // threads)
                copying[stage] = [pool.submit(np.copyto, target[start + a:start + min(a + share, size)],
                                              stages[stage][a:min(a + share, size)]) for a in range(0, size, share)]
            for copy in copying[0] + copying[1]:
                copy.result()
        return out

    def read_mirrored(self, mirror):
        """Wait for the current stream, then ``mirror``'s numpy view (a :class:`PinnedMirror`
        the last kernel wrote as it exited; the next launch writing it overwrites it). Counted as
        :meth:`read` is: the host's one read of a fused run, written by the kernel instead of
        copied behind it (a copy into page-locked memory was 7 us on the H100 host; this
        is the synchronize alone, 1.6)."""
        self.reads += 1
        runtime = self.cp.cuda.runtime
        runtime.streamSynchronize(self.cp.cuda.get_current_stream().ptr)
        return mirror.array

    def clusters_at_once(self, kernel, cluster, threads, shared):
        """How many thread block clusters of ``kernel`` (from :meth:`_function`, built with
        ``cluster`` blocks a cluster) fit on the device at once with ``threads`` threads and
        ``shared`` bytes of dynamic shared memory a block: the driver's
        cuOccupancyMaxActiveClusters (CuPy has no binding for it), which a cooperative launch's
        co-residence needs."""
        import ctypes

        class LaunchConfig(ctypes.Structure):     # CUlaunchConfig, no attributes (the kernel's own
            _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),    # cluster size)
                        ("shared", ctypes.c_uint), ("stream", ctypes.c_void_p), ("attrs", ctypes.c_void_p),
                        ("nattrs", ctypes.c_uint)]
        config = LaunchConfig((ctypes.c_uint * 3)(cluster * max(self._sms // cluster, 1), 1, 1),
                              (ctypes.c_uint * 3)(threads, 1, 1), shared, None, None, 0)
        count = ctypes.c_int(0)
        result = ctypes.CDLL("libcuda.so.1").cuOccupancyMaxActiveClusters(
            ctypes.byref(count), ctypes.c_void_p(kernel.pointer), ctypes.byref(config))
        if result != 0:
            raise RuntimeError(f"cuOccupancyMaxActiveClusters failed (CUresult {result})")
        return count.value

    def launch_cooperative(self, kernel, blocks, threads, shared, arguments):
        """One cooperative launch of ``kernel`` (from :meth:`_function`; counted) whose argument
        bytes are ``arguments`` (a :class:`KernelArguments`), made as the driver's call itself:
        CuPy's launch converts its argument objects on every call (fused.cu's kernel on the H100
        host: 16 us a launch through CuPy, 5 us this way)."""
        self.launches += 1
        cuda = self.cp.cuda
        cuda.driver.launchCooperativeKernel(kernel.pointer, blocks, 1, 1, threads, 1, 1, shared,
                                            cuda.get_current_stream().ptr, arguments.pointers)

    def launch(self, kernel, blocks, threads, shared, arguments):
        """One ordinary launch of ``kernel`` made as a driver call, as :meth:`launch_cooperative`
        (a kernel launched many times a call with a few arguments changing: its launch costs
        the packing of those, not CuPy's conversion of every argument)."""
        self.launches += 1
        cuda = self.cp.cuda
        cuda.driver.launchKernel(kernel.pointer, blocks, 1, 1, threads, 1, 1, shared, cuda.get_current_stream().ptr,
                                 arguments.pointers, 0)

    # -- bookkeeping ----------------------------------------------------------------------
    def _function(self, module, name, *template_args):
        """The kernel, wrapped to count its launches (looked up once per device: a lookup and
        its template name cost tens of microseconds of a call that is otherwise one launch)."""
        key = (self.cp.cuda.Device().id, module, name, template_args)
        function = self._functions.get(key)
        if function is None:
            full = _template(name, *template_args) if template_args else name
            function = self._functions[key] = _Counted(
                _module_holding(key[0], module, name, template_args).get_function(full), self)
        return function

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

    def free_device_bytes(self):
        """(bytes we may still take, device total): the driver's free memory plus the pool's
        cached blocks, capped by the pool's limit when one is set (cupy set_limit)."""
        free, total = self.cp.cuda.runtime.memGetInfo()
        free += self._pool.free_bytes()
        if self._pool.get_limit():
            free = min(free, self._pool.get_limit() - self._pool.used_bytes())
        return free, total

    def device_info(self):
        cp = self.cp
        device = cp.cuda.Device()
        props = cp.cuda.runtime.getDeviceProperties(device.id)
        free, total = cp.cuda.runtime.memGetInfo()
        return {"device": props["name"].decode(), "compute_capability": device.compute_capability,
                "device_memory_bytes": int(total), "gpus_visible": cp.cuda.runtime.getDeviceCount(),
                "cupy": cp.__version__, "cuda_runtime": cp.cuda.runtime.runtimeGetVersion()}

    # -- what the products share ------------------------------------------------------------
    def _output(self, semiring, length, queue_capacity):
        """Zeroed output bitmap and counters (one memset), values at the monoid's identity where
        the kernel needs one, and the output queue."""
        cp = self.cp
        scratch = cp.zeros(2 * NCOUNTERS + length // 32, dtype=cp.uint32)
        counters, words = scratch[:2 * NCOUNTERS].view(cp.uint64), scratch[2 * NCOUNTERS:]
        dtype = semiring.out_dtype
        kind = semiring.add.kind
        if kind == "any":           # the first claimant writes, nothing to initialise
            values = cp.empty(length, dtype=dtype)
        elif kind in ("lor", "plus"):           # identity 0: a memset
            values = cp.zeros(length, dtype=dtype)
        else:                       # min, max, land: the claims combine into the identity
            values = cp.full(length, semiring.add.identity_of(dtype), dtype=dtype)
        queue = cp.empty(max(min(int(queue_capacity), length), 1), dtype=cp.int32)
        part = LocalPart("bitmap", length, None, values, words=words, ids=queue, ids_sorted=False)
        return part, counters

    def _mask(self, mask_words, complement):
        if mask_words is None:
            return self._dummy_words, np.int32(0)
        return mask_words, np.int32(2 if complement else 1)

    @staticmethod
    def _codes(semiring):
        """(multiply code, add code, value type) of a semiring's kernels: its objects' own. Every
        multiply and monoid of layout's codes runs on every value type of :data:`_CTYPE` (those
        built ahead, the rest on first use); anything else is Unsupported, naming what runs."""
        add, mult = semiring.codes
        dtype = semiring.out_dtype
        ctype = None if dtype is None else _CTYPE.get(np.dtype(dtype))
        if ctype is None or mult not in _MULT.values() or add not in _ADD.values():
            raise Unsupported(f"{semiring!r} does not run on the GPU backend: its kernels take the multiplies "
                              f"{', '.join(_MULT)}, the monoids {', '.join(_ADD)} and values of "
                              f"{', '.join(d.name for d in _CTYPE)}")
        return mult, add, ctype

    def build_semirings(self, which=None, dtypes=VALUE_DTYPES, *, threads=None):
        """Build now the modules that products of the semirings ``which`` (default: every one
        the package names) on vectors of ``dtypes`` would build on their first use, both
        orientations (vxm and mxv): push, pull, the fold's pack and merge, the assignment of
        their values. They compile in ``threads`` threads at once (default: the cores; NVRTC
        compiles outside the GIL) on the current device. Returns how many were built."""
        wanted = set()
        for semiring in semirings.every() if which is None else which:
            for dtype in dtypes:
                for vector_left in (True, False):
                    try:
                        typed = semiring.for_product(dtype, vector_left=vector_left)
                    except DomainMismatch:          # a type the semiring refuses
                        continue
                    mult, add, ctype = self._codes(typed)
                    for source, name, args in (("push", "ld_push_spmspv", (mult, add, ctype)),
                                               ("pull", "ld_pull_rows", (mult, add, ctype)),
                                               ("fold", "ld_fold_merge", (add, ctype)),
                                               ("fold", "ld_fold_pack", (ctype,)),
                                               ("bitmap", "ld_assign_from_list", (ctype,))):
                        if _template(name, *args) not in _ahead()[source]:
                            wanted.add((source, _on_demand(source, name, args)))
        device_id = self.cp.cuda.Device().id
        for future in _builds(device_id).values():
            future.result()
        with ThreadPoolExecutor(max_workers=threads or os.cpu_count() or 1) as pool:
            list(pool.map(lambda job: _module_on_demand(device_id, *job), sorted(wanted)))
        return len(wanted)

    @staticmethod
    def _idmap(in_map):
        return (np.int64(in_map.block_len), np.int64(in_map.stride), np.int64(in_map.offset))

    @staticmethod
    def _or_null(array):
        """The array, or a null pointer for an optional kernel argument."""
        return array if array is not None else np.intp(0)

    def _frontier_scan(self, csr, frontier):
        """The exclusive scan of the out-degrees of ``frontier``'s entries (length nf + 1, the
        total last): one block's launch up to SMALL_SCAN entries, else two launches over at most
        SMALL_SCAN contiguous chunks (push.cu)."""
        cp = self.cp
        nf = int(frontier.shape[0])
        scan = cp.empty(nf + 1, dtype=cp.int64)
        if nf <= SMALL_SCAN:
            self._function("push", "ld_frontier_scan_small")((1,), (SMALL_SCAN,),
                                                             (csr.indptr, frontier, np.int32(nf), scan))
            return scan
        chunks = min(SMALL_SCAN, -(-nf // SMALL_SCAN))
        chunk = np.int64(-(-nf // chunks))
        totals = cp.empty(chunks, dtype=cp.int64)
        self._function("push", "ld_frontier_scan_chunks")((chunks,), (SMALL_SCAN,),
                                                          (csr.indptr, frontier, np.int64(nf), chunk, scan, totals))
        self._function("push", "ld_frontier_scan_add")((chunks,), (SMALL_SCAN,), (np.int64(nf), chunk, scan, totals))
        return scan
