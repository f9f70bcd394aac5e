"""Collective calls agree: every rank of a call passes the same arguments.

A public collective names the arguments that must be equal on every rank with the decorator
:func:`lagraph_dist.comm.collective.collective` (a source, a direction, a semiring, a mask's
presence, a dtype, a root...), or calls :func:`agree_on` itself (``Grid()``, the command line).
Each call on a grid of several ranks describes those arguments, one short text each
(:func:`describe`), hashes the texts into one 64-bit digest and gathers the digests over
the grid: one allgather of 8 bytes a rank. Equal digests let the call run. Different ones
make every rank gather the texts and raise :class:`~lagraph_dist.core.errors.InvalidValue`
naming each argument that differs and what each rank passed, so no rank answers another
rank's question and none waits in a collective the others skipped.

A plain process (the 1 x 1 grid) checks nothing. This module sits below the grid (which uses it
for its own shape), so it speaks to communicators.
"""
from __future__ import annotations

import hashlib
import inspect
import numbers
import zlib

import numpy as np

from lagraph_dist.core.errors import InvalidValue

__all__ = ["agree_on", "describe", "dtype_name", "share_or_scalar", "whole", "SAMPLE"]

#: arrays longer than this are described by their dtype, shape and a checksum of this many
#: evenly spaced elements (a validated search's levels: the whole array would cost more than
#: the call it guards)
SAMPLE = 4096


def _checksum(array, sample=SAMPLE) -> str:
    """dtype, shape and the crc32 of at most ``sample`` evenly spaced elements (None: all)."""
    shape, flat = list(array.shape), array.reshape(-1)
    if sample is not None and flat.size > sample:
        flat = flat[::-(-flat.size // sample)]
    if hasattr(flat, "__cuda_array_interface__"):         # a CuPy array: compared on the host
        flat = flat.get()
    flat = np.ascontiguousarray(flat)
    return f"{flat.dtype}{shape} crc {zlib.crc32(flat.tobytes()):08x}"


def describe(value) -> str:
    """A short text of ``value``, equal on two ranks when the values are and different when they
    differ (a large array: when its dtype, shape or a sampled element does), for the kinds of
    argument a collective takes: None, numbers, strings, arrays (small ones in full, large ones
    by dtype, shape and a checksum), sequences and dicts of those, and objects that
    describe themselves with an ``agreement_text()`` method (matrices, vectors, masks,
    semirings). Any other object is described by its type alone: its repr may hold an
    address that differs between processes."""
    if value is None or isinstance(value, (bool, str, bytes)):
        return repr(value)
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, np.generic) and value.ndim == 0:
        return repr(value.item())
    if isinstance(value, numbers.Number):
        return repr(value)
    text = getattr(value, "agreement_text", None)
    if callable(text):
        return text()
    if isinstance(value, np.ndarray) or hasattr(value, "__cuda_array_interface__"):
        return repr(value.tolist()) if value.size <= 8 else _checksum(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{describe(k)}: {describe(v)}" for k, v in sorted(value.items(), key=repr)) + "}"
    if isinstance(value, (list, tuple, range)):
        if all(isinstance(x, numbers.Number) for x in value):      # ids: as an array of them
            return describe(np.asarray(value))
        return "[" + ", ".join(describe(x) for x in value) + "]"
    if isinstance(value, type) or inspect.isroutine(value):
        return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', type(value).__name__)}"
    return f"a {type(value).__module__}.{type(value).__qualname__}"


def whole(value) -> str:
    """An array compared element by element, however long (a permutation: one differing
    element renumbers a graph differently)."""
    return _checksum(np.asarray(value) if not hasattr(value, "__cuda_array_interface__") else value, None)


def dtype_name(value) -> str:
    """A dtype argument by the dtype it names (``int``, ``"int64"`` and ``np.int64`` agree)."""
    try:
        return "None" if value is None else np.dtype(value).name
    except TypeError:                # not a dtype: the call itself will say so
        return describe(value)


def share_or_scalar(value) -> str:
    """An array is each rank's own share (only its presence must agree); a scalar is for all."""
    return "an array of this rank's share" if np.ndim(value) > 0 else describe(value)


def _digest(texts) -> int:
    joined = "\x00".join(f"{name}={text}" for name, text in texts.items()).encode()
    return int.from_bytes(hashlib.blake2b(joined, digest_size=8).digest(), "little", signed=True)


def _comm_of(grid_or_comm):
    comm = getattr(grid_or_comm, "comm", grid_or_comm)
    return comm if comm.Get_size() > 1 else None


def agree_on(grid_or_comm, what: str, arguments: dict, describers=None) -> None:
    """Collective over a Grid (or an mpi4py communicator): raise InvalidValue on every rank
    unless every rank passed equal ``arguments`` (``{name: value}``) to the call ``what``.
    ``describers`` maps a name to its own :func:`describe` (e.g. :func:`share_or_scalar`)."""
    comm = _comm_of(grid_or_comm)
    if comm is None:
        return
    describers = describers or {}
    texts = {name: describers.get(name, describe)(value) for name, value in arguments.items()}
    mine = np.array([_digest(texts)], dtype=np.int64)
    everyone = np.empty(comm.Get_size(), dtype=np.int64)
    comm.Allgather(mine, everyone)
    if (everyone == mine[0]).all():
        return
    raise InvalidValue(_disagreement(what, comm.allgather(texts)))


def _disagreement(what: str, seen: list) -> str:
    differing = [name for name in seen[0] if len({texts.get(name) for texts in seen}) > 1]
    parts = []
    for name in differing:
        values = "; ".join(f"rank {rank}: {texts.get(name)}" for rank, texts in enumerate(seen))
        parts.append(f"{name} ({values})")
    return (f"{what} is collective and every rank must pass the same arguments, but the ranks "
            f"passed different {', '.join(parts)}")
