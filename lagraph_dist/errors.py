"""One exception type per failure kind, all under :class:`LagraphDistError`.

They subclass the matching builtin too (``IndexOutOfBound`` is an ``IndexError``), so callers
that catch ``ValueError`` or ``IndexError`` keep working.
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
