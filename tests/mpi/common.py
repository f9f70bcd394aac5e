"""Pieces the MPI check scripts share (they import it from their own folder)."""
import argparse
import contextlib
import time
from pathlib import Path

import lagraph_dist as ld
import lagraph_dist.algebra.matrix as matrix_module
import lagraph_dist.comm.grid as grid_module


def parse_shapes(tokens):
    """The grid shapes a check's command line names: ``R C`` (one grid, as the scripts always
    took) or ``RxC [RxC ...]`` (several, checked one after another in one start of the ranks)."""
    tokens = [str(t) for t in tokens]
    if len(tokens) == 2 and all(t.isdigit() for t in tokens):
        return [(int(tokens[0]), int(tokens[1]))]
    shapes = []
    for token in tokens:
        rows, x, cols = token.partition("x")
        if not (x and rows.isdigit() and cols.isdigit()):
            raise SystemExit(f"grid shapes are 'R C' or 'RxC [RxC ...]', got {' '.join(tokens)!r}")
        shapes.append((int(rows), int(cols)))
    return shapes


def grid_arguments(doc):
    """The arguments every check takes: the grid shapes (``R C`` or ``RxC [RxC ...]``: read
    them with ``parse_shapes(args.shape)``), which graphs, and their folder."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("shape", nargs="+", metavar="SHAPE", help="R C, or RxC [RxC ...]")
    parser.add_argument("which", choices=("generated", "real"))
    parser.add_argument("folder", type=Path, help="scratch folder (generated) or data folder (real)")
    return parser


def wait_for_all(comm):
    """A barrier whose waiting ranks sleep between looks (a blocking one spins, taking the
    cores from the ranks still at work)."""
    request = comm.Ibarrier()
    while not request.Test():
        time.sleep(0.002)


@contextlib.contextmanager
def default_grid_as(grid):
    """Calls given no grid (``ld.bfs`` of a scipy matrix, ...) use ``grid``, not all of
    COMM_WORLD (whose other ranks are waiting for the next shape)."""
    saved = grid_module._default
    grid_module._default = grid
    try:
        yield
    finally:
        grid_module._default = saved


def on_grids(shapes, check, *, make_grid=None):
    """``check(grid)`` on each R x C grid of ``shapes`` in turn, in one start of the ranks: the
    grid takes the first R*C ranks of COMM_WORLD (a communicator of their own, also the default
    grid meanwhile), the other ranks sleep until it is done. A failure names the grid. Each rank
    prints ``rank K ok`` once at the end. ``make_grid(rows, cols, comm)`` makes the grid, or
    returns None to skip that shape (default: ``ld.Grid(rows, cols, comm=comm)``)."""
    from mpi4py import MPI
    world = MPI.COMM_WORLD
    needed = max(rows * cols for rows, cols in shapes)
    if world.size < needed:
        raise SystemExit(f"grids {' '.join(f'{r}x{c}' for r, c in shapes)} need {needed} ranks, "
                         f"started on {world.size}")
    for rows, cols in shapes:
        members = world.Split(0 if world.rank < rows * cols else MPI.UNDEFINED, world.rank)
        if members != MPI.COMM_NULL:
            try:
                grid = (make_grid or _plain_grid)(rows, cols, members)
                if grid is not None:
                    with default_grid_as(grid):
                        check(grid)
                    grid.comm.Barrier()
            except Exception as exc:
                raise AssertionError(f"grid {rows}x{cols}, rank {members.rank} of it: "
                                     f"{type(exc).__name__}: {exc}") from exc
            members.Free()
        wait_for_all(world)
    print(f"rank {world.rank} ok", flush=True)


def _plain_grid(rows, cols, comm):
    return ld.Grid(rows, cols, comm=comm)


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
