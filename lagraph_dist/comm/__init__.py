"""Communication: the process grid and the 2D layout (owner arithmetic), the transports, the wire format of a sparse-vector piece, and the collectives (expand, fold, counts)."""
