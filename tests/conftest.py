"""Test configuration. Markers (gpu, mpi, slow) are declared in pyproject.toml."""
import os
import sys
from pathlib import Path

from hypothesis import settings

# tests/helpers.py is imported as a plain module by the test files.
sys.path.insert(0, str(Path(__file__).resolve().parent))

import helpers  # noqa: E402  (after the path above)


def _launches_cpu_ranks(item):
    return item.get_closest_marker("mpi") is not None and item.get_closest_marker("gpu") is None


def pytest_collection_modifyitems(session, config, items):
    """The mpiexec tests run last (in their own order): the tests of this process run first,
    while numba's cache fills beside them, and the ranks find it full."""
    items.sort(key=lambda item: item.get_closest_marker("mpi") is not None)


def pytest_collection_finish(session):
    """A session with mpiexec tests on the CPU fills numba's cache beside its first tests."""
    if any(map(_launches_cpu_ranks, session.items)) and helpers.mpi_launcher() is not None:
        helpers.start_filling_kernel_cache()


def pytest_sessionfinish(session):
    helpers.stop_filling_kernel_cache()


# CI: reproducible examples (same every run) and no per-example deadline on a slow machine.
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
