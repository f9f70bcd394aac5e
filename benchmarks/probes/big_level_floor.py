"""What one big push level of a Kronecker search costs on this GPU with nothing but the level:
a floor under the fused search's third level (issue 54, item 1), whose million edges take the
fused kernel 70-90 us (about 12 G edges a second) where push.cu's levels of a hundred million
edges run at 90.

For each root, the package's own search (``ld.bfs``, auto and push, in this process) gives the
vertices at depth 2 (the third level's frontier) and its records the third level's own time.
Then single launches run that one level on the same CSR arrays (the Matrix's own, int64 row
offsets and int32 ids), from the visited bits the search had after its second level:

  load          every frontier edge's neighbour read (the edge's owner found by a search of the
                frontier's edge offsets, kept in shared memory), nothing else;
  claim         load, then the claim: a probe of the neighbour's visited bit, an atomicOr where
                it is clear, and the winner's parent written;
  claim+degree  claim, and the winner reads its row offsets (the next level's out-edges) and
                each warp adds its sum to one counter;
  full          claim+degree, and the winners appended to the next queue, one atomic a warp;
  full, 4 a lane  full, each lane taking 4 edges a step with every load of a phase issued
                before any is used (more loads in flight a warp);
  pull          the level bottom-up: a thread an unvisited vertex scans its in-edges (the graph
                is symmetric) for a frontier bit, writes the parent it finds, and appends.

Each variant runs one thread an edge over a grid the hardware schedules (``grid: edges``) and as
the fused kernel's persistent shape, two blocks of 512 threads a multiprocessor striding over
the edges (``grid: 2 an SM``). Before each timed launch the L2 is flushed (a write over a
buffer twice its size) and the visited bits and counters are reset; CUDA events time the
launch alone. Every run is checked: the vertices claimed are exactly those at depth 3, each
parent is at depth 2 and adjacent.

    python3 benchmarks/probes/big_level_floor.py kron:20 [kron:22] [--roots 6] [--calls 15] [--json out.json]
"""
import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

import lagraph_dist as ld
from lagraph_dist.core.settings import settings
from lagraph_dist.core.stats import measured_seconds
from lagraph_dist.core.version import code_identity
from lagraph_dist.tools.bench import write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # benchmarks/, for harness
from harness import matrix, parse_spec  # noqa: E402

settings.host_search_edges = 0      # the device's search is the one compared

SOURCE = r"""
typedef long long i64;
typedef unsigned int u32;
typedef unsigned long long u64;

// the frontier entry owning flat edge e: the last k with offsets[k] <= e (offsets[0] = 0)
__device__ __forceinline__ int owner_of(const i64* offsets, int nf, i64 e) {
    int lo = 0, hi = nf;
    while (hi - lo > 1) {
        int mid = (lo + hi) >> 1;
        if (offsets[mid] <= e) lo = mid; else hi = mid;
    }
    return lo;
}

// the frontier's ids and edge offsets into shared memory, for every block
__device__ __forceinline__ void stage_frontier(const i64* frontier, const i64* offsets, int nf,
                                               i64* s_frontier, i64* s_offsets) {
    for (int k = threadIdx.x; k <= nf; k += blockDim.x) {
        s_offsets[k] = offsets[k];
        if (k < nf) s_frontier[k] = frontier[k];
    }
    __syncthreads();
}

// what a warp found: appended with one atomic a warp, their out-edges added with one more
__device__ __forceinline__ void warp_outputs(bool found, i64 v, i64 degree, int mode, i64* queue, u64* counters) {
    const int lane = threadIdx.x & 31;
    if (mode >= 3) {
        u32 mask = __ballot_sync(0xffffffffu, found);
        if (mask) {
            int leader = __ffs(mask) - 1;
            u64 at = 0;
            if (lane == leader) at = atomicAdd(&counters[0], (u64)__popc(mask));
            at = __shfl_sync(0xffffffffu, at, leader);
            if (found) queue[at + __popc(mask & ((1u << lane) - 1))] = v;
        }
    }
    if (mode >= 2) {
        for (int d = 16; d; d >>= 1) degree += __shfl_down_sync(0xffffffffu, degree, d);
        if (lane == 0 && degree) atomicAdd(&counters[1], (u64)degree);
    }
}

// modes: 0 load, 1 claim, 2 claim+degree, 3 full
extern "C" __global__ void push_level(const i64* indptr, const int* indices, const i64* frontier,
                                      const i64* offsets, int nf, i64 edges, u32* visited, i64* parents,
                                      i64* queue, u64* counters, int mode) {
    extern __shared__ i64 shared[];
    i64* s_offsets = shared;
    i64* s_frontier = shared + nf + 1;
    stage_frontier(frontier, offsets, nf, s_frontier, s_offsets);
    const i64 stride = (i64)gridDim.x * blockDim.x;
    const i64 first = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    i64 sink = 0;
    for (i64 base = first - (threadIdx.x & 31); base < edges; base += stride) {
        const i64 e = base + (threadIdx.x & 31);
        bool found = false;
        i64 v = 0, degree = 0;
        if (e < edges) {
            const int k = owner_of(s_offsets, nf, e);
            const i64 u = s_frontier[k];
            v = indices[indptr[u] + (e - s_offsets[k])];
            if (mode == 0) {
                sink += v;
            } else {
                const u32 bit = 1u << (v & 31);
                if (!(*(volatile u32*)&visited[v >> 5] & bit) && !(atomicOr(&visited[v >> 5], bit) & bit)) {
                    found = true;
                    parents[v] = u;
                    if (mode >= 2) degree = indptr[v + 1] - indptr[v];
                }
            }
        }
        warp_outputs(found, v, degree, mode, queue, counters);
    }
    if (sink == -1) counters[2] = sink;       // keeps the loads of mode 0
}

// full, four edges a lane a step: each phase's loads (neighbours, probes, claims, rows) all
// issued before any is used
extern "C" __global__ void push_level_4(const i64* indptr, const int* indices, const i64* frontier,
                                        const i64* offsets, int nf, i64 edges, u32* visited, i64* parents,
                                        i64* queue, u64* counters) {
    extern __shared__ i64 shared[];
    i64* s_offsets = shared;
    i64* s_frontier = shared + nf + 1;
    stage_frontier(frontier, offsets, nf, s_frontier, s_offsets);
    const i64 stride = 4 * (i64)gridDim.x * blockDim.x;
    const i64 first = 4 * ((i64)blockIdx.x * blockDim.x + (threadIdx.x & ~31)) + (threadIdx.x & 31);
    for (i64 base = first; base - (threadIdx.x & 31) < edges; base += stride) {
        i64 u[4], v[4];
        bool live[4], found[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const i64 e = base + 32 * j;
            live[j] = e < edges;
            if (live[j]) {
                const int k = owner_of(s_offsets, nf, e);
                u[j] = s_frontier[k];
                v[j] = indices[indptr[u[j]] + (e - s_offsets[k])];
            }
        }
        u32 seen[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) seen[j] = live[j] ? *(volatile u32*)&visited[v[j] >> 5] : 0xffffffffu;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const u32 bit = live[j] ? 1u << (v[j] & 31) : 0u;
            found[j] = live[j] && !(seen[j] & bit) && !(atomicOr(&visited[v[j] >> 5], bit) & bit);
        }
        i64 degree = 0;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            if (found[j]) {
                parents[v[j]] = u[j];
                degree += indptr[v[j] + 1] - indptr[v[j]];
            }
        }
#pragma unroll
        for (int j = 0; j < 4; ++j) warp_outputs(found[j], live[j] ? v[j] : 0, j == 0 ? degree : 0, 3, queue, counters);
    }
}

// the level bottom-up: a thread an unvisited vertex, its in-edges scanned for a frontier bit
extern "C" __global__ void pull_level(const i64* indptr, const int* indices, const u32* frontier_bits, i64 n,
                                      u32* visited, i64* parents, i64* queue, u64* counters) {
    const i64 stride = (i64)gridDim.x * blockDim.x;
    const i64 first = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    for (i64 base = first - (threadIdx.x & 31); base < n; base += stride) {
        const i64 v = base + (threadIdx.x & 31);
        bool found = false;
        i64 degree = 0;
        if (v < n && !(visited[v >> 5] & (1u << (v & 31)))) {
            const i64 start = indptr[v], end = indptr[v + 1];
            for (i64 e = start; e < end; ++e) {
                const int u = indices[e];
                if (frontier_bits[u >> 5] & (1u << (u & 31))) {
                    parents[v] = u;
                    found = true;
                    degree = end - start;
                    break;
                }
            }
        }
        if (found) atomicOr(&visited[v >> 5], 1u << (v & 31));
        warp_outputs(found, v, degree, 3, queue, counters);
    }
}
"""

VARIANTS = ("load", "claim", "claim+degree", "full", "full, 4 a lane", "pull")
BLOCK = 512
#: the frontier's ids and offsets fit a block's 48 KB of shared memory
MAX_FRONTIER = 2048


def third_level_of(A, root):
    """(depths as numpy, the package's third-level record under auto and under push, or None)."""
    res = ld.bfs(A, root, direction="auto")
    depths = res.levels.to_numpy()
    records = {}
    for direction in ("auto", "push"):
        runs = []
        for _ in range(5):
            stats = ld.bfs(A, root, direction=direction).stats
            if len(stats) >= 3:
                runs.append(stats[2])
        if runs:
            seconds = [measured_seconds(s) for s in runs]
            records[direction] = {"direction": runs[-1]["direction"], "us": 1e6 * statistics.median(seconds),
                                  "frontier": runs[-1]["frontier"], "edges": runs[-1]["edges_examined"],
                                  "found": runs[-1]["discovered"], "fused": runs[-1]["fused"]}
    return depths, records


def main(specs, roots_count, calls, json_path):
    import cupy as cp
    module = cp.RawModule(code=SOURCE, options=("-std=c++17",))
    kernels = {name: module.get_function(name) for name in ("push_level", "push_level_4", "pull_level")}
    props = cp.cuda.runtime.getDeviceProperties(0)
    sms = props["multiProcessorCount"]
    flush = cp.empty(2 * props["l2CacheSize"] // 4 + 1, dtype=cp.int32)
    record = {"probe": "big_level_floor", "commit": code_identity()["commit"], "device": props["name"].decode(),
              "calls": calls, "runs": []}
    for spec in specs:
        A = matrix(spec, "gpu")
        by_src = A.block.by_col
        indptr, indices = by_src.indptr, by_src.indices
        assert indptr.dtype == cp.int64 and indices.dtype == cp.int32, (indptr.dtype, indices.dtype)
        n = A.n
        S = A.to_scipy()
        roots = [int(v) for v in A.out_degree().indices()[:roots_count + 1]][1:]
        for root in roots:
            depths, package = third_level_of(A, root)
            frontier_host = np.flatnonzero(depths == 2)
            if frontier_host.size == 0 or frontier_host.size > MAX_FRONTIER:
                print(f"{spec.text} root {root}: third frontier of {frontier_host.size}, skipped", flush=True)
                continue
            host_indptr = S.indptr.astype(np.int64)
            degrees = host_indptr[frontier_host + 1] - host_indptr[frontier_host]
            offsets_host = np.concatenate([[0], np.cumsum(degrees)]).astype(np.int64)
            edges = int(offsets_host[-1])
            expected = np.flatnonzero(depths == 3)
            frontier, offsets = cp.asarray(frontier_host), cp.asarray(offsets_host)
            seen_before = np.zeros((n + 31) // 32 * 32, dtype=bool)
            seen_before[np.flatnonzero((depths >= 0) & (depths <= 2))] = True
            visited0 = cp.asarray(np.packbits(seen_before, bitorder="little").view(np.uint32))
            frontier_bits_host = np.zeros_like(seen_before)
            frontier_bits_host[frontier_host] = True
            frontier_bits = cp.asarray(np.packbits(frontier_bits_host, bitorder="little").view(np.uint32))
            visited, parents = cp.empty_like(visited0), cp.full(n, -1, dtype=cp.int64)
            queue, counters = cp.empty(n, dtype=cp.int64), cp.zeros(3, dtype=cp.uint64)
            shared = 2 * 8 * (frontier_host.size + 1)
            run = {"graph": spec.text, "root": root, "frontier": int(frontier_host.size), "edges": edges,
                   "found": int(expected.size), "package": package, "us": {}}
            print(f"{spec.text} root {root}: third level {frontier_host.size} entries, {edges:,} edges, "
                  f"{expected.size:,} found; the package's: "
                  + ", ".join(f"{d} {r['direction']} {r['us']:.1f} us" for d, r in package.items()), flush=True)
            for variant in VARIANTS:
                for shape in ("edges", "2 an SM"):
                    work = n if variant == "pull" else (edges + 3) // 4 if variant == "full, 4 a lane" else edges
                    blocks = max(1, -(-work // BLOCK)) if shape == "edges" else 2 * sms
                    if variant == "pull":
                        args = (indptr, indices, frontier_bits, np.int64(n), visited, parents, queue, counters)
                        launch = (kernels["pull_level"], 0)
                    elif variant == "full, 4 a lane":
                        args = (indptr, indices, frontier, offsets, np.int32(frontier_host.size), np.int64(edges),
                                visited, parents, queue, counters)
                        launch = (kernels["push_level_4"], shared)
                    else:
                        args = (indptr, indices, frontier, offsets, np.int32(frontier_host.size), np.int64(edges),
                                visited, parents, queue, counters, np.int32(VARIANTS.index(variant)))
                        launch = (kernels["push_level"], shared)
                    times = []
                    for _ in range(calls):
                        flush.fill(1)
                        visited[...] = visited0
                        counters.fill(0)
                        parents.fill(-1)
                        start, stop = cp.cuda.Event(), cp.cuda.Event()
                        start.record()
                        launch[0]((blocks,), (BLOCK,), args, shared_mem=launch[1])
                        stop.record()
                        stop.synchronize()
                        times.append(1e3 * cp.cuda.get_elapsed_time(start, stop))
                    if variant != "load":
                        check(variant, visited, visited0, parents, queue, counters, expected, depths, S)
                    us = statistics.median(times)
                    run["us"][f"{variant}, grid: {shape}"] = us
                    print(f"  {variant:16s} grid: {shape:8s} {us:8.1f} us  ({edges / us / 1e3:.1f} G edges/s)", flush=True)
            record["runs"].append(run)
    if json_path:
        write_json(record, json_path)


def check(variant, visited, visited0, parents, queue, counters, expected, depths, S):
    """The claimed vertices are exactly those at depth 3, each with a parent at depth 2 that is
    adjacent; the queue holds them once each."""
    import cupy as cp
    bits = cp.asnumpy(visited & ~visited0)
    claimed = np.flatnonzero(np.unpackbits(bits.view(np.uint8), bitorder="little"))
    if not np.array_equal(claimed, expected):
        raise SystemExit(f"{variant}: claimed {claimed.size} vertices, expected {expected.size}")
    if variant in ("full", "full, 4 a lane", "pull"):
        count = int(counters[0])
        listed = np.sort(cp.asnumpy(queue[:count]))
        if not np.array_equal(listed, expected):
            raise SystemExit(f"{variant}: the queue holds {count} entries, expected {expected.size}")
    parent = cp.asnumpy(parents)[expected]
    if (depths[parent] != 2).any() or not np.asarray(S[parent, expected]).all():
        raise SystemExit(f"{variant}: a parent is not an adjacent vertex at depth 2")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("specs", nargs="+", type=parse_spec, metavar="kron:SCALE")
    parser.add_argument("--roots", type=int, default=6, help="roots after gpu_quick's warm-up root (default 6)")
    parser.add_argument("--calls", type=int, default=15, help="timed launches a variant (default 15)")
    parser.add_argument("--json", help="also write a record here")
    options = parser.parse_args()
    main(options.specs, options.roots, options.calls, options.json)
