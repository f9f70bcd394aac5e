"""Pieces the MPI check scripts share (they import it from their own folder)."""
import argparse
import contextlib
from pathlib import Path

import lagraph_dist.algebra.matrix as matrix_module


def grid_arguments(doc):
    """The arguments every check takes: the grid's shape, which graphs, and their folder."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("rows", type=int)
    parser.add_argument("cols", type=int)
    parser.add_argument("which", choices=("generated", "real"))
    parser.add_argument("folder", type=Path, help="scratch folder (generated) or data folder (real)")
    return parser


def gathered(grid, A):
    """The whole matrix as scipy on every rank (gathered to rank 0, then broadcast)."""
    return grid.comm.bcast(A.to_scipy(root=0), root=0)


def expect_error(me, exc_type, func, /, *args, **kwargs):
    """``func(*args, **kwargs)`` must raise ``exc_type`` on this rank (``me``, the grid: its
    arguments may name a ``grid`` of their own); returns the message."""
    try:
        func(*args, **kwargs)
    except exc_type as exc:
        return str(exc)
    raise AssertionError(f"rank {me.rank}: {func.__name__} did not raise {exc_type.__name__}")


@contextlib.contextmanager
def small_edge_chunks(edges):
    """Builds from edge chunks (permuted) take ``edges`` edges at a time, as a huge graph would."""
    saved = matrix_module.EDGES_PER_CHUNK
    matrix_module.EDGES_PER_CHUNK = edges
    try:
        yield
    finally:
        matrix_module.EDGES_PER_CHUNK = saved
