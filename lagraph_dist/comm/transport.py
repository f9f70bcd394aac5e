"""Transports: how backend arrays move between the ranks of one MPI communicator.

A :class:`Channel` is one communicator (the grid's row, column or whole communicator) with the
two operations the collectives need, on 1-D arrays of one dtype:

* ``allgatherv(send, counts)``: member k contributes ``counts[k]`` elements; every member gets
  the concatenation in member order;
* ``alltoallv(send, send_counts, recv_counts)``: slice k of ``send`` goes to member k; the
  result is what every member sent here, in member order.

Counts are host integers that every caller already knows: nothing here reads a count from the
device. Three transports implement the channel:

* ``mpi-host``: host-staged MPI. Always works; the CPU backend's arrays are host arrays already.
* ``mpi-cuda``: CUDA-aware MPI on device buffers, after the CUDA stream is synchronised (MPI
  does not know our stream). Only where the MPI library reports CUDA support and a probe passes.
* ``nccl``: an NCCL communicator per MPI communicator (unique id broadcast over it), on CuPy
  buffers and the current stream, so no host synchronisation happens at all; variable sizes
  are grouped point-to-point sends and receives.

Host (numpy) arrays always travel by host MPI, whatever the grid's transport: the transport
names how *device* arrays move.
"""
from __future__ import annotations

import ctypes
import functools
import itertools
import os

import numpy as np

from lagraph_dist.local.backend import gpu_available
from lagraph_dist.core.errors import InvalidValue

__all__ = ["TRANSPORTS", "TRANSPORT_ENV", "Transport", "Channel", "resolve_transport",
           "cuda_aware_mpi"]

TRANSPORTS = ("nccl", "mpi-cuda", "mpi-host")
TRANSPORT_ENV = "LAGRAPH_DIST_TRANSPORT"


def _mpi():
    from mpi4py import MPI
    return MPI


def _is_host(array) -> bool:
    return isinstance(array, np.ndarray)


def _offsets(counts):
    """[0, c0, c0 + c1, ...] as Python integers (a few a member: summed without a numpy call,
    which costs more than the sums on a level's path)."""
    return [0, *itertools.accumulate(counts)]


def _slices(counts):
    """[(start, stop)] of each member's run in a buffer of runs of ``counts`` elements."""
    offsets = _offsets(counts)
    return list(zip(offsets, offsets[1:]))


def _layout(counts):
    """(counts, displacements) of a variable-size collective, for mpi4py's buffer interface."""
    return counts, _offsets(counts)[:-1]


# -- capability checks ----------------------------------------------------------------------
def _loaded_mpi_libraries():
    """Paths of the MPI shared libraries this process has loaded (mpi4py loads one)."""
    _mpi()
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "libmpi" in line and ".so" in line}
    except OSError:
        return []
    return sorted(p for p in paths if p.startswith("/"))


def _library_cuda_query():
    """(answer, how): what the MPI library itself says about CUDA support, if it says anything.

    Open MPI exports ``int MPIX_Query_cuda_support(void)``; MPICH exports
    ``int MPIX_GPU_query_support(int gpu_type, int *is_supported)`` with type 0 for CUDA.
    """
    for path in _loaded_mpi_libraries():
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        query = getattr(library, "MPIX_Query_cuda_support", None)
        if query is not None:
            query.restype = ctypes.c_int
            return bool(query()), f"MPIX_Query_cuda_support() in {path}"
        query = getattr(library, "MPIX_GPU_query_support", None)
        if query is not None:
            flag = ctypes.c_int(0)
            query(ctypes.c_int(0), ctypes.byref(flag))
            return bool(flag.value), f"MPIX_GPU_query_support(CUDA) in {path}"
    return False, "the loaded MPI library exports no CUDA-support query"


def _device_buffer_probe():
    """A small device-buffer exchange through MPI on COMM_SELF: the values must arrive."""
    import cupy
    MPI = _mpi()
    send = cupy.arange(1, 9, dtype=cupy.int64)
    recv = cupy.zeros(8, dtype=cupy.int64)
    cupy.cuda.get_current_stream().synchronize()
    MPI.COMM_SELF.Sendrecv(send, 0, 7, recv, 0, 7)
    return bool((recv == send).all())


@functools.lru_cache(maxsize=None)
def cuda_aware_mpi():
    """(bool, detail): whether MPI can take device buffers here, and how that was decided.

    The library's own query comes first; only when it says yes is a device buffer handed to
    MPI (a library without CUDA support would crash on one)."""
    MPI = _mpi()
    library = MPI.Get_library_version().splitlines()[0].strip()
    supported, how = _library_cuda_query()
    if not supported:
        return False, f"{library}: {how} says no"
    if not gpu_available():
        return False, f"{library}: {how} says yes, but no CUDA device is visible"
    try:
        probe = _device_buffer_probe()
    except Exception as exc:          # the probe's failure is the answer, with its reason
        return False, f"{library}: {how} says yes, but a device-buffer probe failed: {exc}"
    if not probe:
        return False, f"{library}: {how} says yes, but a device-buffer probe moved wrong values"
    return True, f"{library}: {how} says yes and a device-buffer probe passed"


def _nccl_module():
    try:
        from cupy.cuda import nccl
    except ImportError as exc:
        return None, f"cupy.cuda.nccl cannot be imported ({exc})"
    if not getattr(nccl, "available", True):
        return None, "CuPy was built without NCCL"
    return nccl, "cupy.cuda.nccl"


def _why_not(name):
    """None when transport ``name`` can work in this process, else the reason it cannot."""
    if name == "mpi-host":
        return None
    if not gpu_available():
        return f"transport {name!r} moves device arrays, but CuPy sees no CUDA device here"
    if name == "nccl":
        module, why = _nccl_module()
        return None if module is not None else f"transport 'nccl' is unavailable: {why}"
    supported, detail = cuda_aware_mpi()
    return None if supported else f"transport 'mpi-cuda' needs a CUDA-aware MPI; {detail}"


def resolve_transport(requested):
    """The transport name to use: ``requested``, else $LAGRAPH_DIST_TRANSPORT, else nccl on a
    GPU machine where NCCL works and mpi-host elsewhere. Raises InvalidValue for an unknown
    name or one that cannot work here (the caller makes that collective)."""
    source = "transport="
    if requested is None and os.environ.get(TRANSPORT_ENV):
        requested, source = os.environ[TRANSPORT_ENV], f"${TRANSPORT_ENV}="
    if requested is None:
        return "nccl" if _why_not("nccl") is None else "mpi-host"
    if requested not in TRANSPORTS:
        raise InvalidValue(f"unknown transport {source}{requested!r}; choose one of {', '.join(TRANSPORTS)}")
    reason = _why_not(requested)
    if reason is not None:
        raise InvalidValue(f"{source}{requested!r} cannot work here: {reason}")
    return requested


# -- channels -------------------------------------------------------------------------------
class Channel:
    """One communicator with the collectives of the module docstring (see there)."""

    def __init__(self, comm, device):
        self.comm = comm
        self.size = comm.Get_size()
        self.rank = comm.Get_rank()
        self._device = device          # how device arrays move: a _DeviceMover
        self._host = _HostMPI(comm)

    def _mover(self, array):
        return self._host if _is_host(array) else self._device

    def allgatherv(self, send, counts):
        if self.size == 1:
            return send
        return self._mover(send).allgatherv(send, [int(c) for c in counts])

    def alltoallv(self, send, send_counts, recv_counts):
        if self.size == 1:
            return send
        return self._mover(send).alltoallv(send, [int(c) for c in send_counts],
                                           [int(c) for c in recv_counts])


class _HostMPI:
    """Host numpy buffers through mpi4py's buffer interface (typed counts, no pickling)."""

    def __init__(self, comm):
        self.comm = comm

    def allgatherv(self, send, counts):
        send = np.ascontiguousarray(send)
        recv = np.empty(sum(counts), dtype=send.dtype)
        self.comm.Allgatherv(_typed(send), [_typed(recv), _layout(counts)])
        return recv

    def alltoallv(self, send, send_counts, recv_counts):
        send = np.ascontiguousarray(send)
        recv = np.empty(sum(recv_counts), dtype=send.dtype)
        self.comm.Alltoallv([_typed(send), _layout(send_counts)], [_typed(recv), _layout(recv_counts)])
        return recv


def _typed(array):
    """A buffer mpi4py can type: booleans travel as bytes."""
    return array.view(np.uint8) if array.dtype == np.bool_ else array


class _StagedMPI:
    """Device arrays copied to the host, moved by MPI, copied back (the mpi-host transport)."""

    def __init__(self, comm):
        self.host = _HostMPI(comm)

    def allgatherv(self, send, counts):
        import cupy
        return cupy.asarray(self.host.allgatherv(cupy.asnumpy(send), counts))

    def alltoallv(self, send, send_counts, recv_counts):
        import cupy
        return cupy.asarray(self.host.alltoallv(cupy.asnumpy(send), send_counts, recv_counts))


class _CudaAwareMPI:
    """Device arrays handed to a CUDA-aware MPI after the stream is synchronised."""

    def __init__(self, comm):
        self.comm = comm

    def allgatherv(self, send, counts):
        import cupy
        recv = cupy.empty(int(sum(counts)), dtype=send.dtype)
        send = cupy.ascontiguousarray(send)
        cupy.cuda.get_current_stream().synchronize()
        self.comm.Allgatherv(_typed(send), [_typed(recv), _layout(counts)])
        return recv

    def alltoallv(self, send, send_counts, recv_counts):
        import cupy
        recv = cupy.empty(int(sum(recv_counts)), dtype=send.dtype)
        send = cupy.ascontiguousarray(send)
        cupy.cuda.get_current_stream().synchronize()
        self.comm.Alltoallv([_typed(send), _layout(send_counts)], [_typed(recv), _layout(recv_counts)])
        return recv


class _Nccl:
    """Device arrays through an NCCL communicator made over ``comm`` on first use; bytes on the
    current CuPy stream, so the host never waits."""

    def __init__(self, comm):
        self.comm = comm
        self._nccl_comm = None

    def _communicator(self):
        if self._nccl_comm is None:
            import cupy
            from cupy.cuda import nccl
            uid = nccl.get_unique_id() if self.comm.Get_rank() == 0 else None
            uid = self.comm.bcast(uid, root=0)
            with cupy.cuda.Device():          # the rank's bound device is current
                self._nccl_comm = nccl.NcclCommunicator(self.comm.Get_size(), uid, self.comm.Get_rank())
        return self._nccl_comm

    @staticmethod
    def _bytes(array):
        return array.view(np.uint8)

    def _exchange(self, send, send_slices, recv, recv_slices):
        """Grouped point-to-point: send_slices[k] of ``send`` to k, recv_slices[k] from k."""
        import cupy
        from cupy.cuda import nccl
        comm = self._communicator()
        stream = cupy.cuda.get_current_stream().ptr
        me = self.comm.Get_rank()
        sbytes, rbytes = self._bytes(send), self._bytes(recv)
        item = send.dtype.itemsize
        (s0, s1), (r0, r1) = send_slices[me], recv_slices[me]
        if s1 > s0:                      # one's own slice is a device copy, not a message
            runtime = cupy.cuda.runtime
            runtime.memcpyAsync(rbytes.data.ptr + r0 * item, sbytes.data.ptr + s0 * item, (s1 - s0) * item,
                                runtime.memcpyDeviceToDevice, stream)
        nccl.groupStart()
        try:
            for peer in range(self.comm.Get_size()):
                if peer == me:
                    continue
                s0, s1 = send_slices[peer]
                r0, r1 = recv_slices[peer]
                if s1 > s0:
                    comm.send(sbytes.data.ptr + s0 * item, (s1 - s0) * item, nccl.NCCL_UINT8, peer, stream)
                if r1 > r0:
                    comm.recv(rbytes.data.ptr + r0 * item, (r1 - r0) * item, nccl.NCCL_UINT8, peer, stream)
        finally:
            nccl.groupEnd()
        return recv

    def allgatherv(self, send, counts):
        import cupy
        send = cupy.ascontiguousarray(send)
        recv = cupy.empty(int(sum(counts)), dtype=send.dtype)
        mine = (0, int(send.shape[0]))
        return self._exchange(send, [mine] * self.comm.Get_size(), recv, _slices(counts))

    def alltoallv(self, send, send_counts, recv_counts):
        import cupy
        send = cupy.ascontiguousarray(send)
        recv = cupy.empty(int(sum(recv_counts)), dtype=send.dtype)
        return self._exchange(send, _slices(send_counts), recv, _slices(recv_counts))


_DEVICE_MOVERS = {"mpi-host": _StagedMPI, "mpi-cuda": _CudaAwareMPI, "nccl": _Nccl}


class Transport:
    """The grid's channels (``row``, ``col``, ``world``) over one transport ``name``."""

    def __init__(self, name, world, row, col):
        self.name = name
        make = _DEVICE_MOVERS[name]
        self.world = Channel(world, make(world))
        self.row = Channel(row, make(row))
        self.col = Channel(col, make(col))

    def __repr__(self):
        return f"Transport({self.name!r})"

    def describe(self) -> dict:
        """What the records say about the transport (name, and for mpi-cuda its detection)."""
        info = {"name": self.name}
        if self.name == "mpi-cuda":
            info["detection"] = cuda_aware_mpi()[1]
        if self.name == "nccl":
            from cupy.cuda import nccl
            info["nccl_version"] = nccl.get_version()
        return info
