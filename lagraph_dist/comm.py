"""Collectives over the grid's row and column communicators, with their byte counts.

Every message is a sparse-vector piece on the wire: first its entry count travels (one int64
a peer), from which sender and receiver both derive the encoding by
:func:`lagraph_dist.local.prefers_bitmap`; then the pattern (list ids or bitmap words, as
uint32) and, when the receiver needs them, the values in increasing id order. Arrays of the
GPU backend are staged through the host. A communicator of one rank moves nothing.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lagraph_dist.grid import WORD_BITS
from lagraph_dist.local import LocalPart, prefers_bitmap

__all__ = ["Traffic", "allgather_parts", "alltoall_parts"]


@dataclass
class Traffic:
    """What one collective sent from this rank to the others."""

    bytes: int = 0
    encoding: str = "none"     # the encoding of this rank's outgoing pattern ("list", "bitmap", "mixed")


def _wire_pattern(part, backend):
    """(uint32 pattern, compact values) of a part in the encoding its size calls for."""
    if prefers_bitmap(part.nvals, part.length):
        part = part.to_bitmap(backend)
        compact = part.values[backend.kernels.list_from_bitmap(part.words, part.nvals)]
        return "bitmap", part.words, compact
    part = part.to_list(backend)
    return "list", part.ids.view(np.uint32), part.values


def _from_wire(count, pattern, values, length, backend):
    if prefers_bitmap(count, length):
        ids = backend.kernels.list_from_bitmap(pattern, count)
        dense = backend.xp.zeros(length, values.dtype)
        dense[ids] = values
        return LocalPart("bitmap", length, count, dense, words=pattern)
    return LocalPart.from_list(pattern.view(np.int32), values, length)


def _pattern_len(count, length):
    return length // WORD_BITS if prefers_bitmap(count, length) else count


def _bytes_of(array):
    return np.ascontiguousarray(array).view(np.uint8).reshape(-1)


def _typed(backend, raw, dtype):
    """Backend array of ``dtype`` from host bytes (copied, so it is aligned for its type)."""
    return backend.asarray(np.frombuffer(raw.tobytes(), dtype=dtype))


def _split(buffer, sizes):
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return [buffer[offsets[k]:offsets[k + 1]] for k in range(len(sizes))]


def allgather_parts(part, comm, backend, *, with_values, value_dtype):
    """Every member's part, in communicator-rank order (the expand of a product)."""
    if comm.Get_size() == 1:
        return [part], Traffic(0, "none")
    from mpi4py import MPI
    encoding, pattern, values = _wire_pattern(part, backend)
    counts = np.array(comm.allgather(part.nvals), dtype=np.int64)
    pattern_lens = [_pattern_len(c, part.length) for c in counts]
    value_size = np.dtype(value_dtype).itemsize if with_values else 0
    send = [_bytes_of(backend.to_host(pattern))]
    if with_values:
        send.append(_bytes_of(backend.to_host(values.astype(value_dtype, copy=False))))
    sendbuf = np.concatenate(send) if len(send) > 1 else send[0]
    sizes = [4 * p + value_size * c for p, c in zip(pattern_lens, counts)]
    recvbuf = np.empty(int(sum(sizes)), dtype=np.uint8)
    displs = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    comm.Allgatherv(sendbuf, [recvbuf, (sizes, displs), MPI.BYTE])
    parts = []
    for count, plen, chunk in zip(counts, pattern_lens, _split(recvbuf, sizes)):
        pat = _typed(backend, chunk[:4 * plen], np.uint32)
        vals = (_typed(backend, chunk[4 * plen:], value_dtype) if with_values
                else backend.xp.ones(int(count), dtype=value_dtype))
        parts.append(_from_wire(int(count), pat, vals, part.length, backend))
    sent = (comm.Get_size() - 1) * (sendbuf.nbytes + 8)
    return parts, Traffic(sent, encoding)


def alltoall_parts(pieces, comm, backend, *, value_dtype):
    """Send piece k to member k; returns what each member sent here (the fold of a product)."""
    size, me = comm.Get_size(), comm.Get_rank()
    if size == 1:
        return list(pieces), Traffic(0, "none")
    from mpi4py import MPI
    value_size = np.dtype(value_dtype).itemsize
    wires = [_wire_pattern(p, backend) for p in pieces]
    send_counts = np.array([p.nvals for p in pieces], dtype=np.int64)
    recv_counts = np.array(comm.alltoall(send_counts.tolist()), dtype=np.int64)
    length = pieces[0].length
    chunks, send_sizes = [], []
    for (_, pattern, values) in wires:
        raw = [_bytes_of(backend.to_host(pattern)), _bytes_of(backend.to_host(values.astype(value_dtype, copy=False)))]
        chunks.extend(raw)
        send_sizes.append(raw[0].nbytes + raw[1].nbytes)
    sendbuf = np.concatenate(chunks)
    recv_sizes = [4 * _pattern_len(c, length) + value_size * c for c in recv_counts]
    recvbuf = np.empty(int(sum(recv_sizes)), dtype=np.uint8)
    sdispl = np.concatenate([[0], np.cumsum(send_sizes)[:-1]]).astype(np.int64)
    rdispl = np.concatenate([[0], np.cumsum(recv_sizes)[:-1]]).astype(np.int64)
    comm.Alltoallv([sendbuf, (send_sizes, sdispl), MPI.BYTE], [recvbuf, (recv_sizes, rdispl), MPI.BYTE])
    received = []
    for count, chunk in zip(recv_counts, _split(recvbuf, recv_sizes)):
        plen = _pattern_len(int(count), length)
        received.append(_from_wire(int(count), _typed(backend, chunk[:4 * plen], np.uint32),
                                   _typed(backend, chunk[4 * plen:], value_dtype), length, backend))
    encodings = {w[0] for k, w in enumerate(wires) if k != me}
    sent = sum(s for k, s in enumerate(send_sizes) if k != me) + 8 * (size - 1)
    return received, Traffic(sent, encodings.pop() if len(encodings) == 1 else "mixed")


def route_to_owners(owner_rank, arrays, comm, backend):
    """Send element k of every array to rank ``owner_rank[k]`` (one Alltoallv per array).

    Returns the arrays of the elements this rank owns, concatenated in sender-rank order.
    Used by the constructors to move edges and vector entries to their owners.
    """
    size = comm.Get_size()
    if size == 1:
        return list(arrays)
    from mpi4py import MPI
    owner_rank = backend.to_host(owner_rank)
    order = np.argsort(owner_rank, kind="stable")
    send_counts = np.bincount(owner_rank, minlength=size).astype(np.int64)
    recv_counts = np.array(comm.alltoall(send_counts.tolist()), dtype=np.int64)
    received = []
    for array in arrays:
        host = np.ascontiguousarray(backend.to_host(array)[order])
        item = host.dtype.itemsize
        recv = np.empty(int(recv_counts.sum()) * item, dtype=np.uint8)
        sdispl = np.concatenate([[0], np.cumsum(send_counts)[:-1]]) * item
        rdispl = np.concatenate([[0], np.cumsum(recv_counts)[:-1]]) * item
        comm.Alltoallv([_bytes_of(host), (send_counts * item, sdispl), MPI.BYTE],
                       [recv, (recv_counts * item, rdispl), MPI.BYTE])
        received.append(backend.asarray(recv.view(host.dtype)))
    return received


def allgather_arrays(array, comm, backend):
    """Concatenate every rank's 1-D array, in rank order, on every rank (host numpy result)."""
    host = np.ascontiguousarray(backend.to_host(array))
    if comm.Get_size() == 1:
        return host
    from mpi4py import MPI
    counts = np.array(comm.allgather(host.nbytes), dtype=np.int64)
    recv = np.empty(int(counts.sum()), dtype=np.uint8)
    displs = np.concatenate([[0], np.cumsum(counts)[:-1]])
    comm.Allgatherv(_bytes_of(host), [recv, (counts, displs), MPI.BYTE])
    return recv.view(host.dtype)


def reduce_scatter_blocks(array, comm, backend):
    """Sum ``array`` (size members x block) over the communicator; member k keeps block k."""
    if comm.Get_size() == 1:
        return array
    from mpi4py import MPI
    host = np.ascontiguousarray(backend.to_host(array))
    block = host.shape[0] // comm.Get_size()
    out = np.empty(block, dtype=host.dtype)
    comm.Reduce_scatter_block(host, out, op=MPI.SUM)
    return backend.asarray(out)
