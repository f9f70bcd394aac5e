"""The peers ``lagraph-dist bench`` runs beside our searches, by name (the command line's parser
reads them without importing the engine; :mod:`lagraph_dist.tools.bench` runs them)."""

__all__ = ["PEERS", "HOST_PEERS", "SCIPY_PEERS", "PEER_SECONDS", "ALGORITHMS", "FAMILY_PEERS", "DEFAULT_PEERS"]

PEERS = ("graphblas-push", "graphblas-pushpull", "scipy", "cupyx-naive", "lagraph-cpu")
#: the peers that run on the host (the others need a GPU)
HOST_PEERS = ("graphblas-push", "graphblas-pushpull", "scipy", "lagraph-cpu")
#: the host peers that read the graph as a scipy matrix (python-graphblas's take its arrays)
SCIPY_PEERS = ("scipy", "lagraph-cpu")
#: a peer stops taking new roots once it has spent this long (it always runs one)
PEER_SECONDS = 20.0
#: what ``bench --algorithm`` times: the search (its peers above), or a member of the BFS family
#: with its own peers (:mod:`lagraph_dist.tools.family_bench`)
ALGORITHMS = ("bfs", "msbfs", "bc", "cc")
FAMILY_PEERS = {"msbfs": ("scipy",), "bc": ("networkx", "graphblas"), "cc": ("scipy", "networkx")}
#: the search's peers when ``--peers`` is not given (a family member then runs all of its own)
DEFAULT_PEERS = ("graphblas-push", "graphblas-pushpull", "scipy")
