"""The backend's metadata for networkx (the ``networkx.backend_info`` entry point).

networkx calls :func:`get_info` while it is imported, to list the backend in each function's
docstring and to make ``nx.config.backends.lagraph_dist``; so this module imports neither
networkx nor the engine.
"""
from __future__ import annotations

#: The functions dispatched here, each with what it leaves to networkx (shown under
#: "Backends" in networkx's docstring of the function).
FUNCTIONS = {
    "bfs_edges": "sort_neighbors runs in networkx.",
    "bfs_tree": "sort_neighbors runs in networkx.",
    "bfs_predecessors": "sort_neighbors runs in networkx.",
    "bfs_successors": "sort_neighbors runs in networkx.",
    "bfs_layers": "",
    "descendants_at_distance": "",
    "single_source_shortest_path_length": "",
    "single_target_shortest_path_length": "",
    "all_pairs_shortest_path_length": "Multi-source searches, up to 512 sources a call.",
    "single_source_shortest_path": "",
    "single_target_shortest_path": "",
    "all_pairs_shortest_path": "",
    "shortest_path_length": "Unweighted only (weight runs in networkx).",
    "shortest_path": "Unweighted only (weight runs in networkx). "
                     "With a source and a target, the path is a shortest one, not always networkx's.",
    "has_path": "",
    "connected_components": "",
    "number_connected_components": "",
    "is_connected": "",
    "node_connected_component": "",
    "betweenness_centrality": "Unweighted only (weight runs in networkx); k sampled as networkx samples.",
    "closeness_centrality": "Unweighted only (distance runs in networkx).",
    "eccentricity": "Unweighted only (sp and weight run in networkx).",
}


def get_info() -> dict:
    """What networkx reads about the backend: its name, project, summary, the functions it
    runs and its configuration (``nx.config.backends.lagraph_dist``)."""
    return {
        "backend_name": "lagraph_dist",
        "project": "lagraph-dist",
        "package": "lagraph_dist",
        "short_summary": "GraphBLAS-style breadth-first searches on CPU (numba) and GPU (CuPy).",
        "functions": {name: ({"additional_docs": note} if note else {}) for name, note in FUNCTIONS.items()},
        "default_config": {
            # which engine backend a converted graph lives on: "auto" (GPU when CuPy sees one), "cpu", "gpu"
            "backend": "auto",
            # should_run declines networkx graphs with fewer edges than this (automatic dispatch only)
            "min_edges": 0,
        },
    }
