"""How much memory is free for this rank, and whether something fits in it: the one home of
the memory-fit policy, for every backend (the device for the GPU backend, the host for the
CPU backend), shared by the ranks that draw on the same memory; and the size of the host's
last-level cache, which the CPU's searches from a source ask whether they fit in. The
estimates of what a graph or a search needs live in :mod:`lagraph_dist.algebra.memory`."""
from __future__ import annotations

import functools
import os

from lagraph_dist.core.errors import OutOfDeviceMemory, OutOfHostMemory
from lagraph_dist.local import recycle

__all__ = ["host_memory", "last_level_cache", "available_bytes", "free_share", "require_fit", "passes_to_fit",
           "ranks_sharing_memory", "check_fits", "format_bytes", "PASS_SHARE", "MAX_PASSES"]

PASS_SHARE = 0.9                 # of the free device memory a pass may take: the rest is headroom
MAX_PASSES = 64                  # passes over the edges at most
_HEAD_BYTES = 512                # of a kernel file read for its first lines


# -- free memory ------------------------------------------------------------------------------
def host_memory():
    """(bytes available to this process, bytes of RAM) on this host: the kernel's MemAvailable
    (free plus reclaimable caches), capped by a cgroup v2 limit when the process runs under one."""
    meminfo = _meminfo_head()
    if "MemAvailable" in meminfo and "MemTotal" in meminfo:
        available, total = meminfo["MemAvailable"], meminfo["MemTotal"]
    else:                                    # no /proc (macOS): free pages only
        page = os.sysconf("SC_PAGE_SIZE")
        available, total = os.sysconf("SC_AVPHYS_PAGES") * page, os.sysconf("SC_PHYS_PAGES") * page
    room = _cgroup_room()
    return (available if room is None else min(available, room)), total


@functools.cache
def last_level_cache():
    """The bytes of this host's last-level CPU cache as the kernel lists CPU 0's caches (the
    deepest level's), else as the C library gives its L3, or None where neither says (a
    machine without sysfs, a VM whose CPU lists no caches). Read once a process."""
    deepest, size = 0, None
    for index in range(8):
        folder = f"/sys/devices/system/cpu/cpu0/cache/index{index}"
        level, text = _read_head(f"{folder}/level"), _read_head(f"{folder}/size")
        if level is None or text is None:
            break
        found = _cache_bytes(text.decode(errors="replace"))
        if found is not None and level.strip().isdigit() and int(level) >= deepest:
            deepest, size = int(level), found
    if size is None and hasattr(os, "sysconf") and "SC_LEVEL3_CACHE_SIZE" in os.sysconf_names:
        size = os.sysconf("SC_LEVEL3_CACHE_SIZE") or None
    return size


def _cache_bytes(text):
    """sysfs's cache size ("32768K", "1M", "512") in bytes, or None for anything else."""
    text = text.strip()
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    digits = text[:-1] if scale > 1 else text
    return int(digits) * scale if digits.isdigit() else None


def _read_head(path, size=_HEAD_BYTES):
    """The first ``size`` bytes of a small kernel file, in one read without Python's file
    object (a text open and line loop was 3/4 of a 31 us read of /proc/meminfo), or None."""
    try:
        handle = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return os.read(handle, size)
    except OSError:
        return None
    finally:
        os.close(handle)


def _meminfo_head():
    """{field: bytes} of /proc/meminfo's first three lines (MemTotal, MemFree, MemAvailable);
    empty where there is none."""
    head = _read_head("/proc/meminfo")
    fields = {}
    for line in (head or b"").split(b"\n", 3)[:3]:
        key, _, rest = line.partition(b":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            fields[key.decode()] = int(parts[0]) * 1024
    return fields


_NO_CGROUP_LIMIT = []             # [True] once this process found no cgroup v2 memory.max


def _cgroup_room():
    """Bytes left under this process's cgroup v2 memory limit, or None without one (a mount
    without the file is remembered: a failed open is 4 us a call)."""
    if _NO_CGROUP_LIMIT:
        return None
    limit = _read_head("/sys/fs/cgroup/memory.max")
    if limit is None:
        _NO_CGROUP_LIMIT.append(True)
        return None
    if not limit.strip().isdigit():          # "max": no limit, which may be set later
        return None
    used = _read_head("/sys/fs/cgroup/memory.current")
    if used is None or not used.strip().isdigit():
        return None
    return max(0, int(limit) - int(used))


def _on_device(backend):
    """Whether ``backend`` computes in device memory (the GPU backend; not the CPU backend, its
    name "cpu" or a backend-less stand-in)."""
    return getattr(backend, "name", "cpu") == "gpu"


def available_bytes(backend):
    """(bytes this rank may still take, total) in the memory its backend computes in: the
    device for the GPU backend, the host for the CPU backend (or any backend-less stand-in)."""
    if _on_device(backend):
        return backend.free_device_bytes()
    available, total = host_memory()
    return available + recycle.free_bytes(), total       # (kept arrays no one holds: given back on need)


def free_share(backend, sharing=1):
    """Bytes of ``backend``'s free memory that one of the ``sharing`` ranks drawing on it
    (:func:`ranks_sharing_memory`) may take."""
    return available_bytes(backend)[0] // sharing


def require_fit(nbytes, backend, what, *, sharing=1):
    """Raise before allocating when ``sharing`` ranks needing ``nbytes`` each will not fit in the
    free memory of ``backend``: OutOfDeviceMemory against the device's free memory (the pool's
    cached blocks count as free), OutOfHostMemory against the host's available memory."""
    need = nbytes * sharing
    free, total = available_bytes(backend)
    if need > free:
        error, where = (OutOfDeviceMemory, "device") if _on_device(backend) else (OutOfHostMemory, "host")
        raise error(f"{what} needs about {format_bytes(need)} of {where} memory, but only "
                    f"{format_bytes(free)} of {format_bytes(total)} are free")


def passes_to_fit(backend, bytes_for_passes, most=MAX_PASSES):
    """The fewest passes (1, 2, 4, ... at most ``most``) whose peak ``bytes_for_passes(passes)``
    fits in :data:`PASS_SHARE` of the free device memory (1 on the CPU)."""
    if not _on_device(backend):
        return 1
    room = PASS_SHARE * free_share(backend)
    passes = 1
    while passes < most and bytes_for_passes(passes) > room:
        passes *= 2
    return passes


def ranks_sharing_memory(comm, backend):
    """Collective: the ranks of ``comm`` drawing on the same memory as this one: those on this
    host for the CPU (or a backend-less stand-in), those bound to this rank's device for the
    GPU (node-local rank mod device count)."""
    if comm.Get_size() == 1:
        return 1
    from mpi4py import MPI
    node = comm.Split_type(MPI.COMM_TYPE_SHARED)
    rank, size = node.Get_rank(), node.Get_size()
    node.Free()
    if not _on_device(backend):
        return size
    devices = backend.xp.cuda.runtime.getDeviceCount()
    return len(range(rank % devices, size, devices))


def check_fits(estimate, grid, backend, what, *, otherwise=None):
    """Collective: raise on every rank, before anything is allocated, when ``what`` (sized by
    ``estimate``, per rank) would not fit in the memory of the backend, shared by the ranks
    of the grid that draw on the same host or device. ``otherwise(free)``, given the bytes
    a rank may take, says what would fit instead; the refusal ends with it."""
    sharing = ranks_sharing_memory(grid.comm, backend)
    per = f" on each of the {sharing} ranks sharing it" if sharing > 1 else ""

    def checked():
        # by way of Backend.check_fits, a delegation to require_fit: tests watch the constructors' checks there
        try:
            backend.check_fits(estimate.total * sharing, f"{what} ({estimate}{per})")
        except (OutOfDeviceMemory, OutOfHostMemory) as refusal:
            if otherwise is None:
                raise
            raise type(refusal)(f"{refusal}; {otherwise(free_share(backend, sharing))}") from None

    grid.agree(checked)




def format_bytes(nbytes):
    """``1.5 GiB``-style text for messages and reports."""
    units = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")
    power = 0
    while power < len(units) - 1 and abs(nbytes) >= 1024 ** (power + 1):
        power += 1
    return f"{int(nbytes)} B" if power == 0 else f"{nbytes / 1024 ** power:.1f} {units[power]}"
