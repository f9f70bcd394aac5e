"""Graph500 checks of a BFS result (the function lives in :mod:`lagraph_dist.validate`)."""
from lagraph_dist.validate import validate

__all__ = ["validate"]
