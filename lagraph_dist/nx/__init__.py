"""lagraph_dist as a networkx backend: ``nx.bfs_edges(G, s, backend="lagraph_dist")``.

networkx (3.4 and later) finds the backend through two entry points of ``pyproject.toml``:
``networkx.backend_info`` names :func:`lagraph_dist.nx.info.get_info` (read when networkx is
imported, so it imports nothing heavy) and ``networkx.backends`` names
:data:`lagraph_dist.nx.interface.backend_interface` (loaded on the first dispatched call).

- :mod:`.graph`: a networkx graph converted once (its node order, labels and adjacency order
  kept; the engine's Matrix built on first use);
- :mod:`.order`: networkx's breadth-first order from the engine's levels;
- :mod:`.algorithms`: the dispatched functions, with networkx's arguments, results and errors;
- :mod:`.support`: what each function cannot honour (``can_run``) and when running here does
  not pay (``should_run``);
- :mod:`.expected`: networkx tests whose answers differ from ours in a way both are right;
- :mod:`.interface`: the object networkx dispatches to.

docs/networkx.md describes its use.
"""
