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
  rows          the winner reads its row offsets (the next level's out-edges), summed a block
                and added with one atomic a block (``warp sums``: one a warp);
  append        the winners appended to the next queue, one atomic a warp on its one counter
                (``staged``: a block's finds of a step staged in shared memory, one atomic a
                block a step);
  depths        the winner writes its depth beside its parent, as the package's search does;
  4 a lane      each lane takes 4 edges a step, every load of a phase issued before any is used;
  pull          the level bottom-up: a thread an unvisited vertex scans its in-edges (the graph
                is symmetric) for a frontier bit, writes the parent it finds, and appends.

Each variant runs one thread an edge over a grid the hardware schedules (``grid: edges``) and as
the fused kernel's persistent shape, two blocks of 512 threads a multiprocessor striding over
the edges (``grid: 2 an SM``), each with the L2 flushed before each timed launch (a write over
a buffer twice its size) and warm (the last launch's data left in it: the package's search
lies between, its earlier levels and searches having read some of the graph). The visited bits
and counters are reset before each launch; CUDA events time the launch alone. Every run is checked: the vertices claimed are exactly those at depth 3, each
parent is at depth 2 and adjacent (a search of the vertex's row on the device).

    python3 benchmarks/probes/big_level_floor.py kron:20 [kron:22] [--roots 6] [--calls 15] [--json out.json]
"""
import argparse
import itertools
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

// the lane's place among its warp's `found` lanes, reserved with one atomic a warp on *tail
template <typename T>
__device__ __forceinline__ T warp_place(bool found, T* tail) {
    const int lane = threadIdx.x & 31;
    const u32 mask = __ballot_sync(0xffffffffu, found);
    if (!mask) return 0;
    const int leader = __ffs(mask) - 1;
    T at = 0;
    if (lane == leader) at = atomicAdd(tail, (T)__popc(mask));
    return __shfl_sync(0xffffffffu, at, leader) + (T)__popc(mask & ((1u << lane) - 1));
}

// what a warp found, appended with one atomic a warp on the queue's counter
__device__ __forceinline__ void warp_append(bool found, i64 v, i64* queue, u64* tail) {
    const u64 at = warp_place(found, tail);
    if (found) queue[at] = v;
}

// a warp's sum of `x` (lane 0 has it)
__device__ __forceinline__ i64 warp_sum(i64 x) {
    for (int d = 16; d; d >>= 1) x += __shfl_down_sync(0xffffffffu, x, d);
    return x;
}

// the block's sum of `x` added to `*total` with one atomic (every thread of the block calls it)
__device__ __forceinline__ void block_add(i64 x, u64* total, u64* s_sum) {
    if (threadIdx.x == 0) *s_sum = 0;
    __syncthreads();
    x = warp_sum(x);
    if ((threadIdx.x & 31) == 0 && x) atomicAdd(s_sum, (u64)x);
    __syncthreads();
    if (threadIdx.x == 0 && *s_sum) atomicAdd(total, *s_sum);
}

// what the block found this step, staged in shared memory (one shared atomic a warp), then moved
// to the queue with one global atomic (every thread of the block calls it)
__device__ __forceinline__ void block_append(bool found, i64 v, i64* queue, u64* tail, i64* s_stage,
                                             unsigned* s_count, u64* s_base) {
    __syncthreads();        // the last step's copy has read the count
    if (threadIdx.x == 0) *s_count = 0;
    __syncthreads();
    const unsigned at = warp_place(found, s_count);
    if (found) s_stage[at] = v;
    __syncthreads();
    if (threadIdx.x == 0 && *s_count) *s_base = atomicAdd(tail, (u64)*s_count);
    __syncthreads();
    for (unsigned k = threadIdx.x; k < *s_count; k += blockDim.x) queue[*s_base + k] = s_stage[k];
}

#define ROWS 1          // the winner reads its row offsets (the next level's out-edges)
#define APPEND 2        // the winners appended, one global atomic a warp
#define STAGED 4        // the winners appended, one global atomic a block a step
#define WARP_SUMS 8     // the out-edges added one atomic a warp (else one a block)
#define LOAD_ONLY 16    // the neighbours read, nothing else
#define DEPTHS 32       // the winner writes its depth beside its parent, as the package's search does

// counters: [0] the queue's tail, [1] the found vertices' out-edges, [2] a sink
extern "C" __global__ void push_level(const i64* indptr, const int* indices, const i64* frontier,
                                      const i64* offsets, int nf, i64 edges, u32* visited, i64* parents,
                                      i64* queue, u64* counters, i64* depths, int mode) {
    extern __shared__ i64 shared[];
    __shared__ i64 s_stage[1024];
    __shared__ unsigned s_count;
    __shared__ u64 s_base, s_sum;
    i64* s_offsets = shared;
    i64* s_frontier = shared + nf + 1;
    stage_frontier(frontier, offsets, nf, s_frontier, s_offsets);
    const i64 stride = (i64)gridDim.x * blockDim.x;
    i64 sink = 0, degrees = 0;
    for (i64 chunk = (i64)blockIdx.x * blockDim.x; chunk < edges; chunk += stride) {     // block-uniform
        const i64 e = chunk + threadIdx.x;
        bool found = false;
        i64 v = 0, degree = 0;
        if (e < edges) {
            const int k = owner_of(s_offsets, nf, e);
            const i64 u = s_frontier[k];
            v = indices[indptr[u] + (e - s_offsets[k])];
            if (mode & LOAD_ONLY) {
                sink += v;
            } else {
                const u32 bit = 1u << (v & 31);
                if (!(*(volatile u32*)&visited[v >> 5] & bit) && !(atomicOr(&visited[v >> 5], bit) & bit)) {
                    found = true;
                    parents[v] = u;
                    if (mode & DEPTHS) depths[v] = 3;
                    if (mode & ROWS) degree = indptr[v + 1] - indptr[v];
                }
            }
        }
        if (mode & APPEND) warp_append(found, v, queue, &counters[0]);
        if (mode & STAGED) block_append(found, v, queue, &counters[0], s_stage, &s_count, &s_base);
        if (mode & WARP_SUMS) {
            degree = warp_sum(degree);
            if ((threadIdx.x & 31) == 0 && degree) atomicAdd(&counters[1], (u64)degree);
        } else {
            degrees += degree;
        }
    }
    if ((mode & ROWS) && !(mode & WARP_SUMS)) block_add(degrees, &counters[1], &s_sum);
    if (sink == -1) counters[2] = sink;       // keeps the loads of LOAD_ONLY
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
    __shared__ u64 s_sum;
    const i64 stride = 4 * (i64)gridDim.x * blockDim.x;
    const i64 first = 4 * ((i64)blockIdx.x * blockDim.x + (threadIdx.x & ~31)) + (threadIdx.x & 31);
    i64 degrees = 0;
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
        for (int j = 0; j < 4; ++j) warp_append(found[j], live[j] ? v[j] : 0, queue, &counters[0]);
        degrees += degree;
    }
    block_add(degrees, &counters[1], &s_sum);
}

// ok[i]: whether parents[v] is among v's neighbours, v = vertices[i] (the graph is symmetric)
extern "C" __global__ void adjacent(const i64* indptr, const int* indices, const i64* vertices, i64 count,
                                    const i64* parents, int* ok) {
    const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const i64 v = vertices[i], p = parents[v];
    int found = 0;
    for (i64 e = indptr[v]; e < indptr[v + 1] && !found; ++e) found = indices[e] == p;
    ok[i] = found;
}

// the level bottom-up: a thread an unvisited vertex, its in-edges scanned for a frontier bit
extern "C" __global__ void pull_level(const i64* indptr, const int* indices, const u32* frontier_bits, i64 n,
                                      u32* visited, i64* parents, i64* queue, u64* counters) {
    __shared__ u64 s_sum;
    const i64 stride = (i64)gridDim.x * blockDim.x;
    const i64 first = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    i64 degrees = 0;
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
        warp_append(found, v, queue, &counters[0]);
        degrees += degree;
    }
    block_add(degrees, &counters[1], &s_sum);
}
"""

#: the push level's variants: their modes (push_level's flags), or the kernel that runs them
ROWS, APPEND, STAGED, WARP_SUMS, LOAD_ONLY, DEPTHS = 1, 2, 4, 8, 16, 32
PUSH_MODES = {"load": LOAD_ONLY, "claim": 0, "claim, rows": ROWS, "claim, rows, warp sums": ROWS | WARP_SUMS,
              "claim, append": APPEND, "claim, rows, append": ROWS | APPEND,
              "claim, rows, depths, append": ROWS | DEPTHS | APPEND,
              "claim, rows, depths, staged append": ROWS | DEPTHS | STAGED}
VARIANTS = (*PUSH_MODES, "claim, rows, append, 4 a lane", "pull")
#: the variants that fill the next queue (the check reads it)
APPENDING = tuple(name for name, mode in PUSH_MODES.items() if mode & (APPEND | STAGED)) + VARIANTS[-2:]
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
    kernels = {name: module.get_function(name) for name in ("push_level", "push_level_4", "pull_level", "adjacent")}
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
        host_indptr = cp.asnumpy(indptr)
        roots = [int(v) for v in A.out_degree().indices()[:roots_count + 1]][1:]
        for root in roots:
            depths, package = third_level_of(A, root)
            frontier_host = np.flatnonzero(depths == 2)
            if frontier_host.size == 0 or frontier_host.size > MAX_FRONTIER:
                print(f"{spec.text} root {root}: third frontier of {frontier_host.size}, skipped", flush=True)
                continue
            degrees = host_indptr[frontier_host + 1] - host_indptr[frontier_host]
            offsets_host = np.concatenate([[0], np.cumsum(degrees)]).astype(np.int64)
            edges = int(offsets_host[-1])
            expected = np.flatnonzero(depths == 3)
            adjacency = (kernels["adjacent"], indptr, indices, cp.asarray(expected))
            frontier, offsets = cp.asarray(frontier_host), cp.asarray(offsets_host)
            seen_before = np.zeros((n + 31) // 32 * 32, dtype=bool)
            seen_before[np.flatnonzero((depths >= 0) & (depths <= 2))] = True
            visited0 = cp.asarray(np.packbits(seen_before, bitorder="little").view(np.uint32))
            frontier_bits_host = np.zeros_like(seen_before)
            frontier_bits_host[frontier_host] = True
            frontier_bits = cp.asarray(np.packbits(frontier_bits_host, bitorder="little").view(np.uint32))
            visited, parents = cp.empty_like(visited0), cp.full(n, -1, dtype=cp.int64)
            queue, counters = cp.empty(n, dtype=cp.int64), cp.zeros(3, dtype=cp.uint64)
            depths_out = cp.empty(n, dtype=cp.int64)
            shared = 2 * 8 * (frontier_host.size + 1)
            run = {"graph": spec.text, "root": root, "frontier": int(frontier_host.size), "edges": edges,
                   "found": int(expected.size), "package": package, "us": {}}
            print(f"{spec.text} root {root}: third level {frontier_host.size} entries, {edges:,} edges, "
                  f"{expected.size:,} found; the package's: "
                  + ", ".join(f"{d} {r['direction']} {r['us']:.1f} us" for d, r in package.items()), flush=True)
            for variant in VARIANTS:
                line = []
                for shape, cache in itertools.product(("edges", "2 an SM"), ("flushed", "warm")):
                    work = n if variant == "pull" else (edges + 3) // 4 if variant.endswith("4 a lane") else edges
                    blocks = max(1, -(-work // BLOCK)) if shape == "edges" else 2 * sms
                    if variant == "pull":
                        args = (indptr, indices, frontier_bits, np.int64(n), visited, parents, queue, counters)
                        launch = (kernels["pull_level"], 0)
                    elif variant.endswith("4 a lane"):
                        args = (indptr, indices, frontier, offsets, np.int32(frontier_host.size), np.int64(edges),
                                visited, parents, queue, counters)
                        launch = (kernels["push_level_4"], shared)
                    else:
                        args = (indptr, indices, frontier, offsets, np.int32(frontier_host.size), np.int64(edges),
                                visited, parents, queue, counters, depths_out, np.int32(PUSH_MODES[variant]))
                        launch = (kernels["push_level"], shared)
                    times = []
                    for _ in range(calls):
                        if cache == "flushed":
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
                        check(variant, visited, visited0, parents, queue, counters, expected, depths, adjacency)
                    us = statistics.median(times)
                    run["us"][f"{variant}, grid: {shape}, {cache}"] = us
                    line.append(f"{shape} {cache} {us:6.1f}")
                print(f"  {variant:36s} us: " + ", ".join(line), flush=True)
            record["runs"].append(run)
            if json_path:           # after each root: a run cut short keeps what it measured
                write_json(record, json_path)


def check(variant, visited, visited0, parents, queue, counters, expected, depths, adjacency):
    """The claimed vertices are exactly those at depth 3, each with a parent at depth 2 that is
    adjacent (``adjacency``: the kernel that tells, the CSR and the expected vertices on the
    device); the queue holds them once each."""
    import cupy as cp
    bits = cp.asnumpy(visited & ~visited0)
    claimed = np.flatnonzero(np.unpackbits(bits.view(np.uint8), bitorder="little"))
    if not np.array_equal(claimed, expected):
        raise SystemExit(f"{variant}: claimed {claimed.size} vertices, expected {expected.size}")
    if variant in APPENDING:
        count = int(counters[0])
        listed = np.sort(cp.asnumpy(queue[:count]))
        if not np.array_equal(listed, expected):
            raise SystemExit(f"{variant}: the queue holds {count} entries, expected {expected.size}")
    parent = cp.asnumpy(parents)[expected]
    kernel, indptr, indices, vertices = adjacency
    ok = cp.zeros(vertices.size, dtype=cp.int32)
    kernel((max(1, -(-vertices.size // 256)),), (256,), (indptr, indices, vertices, np.int64(vertices.size), parents, ok))
    if (depths[parent] != 2).any() or not bool(ok.all()):
        raise SystemExit(f"{variant}: a parent is not an adjacent vertex at depth 2")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("specs", nargs="+", type=parse_spec, metavar="kron:SCALE")
    parser.add_argument("--roots", type=int, default=6, help="roots after gpu_quick's warm-up root (default 6)")
    parser.add_argument("--calls", type=int, default=15, help="timed launches a variant (default 15)")
    parser.add_argument("--json", help="also write a record here")
    options = parser.parse_args()
    main(options.specs, options.roots, options.calls, options.json)
