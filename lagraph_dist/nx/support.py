"""What the backend cannot honour (``can_run``) and when running here does not pay
(``should_run``), function by function.

networkx asks ``can_run(name, args, kwargs)`` before converting anything, with the arguments as
the caller passed them. A False (here: a string saying why, which networkx logs) sends an
automatically dispatched call (``nx.config.backend_priority``) to the next backend or networkx
itself; with ``backend="lagraph_dist"`` networkx raises NotImplementedError instead, and in its
test mode the test falls back to networkx (``NETWORKX_FALLBACK_TO_NX``) or is marked xfail.
"""
from __future__ import annotations

import inspect
import numbers

from lagraph_dist.nx import algorithms

BACKEND_NAME = "lagraph_dist"


def _number(value) -> bool:
    return isinstance(value, numbers.Real)


def _limit(value, what):
    """None or a reason: a depth limit or cutoff must be None or a number."""
    if value is None or _number(value):
        return None
    return f"{what}={value!r} is not a number"


def _bfs_rules(args):
    if args["sort_neighbors"] is not None:
        return "sort_neighbors orders each node's neighbours; the backend follows G's adjacency order"
    return _limit(args["depth_limit"], "depth_limit")


def _unweighted_pair_rules(args):
    if args["weight"] is not None:
        return "weighted shortest paths are not built (the backend searches hop by hop)"
    return None


def _betweenness_rules(args):
    if args["weight"] is not None:
        return "weighted betweenness is not built (Brandes's sweeps here are breadth-first)"
    k, G = args["k"], args["G"]
    if k is not None and (isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 1 <= k <= len(G)):
        return f"k={k!r} is not a number of sources from 1 to the number of nodes (networkx raises its own error)"
    return None


#: name -> rule(bound arguments) -> None when the backend can run the call, else the reason.
RULES = {
    "bfs_edges": _bfs_rules,
    "bfs_tree": _bfs_rules,
    "bfs_predecessors": _bfs_rules,
    "bfs_successors": _bfs_rules,
    "bfs_layers": lambda a: None,
    "descendants_at_distance": lambda a: _limit(a["distance"], "distance"),
    "single_source_shortest_path_length": lambda a: _limit(a["cutoff"], "cutoff"),
    "single_target_shortest_path_length": lambda a: _limit(a["cutoff"], "cutoff"),
    "all_pairs_shortest_path_length": lambda a: _limit(a["cutoff"], "cutoff"),
    "single_source_shortest_path": lambda a: _limit(a["cutoff"], "cutoff"),
    "single_target_shortest_path": lambda a: _limit(a["cutoff"], "cutoff"),
    "all_pairs_shortest_path": lambda a: _limit(a["cutoff"], "cutoff"),
    "shortest_path_length": _unweighted_pair_rules,
    "shortest_path": _unweighted_pair_rules,
    "has_path": lambda a: None,
    "connected_components": lambda a: None,
    "number_connected_components": lambda a: None,
    "is_connected": lambda a: None,
    "node_connected_component": lambda a: None,
    "betweenness_centrality": _betweenness_rules,
    "closeness_centrality": lambda a: ("weighted closeness (distance=) is not built"
                                       if a["distance"] is not None else None),
    "eccentricity": lambda a: ("sp= (precomputed lengths) and weight= run in networkx"
                               if a["sp"] is not None or a["weight"] is not None else None),
}


def _bound(name, args, kwargs):
    """The call's arguments by name, defaults filled in (None when they do not bind: networkx
    will raise the caller's TypeError itself)."""
    try:
        bound = inspect.signature(getattr(algorithms, name)).bind(*args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    return bound.arguments


def can_run(name, args, kwargs):
    """True when the backend runs this call as networkx would; else a string saying why not."""
    rule = RULES.get(name)
    if rule is None:
        return f"{name} is not dispatched to {BACKEND_NAME}"
    arguments = _bound(name, args, kwargs)
    if arguments is None:
        return "the arguments do not fit the function's signature"
    reason = rule(arguments)
    return True if reason is None else reason


#: Functions whose work, with these arguments, stays within the source's neighbours.
_SHALLOW = {"bfs_edges": "depth_limit", "bfs_tree": "depth_limit", "bfs_predecessors": "depth_limit",
            "bfs_successors": "depth_limit", "descendants_at_distance": "distance",
            "single_source_shortest_path_length": "cutoff", "single_target_shortest_path_length": "cutoff",
            "single_source_shortest_path": "cutoff", "single_target_shortest_path": "cutoff"}


def _converted(G) -> bool:
    """Whether networkx already holds a conversion of G for this backend (or G is ours)."""
    if getattr(G, "__networkx_backend__", None) == BACKEND_NAME:
        return True
    cache = getattr(G, "__networkx_cache__", None) or {}
    return bool(cache.get("backends", {}).get(BACKEND_NAME))


def _config(key, default):
    import networkx as nx
    try:
        return nx.config.backends[BACKEND_NAME][key]
    except (AttributeError, KeyError, TypeError):
        return default


def should_run(name, args, kwargs):
    """Whether running here pays, for automatic dispatch (``backend=`` always runs here): not for
    a networkx graph with fewer edges than ``nx.config.backends.lagraph_dist.min_edges``, nor
    for a search of depth <= 1 on a graph not yet converted (converting reads every edge, the
    search only the source's)."""
    arguments = _bound(name, args, kwargs)
    if arguments is None:
        return True
    G = arguments.get("G")
    if G is None or _converted(G):
        return True
    if G.number_of_edges() < _config("min_edges", 0):
        return "the graph has fewer edges than nx.config.backends.lagraph_dist.min_edges"
    limit = arguments.get(_SHALLOW.get(name, ""), None)
    if limit is not None and _number(limit) and limit <= 1:
        return "a search of depth <= 1 reads fewer edges than converting the graph does"
    return True
