"""Check lagraph_dist against python-graphblas on a Matrix Market file, in every direction.

    python examples/compare_reference.py path/to/graph.mtx [source]
"""
import sys

import numpy as np

import lagraph_dist as ld


def main(path, source=0):
    A = ld.Matrix.from_mtx(path)
    S = A.to_scipy()
    expected, _ = ld.reference.bfs(S, source)
    for direction in ("push", "pull", "auto"):
        result = ld.bfs(A, source, direction=direction)
        levels = result.levels.to_numpy()
        ld.validate(A, source, levels, result.parents.to_numpy())
        same = np.array_equal(levels, expected)
        print(f"{direction:4s}: levels {'equal' if same else 'DIFFER'}, parents valid, "
              f"{(levels >= 0).sum()} reached")
        if not same:
            raise SystemExit(1)


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:]))
