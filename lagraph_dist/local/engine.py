"""The engine boundary: what the algebra asks of a backend's kernel set, and the records the two
kernel sets (:mod:`lagraph_dist.local.cpu_kernels`, :mod:`lagraph_dist.local.gpu_kernels`) share.

(The typed interface itself is added beside these records; see the module's ``Kernels``.)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["MULTI_FUSED_MAX_WIDTH", "MultiFusedRun", "MULTI_RECORD_FIELDS"]

#: searches one fused multi-source run carries at most: 8 uint64 words a vertex
MULTI_FUSED_MAX_WIDTH = 512

#: the columns of MultiFusedRun.counts, one row a level run
MULTI_RECORD_FIELDS = ("frontier", "discovered", "examined", "push", "vertices")


@dataclass
class MultiFusedRun:
    """What one fused multi-source run returns.

    ``levels`` / ``parents``: (rows, k) int32 arrays on the backend's device (None when not
    asked for), row v column i the level / parent (global id) of vertex v in search i, -1 where
    search i did not reach v. ``counts``: int64 numpy (levels run, 5), columns
    :data:`MULTI_RECORD_FIELDS`: the level's input entries ((search, vertex) pairs), entries
    discovered, matrix entries read, 1 for a push level / 0 for pull, and the vertices of the
    next frontier (those with some search's bit). ``seconds``: float64 numpy (levels run,), each
    level's own time by ``clock``.
    """

    levels: object
    parents: object
    counts: np.ndarray
    seconds: np.ndarray
    clock: str
