"""Beamer's push/pull rule, in one place: the level engine (``ld.bfs``), the multi-source
search (``ld.bfs_multi``) and the python-graphblas reference (``reference.bfs``) ask it each
level; the fused searches evaluate the same arithmetic on the rule's state inside their one
call (``ld_rule`` in ``kernels/fused.cu``, its compiled twin in ``local/cpu_kernels/fused.py``),
and ask it level by level only when its ``choose`` is replaced.

Go pull when the frontier's out-edges exceed the unexplored edges / ``alpha`` while the
frontier grows; go back to push when it holds fewer than n / ``beta`` vertices while it
shrinks. The unexplored count drops by the frontier's out-edges at each growing push level,
unless the caller knows it better and hands it over (the multi-source search: the out-edges
of the vertices that some search of the batch has still to reach).
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DirectionRule", "DIRECTIONS", "DEFAULT_ALPHA", "DEFAULT_BETA"]

DIRECTIONS = ("push", "pull", "auto")     # the order is the kernel's code (LD_RULE_*)
DEFAULT_ALPHA = 8.0
DEFAULT_BETA = 24.0


@dataclass
class DirectionRule:
    """The rule's parameters and its state over one search (``push``: the direction it is in,
    ``previous``: the last frontier size, 0 before the source's level; ``unexplored``: edges
    not yet counted as a frontier's)."""

    mode: str
    n: int
    unexplored: int
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA
    push: bool = True
    previous: int = 0

    def __post_init__(self):
        self.push = self.mode != "pull"

    @property
    def code(self) -> int:
        return DIRECTIONS.index(self.mode)

    def state(self) -> tuple[int, int, int]:
        """(push as 0 or 1, previous, unexplored): the state a compiled run takes and updates
        (the CPU's runs in an int64 array of these three)."""
        return int(self.push), self.previous, self.unexplored

    def set_state(self, push, previous, unexplored) -> None:
        """The state a run left (:meth:`state`'s three) back in the rule."""
        self.push, self.previous, self.unexplored = bool(push), int(previous), int(unexplored)

    @property
    def replaced(self) -> bool:
        """True when ``choose`` is not this class's own (a subclass's, or one set on the
        instance): a fused run can then not evaluate the rule's arithmetic itself, and must ask
        it level by level or not fuse at all."""
        return type(self).choose is not _STOCK_CHOOSE or "choose" in self.__dict__

    @staticmethod
    def stock() -> bool:
        """True while the class's ``choose`` is its own (a search that makes its rule of this
        class and asks it nothing, the queue search, may then run)."""
        return DirectionRule.choose is _STOCK_CHOOSE

    def choose(self, frontier_nvals, frontier_edges, unexplored=None) -> bool:
        """True for a push level. ``frontier_edges`` is a number or a function giving it (called
        only when the rule needs it). ``unexplored``: the caller's own count of the unexplored
        edges, which replaces the rule's (None: the rule counts them itself)."""
        if unexplored is not None:
            self.unexplored = unexplored
        if self.mode != "auto":
            return self.mode == "push"
        if self.previous == 0:          # the source alone: its edges are fewer than any pull reads
            self.previous = frontier_nvals
            return self.push
        growing = frontier_nvals > self.previous
        if self.push and growing:
            edges = frontier_edges() if callable(frontier_edges) else frontier_edges
            if unexplored is None:
                self.unexplored -= edges
            if edges > self.unexplored / self.alpha:
                self.push = False
        elif not self.push and not growing and frontier_nvals < self.n / self.beta:
            self.push = True
        self.previous = frontier_nvals
        return self.push


_STOCK_CHOOSE = DirectionRule.choose     # as defined here (a test may patch the class's)
