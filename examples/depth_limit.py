"""Stop early: ``depth_limit=k`` expands no level past k, ``target=t`` stops after the level
that reaches t. Both cut the work, which the per-level statistics show.

    python examples/depth_limit.py [scale] [depth]
    mpiexec -n 4 python -m mpi4py examples/depth_limit.py
"""
import lagraph_dist as ld
from arguments import integer, nonnegative, run
from lagraph_dist.core.text import plural


def summary(result):
    """Collective (the gather): what a search reached and what it cost."""
    levels = result.levels.to_numpy()
    edges = sum(s["edges_examined"] for s in result.stats)
    return (f"reached {plural((levels >= 0).sum(), 'vertex')}, {plural(len(result.stats), 'level')} expanded, "
            f"{plural(edges, 'edge')} examined")


def main(scale=12, depth=2):
    A = ld.kronecker(scale, edgefactor=16, seed=0)
    source = int(A.out_degree().indices()[0])          # the first vertex with edges
    full = ld.bfs(A, source)                           # collective, like every call here
    limited = ld.bfs(A, source, depth_limit=depth)
    levels = full.levels.to_numpy()
    target = int(levels.argmax())                      # a vertex at the deepest level
    stopped = ld.bfs(A, source, target=target)
    lines = [f"{A}, source {source}", f"  full search:     {summary(full)}",
             f"  depth_limit={depth}:   {summary(limited)}",
             f"  target={target} (level {levels[target]}): {summary(stopped)}"]
    if A.grid.rank == 0:
        print("\n".join(lines))


if __name__ == "__main__":
    run(main, scale=integer, depth=nonnegative)
