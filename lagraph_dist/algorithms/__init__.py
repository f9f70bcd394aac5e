"""Graph algorithms written only with the public algebra."""
from lagraph_dist.algorithms.bfs import BFSResult, bfs
from lagraph_dist.algorithms.bfs_multi import MultiBFSResult, bfs_multi
from lagraph_dist.algorithms.centrality import betweenness_centrality
from lagraph_dist.algorithms.components import connected_components, number_connected_components
from lagraph_dist.algorithms.distances import closeness_centrality, eccentricity
from lagraph_dist.algorithms.ordering import sort_by_degree
from lagraph_dist.algorithms.paths import bfs_path, bfs_paths

__all__ = ["bfs", "BFSResult", "bfs_multi", "MultiBFSResult", "bfs_path", "bfs_paths", "sort_by_degree",
           "betweenness_centrality", "closeness_centrality", "eccentricity", "connected_components",
           "number_connected_components"]
