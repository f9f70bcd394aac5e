"""The peers ``lagraph-dist bench`` runs beside our searches, by name (the command line's parser
reads them without importing the engine; :mod:`lagraph_dist.tools.bench` runs them)."""

__all__ = ["PEERS", "HOST_PEERS", "PEER_SECONDS"]

PEERS = ("graphblas-push", "graphblas-pushpull", "scipy", "cupyx-naive", "lagraph-cpu")
#: the peers that run on the host (the others need a GPU)
HOST_PEERS = ("graphblas-push", "graphblas-pushpull", "scipy", "lagraph-cpu")
#: a peer stops taking new roots once it has spent this long (it always runs one)
PEER_SECONDS = 20.0
