"""The networkx backend (lagraph_dist.nx): every dispatched function, called through networkx
with ``backend="lagraph_dist"``, gives networkx's own answer (networkx computes it again without
the backend) on small graphs of each kind: undirected, directed, disconnected, multigraphs,
self-loops, nodes labelled with strings. Bad inputs raise networkx's errors; what the backend
declines runs in networkx under automatic dispatch and raises NotImplementedError under
``backend=``; a graph is converted once and its conversion cached."""
import random
import warnings

import networkx as nx
import pytest

BACKEND = "lagraph_dist"

pytestmark = pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs:UserWarning")


# -- the graphs -------------------------------------------------------------------------------
def two_parts():
    """Disconnected, labelled with strings, an isolated node and a self-loop; nodes not in
    sorted order, so that networkx's node order is not the labels' order."""
    G = nx.Graph()
    G.add_node("lonely")
    nx.add_path(G, ["m", "c", "x", "a", "q"])
    nx.add_cycle(G, ["k", "b", "z", "y"])
    G.add_edges_from([("c", "a"), ("b", "b")])
    return G


def directed_labelled():
    """A directed graph with string labels: not strongly connected, with a cycle and a sink."""
    G = nx.gnp_random_graph(24, 0.12, seed=3, directed=True)
    return nx.relabel_nodes(G, {k: f"v{(k * 7) % 24}" for k in G})


def multigraph():
    G = nx.MultiGraph([(0, 1), (0, 1), (1, 2), (2, 0), (2, 3), (3, 3), (4, 5)])
    return G


GRAPHS = {
    "karate": nx.karate_club_graph,
    "two-parts-strings": two_parts,
    "directed-strings": directed_labelled,
    "directed-cycle": lambda: nx.DiGraph([(0, 1), (1, 2), (2, 0), (2, 3), (4, 0)]),
    "grid": lambda: nx.grid_2d_graph(4, 5),                 # tuple labels, many equal-depth trees
    "multigraph": multigraph,
}
UNDIRECTED = ["karate", "two-parts-strings", "grid", "multigraph"]


@pytest.fixture(params=list(GRAPHS), ids=list(GRAPHS))
def G(request):
    return GRAPHS[request.param]()


@pytest.fixture(params=UNDIRECTED, ids=UNDIRECTED)
def U(request):
    return GRAPHS[request.param]()


def some_nodes(G, count=4):
    """A few nodes of G, spread over it (the same every run)."""
    nodes = list(G)
    return [nodes[(i * 7) % len(nodes)] for i in range(count)]


def both(function, *args, **kwargs):
    """(networkx's answer, the backend's answer) of one call."""
    return function(*args, **kwargs), function(*args, backend=BACKEND, **kwargs)


# -- breadth-first search: networkx's own order ----------------------------------------------------
@pytest.mark.parametrize("depth_limit", [None, 0, 1, 2, 2.5])
def test_bfs_edges_in_networkx_order(G, depth_limit):
    for source in some_nodes(G):
        ours = list(nx.bfs_edges(G, source, depth_limit=depth_limit, backend=BACKEND))
        assert ours == list(nx.bfs_edges(G, source, depth_limit=depth_limit))
        if G.is_directed():
            assert (list(nx.bfs_edges(G, source, reverse=True, depth_limit=depth_limit, backend=BACKEND))
                    == list(nx.bfs_edges(G, source, reverse=True, depth_limit=depth_limit)))


def test_bfs_tree_predecessors_successors(G):
    for source in some_nodes(G, 3):
        theirs, ours = both(nx.bfs_tree, G, source)
        assert isinstance(ours, nx.DiGraph) and list(ours.edges) == list(theirs.edges)
        assert list(ours) == list(theirs)
        for function in (nx.bfs_predecessors, nx.bfs_successors):
            theirs, ours = both(function, G, source, depth_limit=2)
            assert list(ours) == list(theirs)


def test_bfs_layers_from_one_and_several(G):
    for sources in [some_nodes(G, 1)[0], some_nodes(G, 3), []]:
        theirs, ours = both(nx.bfs_layers, G, sources)
        assert list(ours) == list(theirs)


@pytest.mark.parametrize("distance", [0, 1, 2, 3, 40, -1])
def test_descendants_at_distance(G, distance):
    for source in some_nodes(G, 3):
        theirs, ours = both(nx.descendants_at_distance, G, source, distance)
        assert ours == theirs


# -- shortest paths --------------------------------------------------------------------------------
@pytest.mark.parametrize("cutoff", [None, 0, 1, 2, 1.5])
def test_path_lengths_from_and_to(G, cutoff):
    for node in some_nodes(G):
        for function in (nx.single_source_shortest_path_length, nx.single_target_shortest_path_length):
            theirs, ours = both(function, G, node, cutoff=cutoff)
            assert ours == theirs and all(type(v) is int for v in ours.values())


def test_shortest_path_length_and_paths(G):
    nodes = some_nodes(G, 5)
    for s in nodes:
        theirs, ours = both(nx.shortest_path_length, G, source=s)
        assert ours == theirs
        theirs, ours = both(nx.shortest_path_length, G, target=s)
        assert ours == theirs
        theirs, ours = both(nx.shortest_path, G, source=s)
        assert ours == theirs                              # networkx's own paths, not just as short
        theirs, ours = both(nx.shortest_path, G, target=s)
        assert ours == theirs
        for t in nodes:
            if nx.has_path(G, s, t):
                assert nx.shortest_path_length(G, s, t, backend=BACKEND) == nx.shortest_path_length(G, s, t)
                path = nx.shortest_path(G, s, t, backend=BACKEND)
                assert path[0] == s and path[-1] == t and len(path) == nx.shortest_path_length(G, s, t) + 1
                assert all(G.has_edge(a, b) for a, b in zip(path, path[1:]))
            else:
                with pytest.raises(nx.NetworkXNoPath):
                    nx.shortest_path(G, s, t, backend=BACKEND)
                with pytest.raises(nx.NetworkXNoPath):
                    nx.shortest_path_length(G, s, t, backend=BACKEND)


@pytest.mark.parametrize("cutoff", [None, 0, 1, 2.5])
def test_paths_from_to_and_between_all(G, cutoff):
    """networkx's own paths (its BFS tree), from a source, to a target, and for every pair."""
    for node in some_nodes(G, 3):
        for function in (nx.single_source_shortest_path, nx.single_target_shortest_path):
            theirs, ours = both(function, G, node, cutoff=cutoff)
            assert ours == theirs
    for function in (nx.all_pairs_shortest_path_length, nx.all_pairs_shortest_path):
        theirs, ours = both(function, G, cutoff=cutoff)
        assert list(ours) == list(theirs)                  # sources in G's order, equal answers
    if cutoff is None:
        for function in (nx.shortest_path_length, nx.shortest_path):
            theirs, ours = both(function, G)
            assert list(ours) == list(theirs)


def test_all_pairs_in_several_calls(monkeypatch):
    """Sources split over several multi-source calls give the same answer."""
    from lagraph_dist.nx import algorithms
    monkeypatch.setattr(algorithms, "ALL_PAIRS_ENTRIES", 64)          # 2 sources a call on karate
    G = nx.karate_club_graph()
    assert dict(nx.all_pairs_shortest_path_length(G, backend=BACKEND)) == dict(nx.all_pairs_shortest_path_length(G))


def test_has_path(G):
    nodes = some_nodes(G, 6)
    answers = [(nx.has_path(G, s, t, backend=BACKEND), nx.has_path(G, s, t)) for s in nodes for t in nodes]
    assert all(ours == theirs for ours, theirs in answers)


# -- components (undirected graphs, as networkx's are) ---------------------------------------------
def test_components(U):
    theirs, ours = both(nx.connected_components, U)
    assert list(ours) == list(theirs)                      # the same sets, in the same order
    assert both(nx.number_connected_components, U)[1] == nx.number_connected_components(U)
    theirs, ours = both(nx.is_connected, U)
    assert ours is theirs
    for node in some_nodes(U):
        theirs, ours = both(nx.node_connected_component, U, node)
        assert ours == theirs


def test_components_refuse_directed_graphs_as_networkx_does():
    with pytest.raises(nx.NetworkXNotImplemented):
        list(nx.connected_components(nx.DiGraph([(0, 1)]), backend=BACKEND))
    with pytest.raises(nx.NetworkXPointlessConcept):
        nx.is_connected(nx.Graph(), backend=BACKEND)


# -- centralities and distances ------------------------------------------------------------------
@pytest.mark.parametrize("normalized", [True, False])
@pytest.mark.parametrize("endpoints", [False, True])
def test_betweenness_every_source(G, normalized, endpoints):
    theirs, ours = both(nx.betweenness_centrality, G, normalized=normalized, endpoints=endpoints)
    assert list(ours) == list(theirs)
    assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("k", [1, 5])
def test_betweenness_sampled_as_networkx_samples(G, k):
    """The same seed picks the same k sources (an int seed, or a Random passed in)."""
    theirs = nx.betweenness_centrality(G, k=k, seed=42)
    assert nx.betweenness_centrality(G, k=k, seed=42, backend=BACKEND) == pytest.approx(theirs, abs=1e-12, nan_ok=True)
    ours = nx.betweenness_centrality(G, k=k, seed=random.Random(7), backend=BACKEND)
    assert ours == pytest.approx(nx.betweenness_centrality(G, k=k, seed=random.Random(7)), abs=1e-12, nan_ok=True)


@pytest.mark.parametrize("wf_improved", [True, False])
def test_closeness(G, wf_improved):
    theirs, ours = both(nx.closeness_centrality, G, wf_improved=wf_improved)
    assert list(ours) == list(theirs) and ours == pytest.approx(theirs, rel=1e-12)
    u = some_nodes(G, 2)[1]
    theirs, ours = both(nx.closeness_centrality, G, u=u, wf_improved=wf_improved)
    assert type(ours) is float and ours == pytest.approx(theirs, rel=1e-12)


def test_eccentricity():
    for G in (nx.karate_club_graph(), nx.grid_2d_graph(3, 4), nx.DiGraph([(0, 1), (1, 2), (2, 0)])):
        theirs, ours = both(nx.eccentricity, G)
        assert ours == theirs and list(ours) == list(theirs)
        node = some_nodes(G, 2)[1]
        assert nx.eccentricity(G, v=node, backend=BACKEND) == nx.eccentricity(G, v=node)
        chosen = some_nodes(G, 3) + ["not a node"]
        assert nx.eccentricity(G, v=chosen, backend=BACKEND) == nx.eccentricity(G, v=chosen)


def test_eccentricity_of_a_graph_not_connected():
    for G, says in ((two_parts(), "graph is not connected"), (directed_labelled(), "not strongly connected")):
        with pytest.raises(nx.NetworkXError, match=says):
            nx.eccentricity(G, backend=BACKEND)
        with pytest.raises(nx.NetworkXError, match=says):
            nx.eccentricity(G)


# -- bad inputs: networkx's errors ---------------------------------------------------------------------
MISSING = "no such node"


@pytest.mark.parametrize("call, error", [
    (lambda G, **b: list(nx.bfs_edges(G, MISSING, **b)), nx.NetworkXError),
    (lambda G, **b: nx.bfs_tree(G, MISSING, **b), nx.NetworkXError),
    (lambda G, **b: list(nx.bfs_successors(G, MISSING, **b)), nx.NetworkXError),
    (lambda G, **b: list(nx.bfs_layers(G, ["m", MISSING], **b)), nx.NetworkXError),
    (lambda G, **b: nx.descendants_at_distance(G, MISSING, 1, **b), nx.NetworkXError),
    (lambda G, **b: nx.single_source_shortest_path_length(G, MISSING, **b), nx.NodeNotFound),
    (lambda G, **b: nx.single_target_shortest_path_length(G, MISSING, **b), nx.NodeNotFound),
    (lambda G, **b: nx.shortest_path_length(G, "m", MISSING, **b), nx.NodeNotFound),
    (lambda G, **b: nx.shortest_path(G, MISSING, "m", **b), nx.NodeNotFound),
    (lambda G, **b: nx.shortest_path(G, MISSING, **b), nx.NodeNotFound),
    (lambda G, **b: nx.single_target_shortest_path(G, MISSING, **b), nx.NodeNotFound),
    (lambda G, **b: nx.shortest_path(G, "m", "q", method="magic", **b), ValueError),
    (lambda G, **b: nx.has_path(G, "m", MISSING, **b), nx.NodeNotFound),
    (lambda G, **b: nx.node_connected_component(G, MISSING, **b), KeyError),
    (lambda G, **b: nx.closeness_centrality(G, u=MISSING, **b), nx.NodeNotFound),
    (lambda G, **b: nx.eccentricity(G, v=3.5, **b), nx.NetworkXError),
    (lambda G, **b: list(nx.bfs_edges(G, ["unhashable"], **b)), TypeError),
], ids=lambda value: getattr(value, "__name__", "call"))
def test_bad_input_raises_networkx_error(call, error):
    G = two_parts()
    with pytest.raises(error) as theirs:
        call(G)
    with pytest.raises(error) as ours:
        call(G, backend=BACKEND)
    assert type(ours.value) is type(theirs.value)


def test_a_missing_node_raises_at_the_first_next_as_networkx():
    """Generators stay generators: the call returns, iterating raises."""
    edges = nx.bfs_edges(two_parts(), MISSING, backend=BACKEND)
    with pytest.raises(nx.NetworkXError, match="not in the graph"):
        next(edges)


# -- what the backend declines -------------------------------------------------------------------------
DECLINED = [
    lambda G, **b: list(nx.bfs_edges(G, "m", sort_neighbors=sorted, **b)),
    lambda G, **b: nx.shortest_path_length(G, "m", "q", weight="weight", **b),
    lambda G, **b: nx.betweenness_centrality(G, weight="weight", **b),
    lambda G, **b: nx.closeness_centrality(G, distance="weight", **b),
    lambda G, **b: nx.eccentricity(G, sp={}, **b),
]


@pytest.mark.parametrize("call", DECLINED)
def test_declined_calls_run_in_networkx_under_automatic_dispatch(call):
    G = two_parts()
    nx.set_edge_attributes(G, 2, "weight")
    expected = _answer(call, G)
    with pytest.raises(NotImplementedError, match="lagraph_dist"):
        call(G, backend=BACKEND)
    with nx.config.backend_priority(algos=[BACKEND]):
        assert _answer(call, G) == expected      # networkx answered: the backend was not asked


def _answer(call, G):
    try:
        return call(G)
    except Exception as exc:                       # eccentricity(sp={}) raises in networkx
        return type(exc)


def test_can_run_says_why():
    from lagraph_dist.nx.interface import backend_interface as backend
    G = two_parts()
    assert backend.can_run("bfs_edges", (G, "m"), {}) is True
    assert "sort_neighbors" in backend.can_run("bfs_edges", (G, "m"), {"sort_neighbors": sorted})
    assert "weighted" in backend.can_run("betweenness_centrality", (G,), {"weight": "w"})
    assert "k=" in backend.can_run("betweenness_centrality", (G,), {"k": 0})
    assert "not dispatched" in backend.can_run("dfs_edges", (G,), {})


# -- conversion -------------------------------------------------------------------------------------------
def test_converted_once_and_cached():
    G = directed_labelled()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = nx.single_source_shortest_path_length(G, "v0", backend=BACKEND)
        cached = G.__networkx_cache__["backends"][BACKEND]
        assert len(cached) == 1
        (converted,) = cached.values()
        assert converted.matrix is converted.matrix               # the engine's Matrix built once
        assert nx.single_source_shortest_path_length(G, "v0", backend=BACKEND) == first
        assert list(cached.values()) == [converted]                 # the cached conversion reused
        G.add_edge("v0", "new")                                     # a change clears networkx's cache
        assert "new" in nx.single_source_shortest_path_length(G, "v0", backend=BACKEND)


def test_automatic_dispatch_runs_here():
    """With the backend first in nx.config.backend_priority an unchanged call runs here."""
    from lagraph_dist.nx import interface
    calls = []
    original = interface.BackendInterface.bfs_layers
    interface.BackendInterface.bfs_layers = staticmethod(lambda *a, **k: calls.append(a) or original(*a, **k))
    try:
        G = nx.karate_club_graph()
        with nx.config.backend_priority(algos=[BACKEND]):
            layers = list(nx.bfs_layers(G, 0))
    finally:
        interface.BackendInterface.bfs_layers = original
    assert calls and layers == list(nx.bfs_layers(G, 0))


def test_conversion_round_trip():
    from lagraph_dist.nx.interface import backend_interface as backend
    for make in (two_parts, directed_labelled):
        G = make()
        H = backend.convert_to_nx(backend.convert_from_nx(G, preserve_graph_attrs=True))
        assert nx.utils.graphs_equal(G, H) and list(H) == list(G)


def test_should_run_declines_shallow_searches_of_unconverted_graphs():
    from lagraph_dist.nx.interface import backend_interface as backend
    G = nx.karate_club_graph()
    assert isinstance(backend.should_run("bfs_edges", (G, 0), {"depth_limit": 1}), str)
    assert backend.should_run("bfs_edges", (G, 0), {}) is True


def test_on_start_tests_marks_listed_tests_xfail(monkeypatch):
    """networkx's test hook: a test listed in lagraph_dist.nx.expected gets an xfail marker with
    its reason; others are left alone."""
    from types import SimpleNamespace
    from lagraph_dist.nx import interface
    monkeypatch.setitem(interface.EXPECTED_FAILURES, ("test_bfs", "test_order"), "another valid tree")

    class Item:
        def __init__(self, module, name):
            self.module, self.name, self.markers = SimpleNamespace(__name__=module), name, []

        def add_marker(self, marker):
            self.markers.append(marker)
    listed = Item("networkx.algorithms.traversal.tests.test_bfs", "test_order[case-1]")
    other = Item("networkx.algorithms.traversal.tests.test_bfs", "test_other")
    interface.backend_interface.on_start_tests([listed, other])
    (marker,) = listed.markers
    assert marker.name == "xfail" and "another valid tree" in marker.kwargs["reason"]
    assert other.markers == []


def test_suite_tally_counts_only_tests_that_reach_the_backend():
    """benchmarks/networkx_suite.py's share: tests with a call run here, passed over not skipped."""
    import importlib.util
    from pathlib import Path
    from types import SimpleNamespace
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "networkx_suite.py"
    spec = importlib.util.spec_from_file_location("networkx_suite", path)
    suite = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(suite)
    tally = suite.Tally()
    for test, calls, outcome in [("a", 2, "passed"), ("b", 1, "failed"), ("c", 0, "failed"), ("d", 1, "skipped")]:
        tally.pytest_runtest_logstart(test, None)
        tally.calls += calls
        tally.pytest_runtest_logreport(SimpleNamespace(nodeid=test, when="call", outcome=outcome,
                                                       passed=outcome == "passed"))
        tally.pytest_runtest_logfinish(test, None)
    summary = tally.summary()
    assert summary["reached_backend"] == 3 and summary["pass_share"] == 0.5
    assert summary["not_passed"] == ["b"]
