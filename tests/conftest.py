"""Test configuration. Markers (gpu, mpi, slow) are declared in pyproject.toml."""
import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# tests/helpers.py is imported as a plain module by the test files.
sys.path.insert(0, str(Path(__file__).resolve().parent))

import helpers  # noqa: E402  (after the path above)


@pytest.fixture(autouse=True)
def searches_where_the_graph_lives():
    """Every test's searches and components run on their matrix's backend: the GPU tests' graphs
    are small, and would otherwise be searched and labelled by the host's kernels
    (``ld.settings.host_search_edges``), leaving the device's untested. tests/test_host_engine.py
    sets the threshold itself."""
    import lagraph_dist as ld
    with ld.settings.changed(host_search_edges=0):
        yield


@pytest.fixture
def fused_single_searches():
    """``ld.bfs`` on the CPU runs the fused search, not the queue search a small graph gets by
    default (``ld.settings.queue_search_edges``): for the tests of the fused search's records,
    rule and plan, whose graphs are small."""
    import lagraph_dist as ld
    with ld.settings.changed(queue_search_edges=0):
        yield


@pytest.fixture(scope="module")
def fused_searches_in_module():
    """:func:`fused_single_searches` for a whole module of tests of the fused search (its
    hypothesis tests too, which take no function-scoped fixture)."""
    import lagraph_dist as ld
    with ld.settings.changed(queue_search_edges=0):
        yield


def pytest_collection_modifyitems(session, config, items):
    """The mpiexec tests run last (in their own order): the tests of this process run first,
    while numba's cache fills beside them, and the ranks find it full."""
    items.sort(key=lambda item: item.get_closest_marker("mpi") is not None)


def pytest_configure(config):
    """The session names its filling of numba's cache with every CPU kernel, when mpiexec is
    here, for its mpiexec tests (which come last; the first of them starts it, in a process of
    its own); unless only GPU tests are asked for (their ranks run few CPU kernels). The
    session's own process names it: a pytest-xdist worker (which runs this hook too) inherits
    the name. Each process of the session then compiles a kernel only while no other does
    (:func:`helpers.compile_one_process_at_a_time`)."""
    if not hasattr(config, "workerinput") and helpers.mpi_launcher() is not None and \
            config.getoption("markexpr", "").strip() not in ("gpu", "multigpu"):
        helpers.start_filling_kernel_cache()
    helpers.compile_one_process_at_a_time()      # (nothing where the session named no filling)


def pytest_unconfigure(config):
    """A filling still running when its process ends (no mpiexec test waited for it) is stopped;
    the session's own process removes its folder."""
    helpers.stop_filling_kernel_cache(session=not hasattr(config, "workerinput"))


# CI: reproducible examples (same every run) and no per-example deadline on a slow machine.
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
