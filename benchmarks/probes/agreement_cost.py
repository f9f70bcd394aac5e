"""What the check that collective calls agree costs a call (issue 50): under mpiexec, the median
time of ``agree_on`` with the arguments of one ``ld.bfs`` call (describe, digest, one
allgather of 8 bytes), of an MPI barrier beside it for scale, and of the decorator's way in on
a 1 x 1 grid (where it checks nothing) against the undecorated function. Prints the figures and,
with --json, writes the record.

    mpiexec -n 4 python -m mpi4py benchmarks/probes/agreement_cost.py [--calls 2000] [--json out.json]
"""
import argparse
import time

import numpy as np
from mpi4py import MPI

import lagraph_dist as ld
from lagraph_dist.comm.agreement import agree_on
from lagraph_dist.tools.bench import device_name, write_json

BFS_ARGUMENTS = {"source": 12345, "levels": True, "parents": True, "direction": "auto", "alpha": 14.0,
                 "beta": 24.0, "depth_limit": None, "target": None}


def median_us(run, calls, barrier=None):
    times = np.empty(calls)
    for k in range(calls):
        if barrier is not None:
            barrier()                 # every rank starts each call together
        started = time.perf_counter()
        run()
        times[k] = time.perf_counter() - started
    return float(np.median(times) * 1e6)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    world = MPI.COMM_WORLD
    grid = ld.Grid()
    figures = {"ranks": world.Get_size(), "calls": args.calls}
    if grid.size > 1:
        figures["agree_on_bfs_arguments_us"] = median_us(lambda: agree_on(grid, "bfs", BFS_ARGUMENTS), args.calls,
                                                        world.Barrier)
        figures["barrier_us"] = median_us(world.Barrier, args.calls, world.Barrier)
    alone = ld.Grid(comm=MPI.COMM_SELF)
    q = ld.Vector.from_indices([0], 64, values=[0], dtype="int64", grid=alone, backend="cpu")
    A = ld.Matrix.from_edges(np.arange(63), np.arange(1, 64), 64, grid=alone, backend="cpu")
    semiring = ld.semirings.any_secondi
    ld.vxm(q, A, semiring)                                     # compiled before the clock
    figures["vxm_1x1_decorated_us"] = median_us(lambda: ld.vxm(q, A, semiring), args.calls)
    figures["vxm_1x1_undecorated_us"] = median_us(lambda: ld.vxm.__wrapped__(q, A, semiring), args.calls)
    figures["device"] = device_name(A.backend)
    if world.Get_rank() == 0:
        for name, value in figures.items():
            print(f"{name:>28}: {value:.2f}" if isinstance(value, float) else f"{name:>28}: {value}")
        if args.json:
            write_json({"benchmark": "agreement_cost", **figures}, args.json)


if __name__ == "__main__":
    main()
