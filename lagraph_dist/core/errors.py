"""One exception type per failure kind, all under :class:`LagraphDistError`.

They subclass the matching builtin too (``IndexOutOfBound`` is an ``IndexError``, ``MissingFile``
a ``FileNotFoundError``), so callers that catch ``ValueError``, ``IndexError`` or ``OSError`` keep
working. :func:`open_file` opens a file the caller named, raising a :class:`FileError` of the
right kind when it cannot.
"""


class LagraphDistError(Exception):
    """Base class of every error this package raises on purpose."""


class InvalidValue(LagraphDistError, ValueError):
    """An argument has the right type but a value that makes no sense (negative scale, NaN id)."""


class IndexOutOfBound(LagraphDistError, IndexError):
    """A vertex id lies outside ``[0, n)``."""


class DimensionMismatch(LagraphDistError, ValueError):
    """Operands whose sizes or grids do not agree."""


class DomainMismatch(LagraphDistError, TypeError):
    """An argument of the wrong type (floats given as vertex ids, a monoid where a semiring goes)."""


class MatrixMarketError(LagraphDistError, ValueError):
    """A Matrix Market file that is malformed, truncated, or of a kind we do not read."""


class ValidationError(LagraphDistError):
    """A BFS result that breaks the Graph500 rules."""


class OutOfDeviceMemory(LagraphDistError, MemoryError):
    """A graph that would not fit on the device; raised before allocating."""


class OutOfHostMemory(LagraphDistError, MemoryError):
    """A graph that would not fit in the host's available memory (CPU backend); raised before
    allocating."""


class CupyUnusableWarning(RuntimeWarning):
    """CuPy is installed but cannot run here (no driver, wrong CUDA, no device), so
    ``backend="auto"`` falls back to the CPU backend. The message gives CuPy's reason."""


class MissingDependency(LagraphDistError, ImportError):
    """An optional package a feature needs is not installed; the message names the extra."""


class Unsupported(LagraphDistError):
    """Something valid this engine or installation cannot do: a GraphBLAS form it does not run
    (an accumulator or operator it lacks), or a conversion whose package is not installed.
    The message names what is missing and what is supported."""


class FileError(LagraphDistError, OSError):
    """A file the caller named cannot be opened, read or written (a directory where a file was
    expected, an I/O error). The message names the file and what was being done; ``errno``,
    ``strerror`` and ``filename`` are the operating system's."""

    def __str__(self):
        # the message alone (OSError would print "[Errno 2] ...: 'path'" once filename is set)
        return str(self.args[0]) if len(self.args) == 1 else OSError.__str__(self)


class MissingFile(FileError, FileNotFoundError):
    """A file to read (or the folder of one to write) does not exist."""


class FileAccessDenied(FileError, PermissionError):
    """The file's (or its folder's) permissions forbid reading or writing it."""


def file_error(exc: OSError, doing: str) -> FileError:
    """The :class:`FileError` of the kind of ``exc``, saying "cannot ``doing``: the reason".
    Raise it ``from exc``."""
    kind = (MissingFile if isinstance(exc, FileNotFoundError)
            else FileAccessDenied if isinstance(exc, PermissionError) else FileError)
    reason = exc.strerror or str(exc)
    error = kind(f"cannot {doing}: {reason[:1].lower()}{reason[1:]}")
    error.errno, error.strerror, error.filename = exc.errno, exc.strerror, exc.filename
    return error


def open_file(path, mode: str = "r", *, doing: str, opener=None, **options):
    """``opener(path, mode, **options)`` (default: the builtin ``open``), a file object, or the
    :class:`FileError` of why not. ``doing`` says what for, as in "read Matrix Market file g.mtx"."""
    try:
        return (opener or open)(path, mode, **options)
    except OSError as exc:
        raise file_error(exc, doing) from exc
