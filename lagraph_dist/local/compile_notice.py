"""Saying when the CPU kernels compile.

numba compiles a kernel on its first call with new argument types and keeps the machine code
in its disk cache, so only a fresh install (or a new numba) pays: tens of seconds for the
first search of a kind on a 2-core machine. That wait is not silent: the first compile of one
of our kernels in a process prints one line on stderr (what compiles, about how long it takes,
where the cache goes), and every compile of ours is written to the log beside the cache with
its seconds (also to the ``lagraph_dist.compile`` logger). Under MPI the first rank of each
host speaks. Loads from the cache say nothing: numba raises its compile event only when it
compiles.
"""
from __future__ import annotations

import logging
import os
import sys
import time

from numba.core import config as numba_config
from numba.core import event

__all__ = ["install", "LOG_NAME", "ABOUT"]

LOG_NAME = "lagraph_dist-compile.log"
#: what one kind of search costs to compile the first time, on a 2-core machine (measured:
#: a single search's fused kernel ~12 s, a graph build's sort ~6 s, a grid's push, pull and
#: fold 10-25 s each)
ABOUT = "about 10-30 s a kind of search on 2 cores"
_logger = logging.getLogger("lagraph_dist.compile")
_PACKAGE = __name__.split(".")[0]


def _speaks() -> bool:
    """Whether this process is the first MPI rank of its host (or runs alone)."""
    for name in ("MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK"):
        if os.environ.get(name) not in (None, "", "0"):
            return False
    return True


def _cache_folder(dispatcher) -> str | None:
    return getattr(getattr(dispatcher, "_cache", None), "cache_path", None)


def _cache_root(folder) -> str:
    """Where numba keeps the kernels: $NUMBA_CACHE_DIR when set, else the package's own
    ``__pycache__`` folders (or numba's per-user folder where the package is read-only)."""
    if numba_config.CACHE_DIR:
        return numba_config.CACHE_DIR
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return f"the __pycache__ folders of {package}" if folder.startswith(package) else os.path.dirname(folder)


class _CompileNotice(event.Listener):
    """Times each outermost compile (a kernel's inlined callees compile inside it) and says
    the first one of ours."""

    def __init__(self):
        self.depth = 0
        self.log = None          # the log's path: in the folder of this process's first compile
        self.current = None

    def on_start(self, ev):
        self.depth += 1
        if self.depth > 1:
            return
        dispatcher = ev.data["dispatcher"]
        name = f"{dispatcher.py_func.__module__}.{dispatcher.py_func.__qualname__}"
        self.current = (name, time.perf_counter()) if name.startswith(_PACKAGE) else None
        if self.current is not None and self.log is None:
            folder = _cache_folder(dispatcher) or "."
            self.log = os.path.join(folder, LOG_NAME)
            if _speaks():
                print(f"lagraph_dist: compiling the CPU kernels with numba on their first use ({ABOUT}; "
                      f"once: numba caches them under {_cache_root(folder)}; log: {self.log})",
                      file=sys.stderr, flush=True)

    def on_end(self, ev):
        self.depth -= 1
        if self.depth or self.current is None:
            return
        name, started = self.current
        self.current = None
        line = f"compiled {name} in {time.perf_counter() - started:.1f} s"
        _logger.info(line)
        try:
            with open(self.log, "a") as log:
                log.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} pid {os.getpid()} {line}\n")
        except OSError:              # a read-only cache folder: the logger still has it
            pass


_listener = None


def install():
    """Listen to numba's compile events (once a process; every module of kernels calls it)."""
    global _listener
    if _listener is None:
        _listener = _CompileNotice()
        event.register("numba:compile", _listener)
