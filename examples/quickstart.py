"""Five lines: BFS on a scipy sparse matrix, in one process or on any number under mpiexec.

    python examples/quickstart.py
    mpiexec -n 4 python -m mpi4py examples/quickstart.py
"""
import scipy.sparse as sp

import lagraph_dist as ld

S = sp.random(1000, 1000, density=0.004, format="csr", random_state=0)   # any scipy sparse matrix
result = ld.bfs(S, 0)                              # collective: every rank calls it (S is read on rank 0)
levels = result.levels.to_numpy()                  # int64 hops from vertex 0, -1 where unreached
if result.levels.grid.rank == 0:                   # print once
    print(f"reached {(levels >= 0).sum()} of {S.shape[0]} vertices in {levels.max()} levels")
