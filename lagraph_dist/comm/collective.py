"""The decorator of the public collectives: their named arguments agree on every rank.

``@collective("source", "direction")`` on a function checks, before each call on a grid of
several ranks, that every rank passed the same source and direction
(:func:`lagraph_dist.comm.agreement.agree_on`: one allgather of an 8-byte digest), raising
InvalidValue on every rank naming what differs. A call made inside a checked call (``ld.bfs``
inside the command line's ``bench``, ``to_numpy`` inside ``validate``) is not checked again: the
outer call's arguments decide the inner ones. In a process where every grid is of one rank
(``grid.several_rank_grids()``), a call goes straight through: that check found the call's grid
and its size a wrapper at a time, about 2 us, six times in an ``ld.bfs`` call.
"""
from __future__ import annotations

import functools
import inspect
import threading

from lagraph_dist.comm.agreement import agree_on
from lagraph_dist.comm import grid as grid_module
from lagraph_dist.comm.grid import Grid, default_grid

__all__ = ["collective"]

_inside = threading.local()        # .depth: 1 while a checked call runs on this thread


def _grid_in(args, kwargs):
    """The grid of a call: the first argument that is a Grid or lives on one (a Matrix, a
    Vector, a result), else its ``grid=`` argument; None when neither is given."""
    for value in (*args, *kwargs.values()):
        if isinstance(value, Grid):
            return value
        grid = getattr(value, "grid", None)
        if isinstance(grid, Grid):
            return grid
    return None


def collective(*names, what: str | None = None, **describers):
    """Decorate a public collective: the arguments ``names`` (and those of ``describers``,
    each compared by its own describer instead of
    :func:`~lagraph_dist.comm.agreement.describe`) must be equal on every rank, checked before
    the call runs (:func:`agree_on`). The call's grid is the first argument that is or has a
    Grid, else its ``grid=``, else the default grid. ``what`` names the call in the error
    (default: its qualified name)."""
    def decorate(func):
        signature = inspect.signature(func)
        checked = tuple(names) + tuple(describers)
        for name in checked:
            if name not in signature.parameters:
                raise TypeError(f"{func.__qualname__} has no argument {name!r} to agree on")
        label = what or func.__qualname__

        @functools.wraps(func)
        def call(*args, **kwargs):
            if not grid_module.several_rank_grids() or getattr(_inside, "depth", 0):
                return func(*args, **kwargs)     # (every grid of this process is of one rank)
            grid = _grid_in(args, kwargs)
            if grid is None:
                grid = default_grid()
            if grid.size == 1:
                return func(*args, **kwargs)
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError:            # the call itself will say what is wrong, on every rank
                return func(*args, **kwargs)
            bound.apply_defaults()
            agree_on(grid, label, {name: bound.arguments[name] for name in checked}, describers)
            _inside.depth = 1
            try:
                return func(*args, **kwargs)
            finally:
                _inside.depth = 0
        call.agreed_arguments = checked
        return call
    return decorate
