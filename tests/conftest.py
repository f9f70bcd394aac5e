"""Test configuration. Markers (gpu, mpi, slow) are declared in pyproject.toml."""
import os
import sys
from pathlib import Path

from hypothesis import settings

# tests/helpers.py is imported as a plain module by the test files.
sys.path.insert(0, str(Path(__file__).resolve().parent))


def pytest_collection_modifyitems(session, config, items):
    """The mpiexec tests run last (in their own order): the tests of this process compile the
    CPU kernels first, once, and the ranks find them in numba's cache
    (:func:`helpers.fill_kernel_cache` adds the few no test here ran)."""
    items.sort(key=lambda item: item.get_closest_marker("mpi") is not None)


# CI: reproducible examples (same every run) and no per-example deadline on a slow machine.
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
