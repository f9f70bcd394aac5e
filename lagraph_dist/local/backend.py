"""Backends: the array module plus the local kernels, and nothing else.

``"cpu"`` is numpy/scipy with the numpy twins of the kernels (:mod:`lagraph_dist.local.cpu_kernels`);
``"gpu"`` is CuPy with our CUDA kernels (:mod:`lagraph_dist.local.gpu_kernels`). Everything above this
layer is written once against ``backend.xp`` and ``backend.kernels``. CuPy is imported lazily,
so ``import lagraph_dist`` works on machines without a GPU.
"""
from __future__ import annotations

import functools
import warnings

import numpy as np

from lagraph_dist.core.errors import CupyUnusableWarning, InvalidValue
from lagraph_dist.local import fit

__all__ = ["Backend", "get_backend", "gpu_available", "gpu_status", "BACKENDS", "local_index_dtype"]

BACKENDS = ("auto", "cpu", "gpu")


def local_index_dtype(length):
    """int32 for local block indices while they fit (they always do on one GPU), else int64."""
    return np.int32 if length <= np.iinfo(np.int32).max else np.int64


@functools.lru_cache(maxsize=None)
def gpu_status():
    """(usable, reason): whether CuPy imports and sees a CUDA device, and if not, why.

    CuPy not installed is the ordinary CPU machine: reason "CuPy is not installed", no
    warning. CuPy installed but failing (no driver, a wheel for another CUDA, no device) warns
    once with CuPy's own message (:class:`CupyUnusableWarning`), so that ``backend="auto"``
    never falls back to the CPU silently.
    """
    try:
        import cupy
    except ModuleNotFoundError as exc:
        if exc.name == "cupy":
            return False, "CuPy is not installed"
        return _unusable(f"importing CuPy failed: {exc}")
    except Exception as exc:  # a broken install raises anything (ImportError, OSError, ...)
        return _unusable(f"importing CuPy failed: {type(exc).__name__}: {exc}")
    try:   # counting devices makes no CUDA context: ranks bind their own device later
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError for a missing or too old driver, and kin
        return _unusable(f"CuPy {getattr(cupy, '__version__', '?')} cannot reach a CUDA device: "
                         f"{type(exc).__name__}: {exc}")
    if count < 1:
        return _unusable(f"CuPy {cupy.__version__} sees no CUDA device")
    return True, None


def _unusable(reason):
    warnings.warn(f"CuPy is installed but cannot be used ({reason}); backend='auto' runs on the CPU",
                  CupyUnusableWarning, stacklevel=4)
    return False, reason


def gpu_available() -> bool:
    """True when CuPy imports and sees at least one CUDA device (see :func:`gpu_status`)."""
    return gpu_status()[0]


class Backend:
    """Array module, sparse module and kernels of one backend."""

    def __init__(self, name, xp, kernels):
        self.name = name
        self.xp = xp
        self.kernels = kernels

    def __repr__(self):
        return f"Backend({self.name!r})"

    agreement_text = __repr__     # what collective calls compare between ranks

    def asarray(self, array, dtype=None):
        return self.xp.asarray(array, dtype=dtype)

    def made_ahead(self, key, make):
        """A search's outputs, ``make()``'s (them, their bytes): on the GPU made while the
        previous search of the same ``key`` ran where they are small (gpu_kernels.base), on the
        CPU made now."""
        if self.xp is np:
            return make()[0]
        return self.kernels.made_ahead(key, make)

    def to_host(self, array, out=None):
        """A numpy view/copy of an array of this backend (a device read on the GPU backend);
        with ``out`` (C-contiguous numpy, the same shape), copied into it instead, cast to its
        dtype where the array lives: on the device before the read, on the host as it is copied
        (no host temporary of the cast array)."""
        if out is not None and self.xp is np:
            out[...] = array
            return out
        if out is not None and array.dtype != out.dtype:
            array = array.astype(out.dtype)
        return array if self.xp is np else self.kernels.read(array, out=out)

    @property
    def device_reads(self) -> int:
        """Device-to-host reads so far in this process (0 on the CPU backend): per-level
        figures of the search statistics."""
        return self.kernels.reads if self.xp is not np else 0

    @property
    def kernel_launches(self) -> int:
        """Launches of our own kernels so far in this process (0 on the CPU backend, whose
        kernels are calls): per-level figures of the search statistics."""
        return self.kernels.launches if self.xp is not np else 0

    def device_info(self) -> dict:
        """The device's name, memory and compute capability (empty on the CPU backend)."""
        return self.kernels.device_info() if self.xp is not np else {}

    def sync(self):
        """Wait for queued device work (timing and MPI both need it)."""
        if self.xp is not np:
            self.xp.cuda.get_current_stream().synchronize()

    def memory_pool_peak(self) -> int:
        """Peak bytes held by the device memory pool since the last reset (0 on the CPU)."""
        return self.kernels.peak_bytes() if self.name == "gpu" else 0

    def check_fits(self, nbytes, what):
        """:func:`lagraph_dist.local.fit.require_fit` of ``nbytes`` on this backend."""
        fit.require_fit(nbytes, self, what)

    def free_device_bytes(self):
        """(bytes we may still take, device total): the kernels' free_device_bytes."""
        return self.kernels.free_device_bytes()

    def passes_to_fit(self, bytes_for_passes):
        """:func:`lagraph_dist.local.fit.passes_to_fit` on this backend."""
        return fit.passes_to_fit(self, bytes_for_passes)

    def reset_memory_peak(self):
        if self.name == "gpu":
            self.kernels.reset_peak()


@functools.lru_cache(maxsize=None)
def _cpu_backend():
    from lagraph_dist.local import cpu_kernels
    # the kernels compile (or load from numba's cache) on their first use: a call compiles only
    # what it runs, and the first compile says so (local.compile_notice)
    cpu_kernels.set_kernel_threads()
    return Backend("cpu", np, cpu_kernels)


@functools.lru_cache(maxsize=None)
def _gpu_backend():
    import cupy
    from lagraph_dist.local import gpu_kernels
    _bind_device(cupy)
    return Backend("gpu", cupy, gpu_kernels.GpuKernels())


def _bind_device(cupy):
    """Under MPI, each rank takes device (node-local rank mod device count)."""
    from mpi4py import MPI
    node = MPI.COMM_WORLD.Split_type(MPI.COMM_TYPE_SHARED)
    cupy.cuda.Device(node.Get_rank() % cupy.cuda.runtime.getDeviceCount()).use()
    node.Free()


def get_backend(name="auto") -> Backend:
    """The :class:`Backend` object (not its name) called ``name``: "cpu", "gpu", or "auto" (gpu
    when CuPy sees a device); its ``.name`` is "cpu" or "gpu". A Backend comes back as it is."""
    if isinstance(name, Backend):
        return name
    if name not in BACKENDS:
        raise InvalidValue(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
    if name == "auto":
        name = "gpu" if gpu_available() else "cpu"
    if name == "gpu":
        usable, reason = gpu_status()
        if not usable:
            raise InvalidValue(f"backend 'gpu' was asked for, but {reason} (install the cuda12 or "
                               "cuda13 extra matching the driver, on a machine with a GPU)")
        return _gpu_backend()
    return _cpu_backend()
