"""The functions networkx dispatches to lagraph_dist, with networkx's signatures, results and
errors.

Each takes a :class:`~lagraph_dist.nx.graph.LagraphGraph` (networkx converts its graph first)
and the other arguments as networkx's function does; :mod:`lagraph_dist.nx.support` has already
declined the arguments it cannot honour (weights, ``sort_neighbors``, ...), so networkx ran
those itself. The answers are networkx's types keyed by node, in networkx's order: trees,
layers and paths from one source come from :func:`lagraph_dist.nx.order.search` (the engine's
levels in networkx's breadth-first order), distances and components from the engine alone.
Generators stay generators, so that a missing node raises where networkx's would: at the first
``next``.
"""
from __future__ import annotations

import random

import networkx as nx
import numpy as np

from lagraph_dist.algorithms.bfs import bfs
from lagraph_dist.algorithms.bfs_multi import bfs_multi
from lagraph_dist.algorithms.centrality import betweenness_centrality as ld_betweenness_centrality
from lagraph_dist.algorithms.components import connected_components as ld_connected_components
from lagraph_dist.algorithms.components import number_connected_components as ld_number_connected_components
from lagraph_dist.algorithms.distances import closeness_centrality as ld_closeness_centrality
from lagraph_dist.algorithms.distances import eccentricity as ld_eccentricity
from lagraph_dist.algorithms.paths import bfs_path
from lagraph_dist.core.errors import InvalidValue

from lagraph_dist.nx.order import depth_of, levels_from, search

__all__ = [
    "bfs_edges", "bfs_tree", "bfs_predecessors", "bfs_successors", "bfs_layers",
    "descendants_at_distance", "single_source_shortest_path_length",
    "single_target_shortest_path_length", "all_pairs_shortest_path_length", "single_source_shortest_path",
    "single_target_shortest_path", "all_pairs_shortest_path", "shortest_path_length", "shortest_path", "has_path",
    "connected_components", "number_connected_components", "is_connected",
    "node_connected_component", "betweenness_centrality", "closeness_centrality", "eccentricity",
]


# -- nodes --------------------------------------------------------------------------------------
def _vertex(G, node, error, message):
    """The vertex id of ``node``; ``error(message)`` when it is not a node of G."""
    k = G.vertex(node)
    if k is None:
        raise error(message)
    return k


def _not_in_graph(G, node):
    """networkx's G.neighbors / G.successors error for a missing node."""
    kind = "digraph" if G.is_directed() else "graph"
    return f"The node {node} is not in the {kind}."


def _lengths(G, levels):
    """{node: level} of the reached vertices, by level and, within a level, in G's node order."""
    reached = np.flatnonzero(levels >= 0)
    reached = reached[np.argsort(levels[reached], kind="stable")]
    return dict(zip(G.labels(reached), levels[reached].tolist()))


# -- breadth-first search -------------------------------------------------------------------------
def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """Tree edges (parent, child) of a breadth-first search from ``source``, in networkx's order."""
    hash(source)        # an unhashable source: TypeError, as networkx's set of seen nodes raises
    s = _vertex(G, source, nx.NetworkXError, _not_in_graph(G, source))
    found = search(G, [s], depth=depth_of(depth_limit), reverse=reverse)
    tails, heads = found.tree_edges()
    yield from zip(G.labels(tails), G.labels(heads))


def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """The breadth-first tree from ``source`` as a ``networkx.DiGraph`` (edges parent -> child)."""
    edges = list(bfs_edges(G, source, reverse=reverse, depth_limit=depth_limit))
    T = nx.DiGraph()
    T.add_node(source)
    T.add_edges_from(edges)
    return T


def bfs_predecessors(G, source, depth_limit=None, sort_neighbors=None):
    """(child, parent) of each tree edge, in networkx's order."""
    for parent, child in bfs_edges(G, source, depth_limit=depth_limit):
        yield child, parent


def bfs_successors(G, source, depth_limit=None, sort_neighbors=None):
    """(parent, [children]) for each parent in turn, as networkx groups them."""
    parent, children = source, []
    for p, c in bfs_edges(G, source, depth_limit=depth_limit):
        if p != parent:
            yield parent, children
            parent, children = p, []
        children.append(c)
    yield parent, children


def _layer_sources(G, sources):
    """networkx's first layer: ``sources`` as one node or an iterable of them, deduplicated in
    the order of a set (as networkx makes it); a missing node raises NetworkXError."""
    if sources in G:
        sources = [sources]
    first = list(set(sources))
    return [_vertex(G, node, nx.NetworkXError, f"The node {node} is not in the graph.") for node in first]


def bfs_layers(G, sources):
    """The layers (lists of nodes) of a breadth-first search from one node or several."""
    first = _layer_sources(G, sources)
    if not first:
        return
    found = search(G, first)
    for layer in found.layers:
        yield G.labels(layer)


def descendants_at_distance(G, source, distance):
    """The set of nodes exactly ``distance`` hops from ``source``."""
    s = _vertex(G, source, nx.NetworkXError, f"The node {source} is not in the graph.")
    if distance < 0 or distance != int(distance):
        return set()
    levels = levels_from(G.matrix, [s], int(distance))
    return set(G.labels(np.flatnonzero(levels == int(distance))))


# -- shortest path lengths and paths --------------------------------------------------------------
def single_source_shortest_path_length(G, source, cutoff=None):
    """{node: hops from source} of the nodes within ``cutoff`` hops."""
    s = _vertex(G, source, nx.NodeNotFound, f"Source {source} is not in G")
    A, _ = G.along(False)
    return _lengths(G, levels_from(A, [s], depth_of(cutoff)))


def single_target_shortest_path_length(G, target, cutoff=None):
    """{node: hops to target} of the nodes within ``cutoff`` hops of it (along in-edges)."""
    t = _vertex(G, target, nx.NodeNotFound, f"Target {target} is not in G")
    A, _ = G.along(True)
    return _lengths(G, levels_from(A, [t], depth_of(cutoff)))


#: Entries of the (k, n) levels one bfs_multi call of all_pairs_shortest_path_length holds (128 MiB).
ALL_PAIRS_ENTRIES = 1 << 24


def all_pairs_shortest_path_length(G, cutoff=None):
    """(node, {node: hops}) for every node in G's order: the engine's multi-source searches
    (``bfs_multi``, levels only), as many sources a call as fit ALL_PAIRS_ENTRIES."""
    n, depth = len(G), depth_of(cutoff)
    width = max(1, min(512, ALL_PAIRS_ENTRIES // max(n, 1)))
    for start in range(0, n, width):
        sources = np.arange(start, min(n, start + width), dtype=np.int64)
        if depth == -1:
            rows = np.where(np.arange(n)[None, :] == sources[:, None], 0, -1)
        else:
            rows = bfs_multi(G.matrix, sources, parents=False, depth_limit=depth).levels.to_numpy()
        for s, row in zip(sources.tolist(), rows):
            yield G.nodes[s], _lengths(G, row)


def single_source_shortest_path(G, source, cutoff=None):
    """{node: path from source} within ``cutoff`` hops: networkx's own paths (its BFS tree)."""
    s = _vertex(G, source, nx.NodeNotFound, f"Source {source} not in G")
    return _paths(G, search(G, [s], depth=depth_of(cutoff)))


def single_target_shortest_path(G, target, cutoff=None):
    """{node: path to target} within ``cutoff`` hops (along in-edges): networkx's own paths."""
    t = _vertex(G, target, nx.NodeNotFound, f"Target {target} not in G")
    return _paths(G, search(G, [t], depth=depth_of(cutoff), reverse=True), toward_source=True)


def all_pairs_shortest_path(G, cutoff=None):
    """(node, {node: path}) for every node in G's order, one search each."""
    for s in range(len(G)):
        yield G.nodes[s], _paths(G, search(G, [s], depth=depth_of(cutoff)))


def _check_method(method):
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")


def _path_ids(G, s, t):
    """Vertex ids of a shortest path s -> t (the engine's search stopped at t, walked back by its
    parents); NetworkXNoPath when t is not reached."""
    if s == t:
        return np.array([s], dtype=np.int64)
    result = bfs(G.matrix, s, target=t)
    path = bfs_path(result, t)
    if path.shape[0] == 0:
        raise nx.NetworkXNoPath(f"No path between {G.nodes[s]} and {G.nodes[t]}.")
    return path


def _levels_until(G, s, t):
    """Levels of a search from s stopped after the level that reaches t (the engine's target=)."""
    return bfs(G.matrix, s, parents=False, target=t).levels.to_numpy()


def _endpoints(G, source, target):
    s = _vertex(G, source, nx.NodeNotFound, f"Source {source} is not in G")
    t = _vertex(G, target, nx.NodeNotFound, f"Target {target} is not in G")
    return s, t


def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    """Unweighted: hops from ``source`` to ``target``, {node: hops} from the source or to the
    target when only one is given, or (node, {node: hops}) for every node when neither is."""
    _check_method(method)
    if source is None and target is None:
        return all_pairs_shortest_path_length(G)
    if target is None:
        return single_source_shortest_path_length(G, source)
    if source is None:      # networkx searches the reversed graph from the target
        t = _vertex(G, target, nx.NodeNotFound, f"Source {target} is not in G")
        A, _ = G.along(True)
        return _lengths(G, levels_from(A, [t]))
    s, t = _endpoints(G, source, target)
    if s == t:
        return 0
    levels = _levels_until(G, s, t)
    if levels[t] < 0:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return int(levels[t])


def _paths(G, found, toward_source=False):
    """{node: path} along the tree ``found`` of one root (networkx's order): the path from the
    root, or, ``toward_source``, to it."""
    root = G.nodes[int(found.layers[0][0])]
    paths = {root: [root]}
    for layer, parents in zip(found.layers[1:], found.parents[1:]):
        for child, parent in zip(G.labels(layer), G.labels(parents)):
            paths[child] = ([child] + paths[parent]) if toward_source else (paths[parent] + [child])
    return paths


def shortest_path(G, source=None, target=None, weight=None, method="dijkstra"):
    """Unweighted: a shortest path source -> target (a list of nodes), {node: path} from the
    source or to the target when only one is given (networkx's own paths), or (node, {node:
    path}) for every node when neither is."""
    _check_method(method)
    if source is None and target is None:
        return all_pairs_shortest_path(G)
    if target is None:
        return single_source_shortest_path(G, source)
    if source is None:      # networkx: paths of the reversed graph from the target, each reversed
        t = _vertex(G, target, nx.NodeNotFound, f"Source {target} not in G")
        return _paths(G, search(G, [t], reverse=True), toward_source=True)
    s, t = _endpoints(G, source, target)
    return G.labels(_path_ids(G, s, t))


def has_path(G, source, target):
    """Whether ``target`` can be reached from ``source``."""
    s, t = _endpoints(G, source, target)
    return s == t or bool(_levels_until(G, s, t)[t] >= 0)


# -- connected components -------------------------------------------------------------------------
def _component_labels(G):
    """Each vertex's component label (its smallest vertex id, so labels follow G's node order)."""
    return ld_connected_components(G.matrix).to_numpy()


def connected_components(G):
    """The components as sets of nodes, in the order of their first node in G (networkx's)."""
    if len(G) == 0:
        return
    labels = _component_labels(G)
    by_label = np.argsort(labels, kind="stable")
    cuts = np.flatnonzero(np.diff(labels[by_label])) + 1
    for members in np.split(by_label, cuts):     # labels ascending: first nodes in G's order
        yield set(G.labels(members))


def number_connected_components(G):
    return 0 if len(G) == 0 else int(ld_number_connected_components(G.matrix))


def is_connected(G):
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return number_connected_components(G) == 1


def node_connected_component(G, n):
    """The set of nodes in the component of ``n`` (KeyError when n is no node, as networkx)."""
    k = G.vertex(n)
    if k is None:
        raise KeyError(n)
    return set(G.labels(np.flatnonzero(levels_from(G.matrix, [k]) >= 0)))


# -- centralities and distances -------------------------------------------------------------------
def _by_node(G, values):
    """{node: value} in G's node order, values as Python numbers."""
    return dict(zip(G.nodes, np.asarray(values).tolist()))


def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False, seed=None):
    """Unweighted betweenness, every node or ``k`` sampled sources (``seed.sample`` of the nodes
    in G's order, as networkx samples, so the same seed gives the same sources)."""
    n = len(G)
    if n == 0:
        return {}
    if k == n:                  # networkx: all sources, the seed untouched
        k = None
    sources = None
    if k is not None:
        if not hasattr(seed, "sample"):     # called directly, not through networkx's seed decorator
            seed = random.Random(seed) if seed is not None else random._inst
        sources = [G.vertex(node) for node in seed.sample(list(G.nodes), k)]
    values = ld_betweenness_centrality(G.matrix, sources=sources, normalized=bool(normalized),
                                       endpoints=bool(endpoints))
    return _by_node(G, values.to_numpy(fill=0.0))


def closeness_centrality(G, u=None, distance=None, wf_improved=True):
    """Unweighted closeness (inward distances on a directed graph, as networkx): a dict over the
    nodes, or one float for ``u``."""
    if u is not None:
        k = _vertex(G, u, nx.NodeNotFound, f"Source {u} is not in G")
        value = ld_closeness_centrality(G.matrix, sources=[k], wf_improved=bool(wf_improved))
        return float(value.to_numpy(fill=0.0)[k])
    if len(G) == 0:
        return {}
    values = ld_closeness_centrality(G.matrix, wf_improved=bool(wf_improved))
    return _by_node(G, values.to_numpy(fill=0.0))


def _nbunch(G, v):
    """networkx's ``G.nbunch_iter(v)`` as a list: every node for None, ``[v]`` for a node, else
    the nodes of the iterable ``v`` that are in G."""
    if v is None:
        return list(G.nodes)
    if v in G:
        return [v]
    try:
        candidates = iter(v)
    except TypeError as exc:
        raise nx.NetworkXError("nbunch is not a node or a sequence of nodes.") from exc
    chosen = []
    for node in candidates:
        try:
            if node in G.index:
                chosen.append(node)
        except TypeError as exc:
            raise nx.NetworkXError(f"Node {node} in sequence nbunch is not a valid node.") from exc
    return chosen


def eccentricity(G, v=None, sp=None, weight=None):
    """Unweighted eccentricity: a dict over the nodes of ``v`` (all for None), or one int when
    ``v`` is a node. NetworkXError when a node does not reach every node."""
    nodes = _nbunch(G, v)
    if not nodes:
        return {}
    ids = np.array([G.index[node] for node in nodes], dtype=np.int64)
    try:
        values = ld_eccentricity(G.matrix, sources=ids).to_numpy()
    except InvalidValue as exc:
        kind = "digraph is not strongly connected" if G.is_directed() else "graph is not connected"
        raise nx.NetworkXError(f"Found infinite path length because the {kind}") from exc
    e = dict(zip(nodes, values[ids].tolist()))
    if v in G:
        return e[v]
    return e
