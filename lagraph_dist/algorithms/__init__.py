"""Graph algorithms written only with the public algebra."""
from lagraph_dist.algorithms.bfs import BFSResult, bfs

__all__ = ["bfs", "BFSResult"]
