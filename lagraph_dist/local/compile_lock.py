"""Compiling each CPU kernel once a host, not once a process.

numba looks a kernel up in its disk cache, and on a miss compiles it and saves it. Processes
that start together on one host (the ranks of an ``mpiexec`` job, the workers of a test run)
all miss at once and all compile the same kernels side by side: on a fresh install, 4 ranks on
2 cores take twice as long as one rank to reach their first search, for code that any one of
them could have compiled for all. So the outermost compile of one of our cached kernels takes
a lock file beside the kernel's cache entry first (``flock``, released as the compile returns
or fails, and by the system when a process dies). A process that finds the lock held waits;
when it gets the lock, numba's look-up finds what the holder saved and loads it.

Only a thread's outermost compile takes a lock, before numba's compiler lock: a kernel's
callees compile inside it with none, so no thread holds one lock while waiting for another. A
kernel without a disk cache, a folder where no lock file can be made, or a system without
``fcntl`` compiles as numba would.
"""
from __future__ import annotations

import os
import re
import threading

from numba.core import dispatcher as numba_dispatcher
from numba.core import sigutils

try:
    import fcntl
except ImportError:          # (not on Windows: each process compiles what it misses)
    fcntl = None

__all__ = ["install", "lock_path"]

_PACKAGE = __name__.split(".")[0]
_inside = threading.local()       # how many compiles this thread is inside
_numba_compile = None             # numba's own Dispatcher.compile, once installed


def lock_path(dispatcher) -> str | None:
    """The lock file of ``dispatcher``'s compiles: beside its disk cache's entries, named by its
    function; None for a kernel without a disk cache."""
    folder = getattr(getattr(dispatcher, "_cache", None), "cache_path", None)
    if folder is None:
        return None
    function = dispatcher.py_func
    name = re.sub(r"[^\w.]", "_", f"{function.__module__}.{function.__qualname__}")
    return os.path.join(folder, f"{name}.compile-lock")


def _compile_once_a_host(self, sig):
    """numba's ``Dispatcher.compile``, under the kernel's lock file where it is one of ours, not
    yet in this process, and this is the thread's outermost compile (of any function: a thread
    inside a compile holds numba's compiler lock, which the lock's holder may need)."""
    depth = getattr(_inside, "depth", 0)
    path = None
    if depth == 0 and self.py_func.__module__.startswith(_PACKAGE) and \
            tuple(sigutils.normalize_signature(sig)[0]) not in self.overloads:
        path = lock_path(self)
    _inside.depth = depth + 1
    try:
        if path is None:
            return _numba_compile(self, sig)
        return _locked(path, self, sig)
    finally:
        _inside.depth = depth


def _locked(path, dispatcher, sig):
    """numba's compile of ``dispatcher`` for ``sig`` under the lock file ``path``, where one can
    be made and taken."""
    try:
        handle = open(path, "a")
    except OSError:              # (a read-only cache folder: numba's own look-up decides)
        return _numba_compile(dispatcher, sig)
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)      # (released when the file closes)
        except OSError:          # (a file system without locks)
            pass
        return _numba_compile(dispatcher, sig)


def install():
    """Put the lock around numba's compiles (once a process; :mod:`compile_notice` calls it, so
    every module of kernels does)."""
    global _numba_compile
    if _numba_compile is not None or fcntl is None:
        return
    _numba_compile = numba_dispatcher.Dispatcher.compile
    numba_dispatcher.Dispatcher.compile = _compile_once_a_host
