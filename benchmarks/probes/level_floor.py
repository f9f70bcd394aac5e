"""What a BFS level costs on this GPU with nothing but the level: a floor under the fused
search's deep levels. One cooperative kernel runs a whole level-synchronous search of a mesh
from its corner, a thread a frontier entry, levels separated by cooperative_groups' grid.sync,
and writes the frontier's size and %globaltimer as each level starts (one thread, one store
each), so that every level's time is measured. Variants:

  bare     claim each out-neighbour with atomicOr on the visited bits, write its parent and
           append it to the next queue (one atomic a warp); the edges' loads, then all claims,
           are issued before any is used;
  rule     bare, plus what a fused level must also produce: the found vertices' out-edges
           (read beside the claim, summed a block, one atomic a block), the direction rule's
           arithmetic on them, and the level's record;
  two-hop  two levels a grid round (the design the fused kernel's notes proposed): claims are
           an atomic minimum on a packed (depth, parent) word, whoever lowers a vertex to L + 1
           walks it in the same round, and the next round skips entries since lowered;
  bitmap   rule, with the next frontier as bits that the claim's winner sets (off the chain)
           and the next level scans, instead of a queue and its append;
  tally    rule, with the level's counts carried by its barrier (a block's arrival is added to
           the counters' own words, and it leaves when they show every block's), so that no
           read of them follows the barrier;
  inbox    rule by one thread block cluster, the frontier in its blocks' shared memories:
           vertex v is block (v mod cluster size)'s, found vertices go to their owner's inbox
           with a remote shared atomic, and no global queue is read or appended to.

The rule's kernel also runs by one block (block barriers) and by one cluster of 2 to 16 blocks
(the cluster's barrier), as does inbox (`small_launches`; `--brief` runs only those and the
grid's rule and tally). Entries go to threads in block order (a small frontier fills the first blocks) or spread
(thread k of every block before thread k + 1 of any); blocks are one a multiprocessor, of 128,
256 and 512 threads. Beside them, in the same process, the package's own fused search of the
same graph (push, `ld.bfs`), its levels' records banded the same way. Every run is checked:
parents one level up, levels' sizes (or depths) equal to scipy's breadth-first distances.

    python3 benchmarks/probes/level_floor.py [--meshes 1000x1000,2000x2000] [--calls 7] [--json out.json]
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from lagraph_dist.core.version import code_identity
from lagraph_dist.tools.bench import banded_levels, write_json
from lagraph_dist.core.settings import settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # benchmarks/, for harness
from harness import scipy_csr  # noqa: E402

SOURCE = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
typedef unsigned long long u64;

__device__ __forceinline__ u64 now_ns() { u64 t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }

// the first of a thread's entries: block order, or spread (thread k of every block first)
__device__ __forceinline__ unsigned first_entry(int spread) {
    return spread ? threadIdx.x * gridDim.x + blockIdx.x : blockIdx.x * blockDim.x + threadIdx.x;
}

// the ids whose bit is set in `mask`, appended to `queue` with one atomic a warp on `count`
// (a 64-bit tail's top 16 bits may count a barrier's arrivals: tally_levels)
#define TAIL_VALUE ((C)0xFFFFFFFFFFFFull)
template <int N, typename C>
__device__ __forceinline__ void warp_append(const int (&ids)[N], unsigned mask, C* count, int* queue) {
    const int lane = threadIdx.x & 31, mine = __popc(mask);
    int inclusive = mine;
    for (int d = 1; d < 32; d <<= 1) {
        const int below = __shfl_up_sync(0xffffffffu, inclusive, d);
        if (lane >= d) inclusive += below;
    }
    const int total = __shfl_sync(0xffffffffu, inclusive, 31);
    if (total == 0) return;
    C at = 0;
    if (lane == 31) at = atomicAdd(count, (C)total) & TAIL_VALUE;
    at = __shfl_sync(0xffffffffu, at, 31) + inclusive - mine;
    for (int k = 0; k < N; ++k)
        if (mask >> k & 1) queue[at++] = ids[k];
}

// v added into a block's shared sum (zeroed before; read after the caller's __syncthreads)
__device__ __forceinline__ void block_add(long long v, unsigned long long* sum) {
    for (int d = 16; d; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
    if ((threadIdx.x & 31) == 0 && v) atomicAdd(sum, (unsigned long long)v);
}

// a row's next four edges from `step` (of those before `end`): the neighbours' loads, then all
// their claims (atomicOr on the visited bits) with, where DEGREES, their out-edges read beside,
// issued before any is used; the winners' parents written. Returns the winners as bits of w.
template <bool DEGREES>
__device__ __forceinline__ unsigned claim_four(const int* __restrict__ indptr, const int* __restrict__ indices,
                                               unsigned* visited, int* parent, int u, int step, int end,
                                               int (&w)[4], long long& found_edges) {
    int ws[4], we[4];
    unsigned before[4], fresh = 0;
    for (int k = 0; k < 4; ++k) w[k] = step + k < end ? indices[step + k] : -1;
    for (int k = 0; k < 4; ++k) {
        before[k] = ~0u;
        if (w[k] < 0) continue;
        before[k] = atomicOr(&visited[w[k] >> 5], 1u << (w[k] & 31));
        if (DEGREES) { ws[k] = indptr[w[k]]; we[k] = indptr[w[k] + 1]; }
    }
    for (int k = 0; k < 4; ++k)
        if (w[k] >= 0 && !(before[k] >> (w[k] & 31) & 1u)) {
            parent[w[k]] = u;
            fresh |= 1u << k;
            if (DEGREES) found_edges += we[k] - ws[k];
        }
    return fresh;
}

// a level's frontier (`nf` ids at `frontier`), entry i by the thread whose first entry is `me`
// (mod nthreads): each row four edges a step, the winners appended to `next` on `tail`
template <bool DEGREES, typename C>
__device__ __forceinline__ void walk_queue(const int* __restrict__ indptr, const int* __restrict__ indices,
                                           unsigned* visited, int* parent, const int* frontier, unsigned nf,
                                           unsigned nthreads, unsigned me, C* tail, int* next, long long& found_edges) {
    for (unsigned round = 0; round < nf; round += nthreads) {
        const unsigned i = round + me;
        int u = -1, start = 0, end = 0;
        if (i < nf) { u = __ldcg(&frontier[i]); start = indptr[u]; end = indptr[u + 1]; }
        for (int step = start;; step += 4) {
            const bool more = step < end;
            if (!__any_sync(0xffffffffu, more)) break;
            int w[4];
            const unsigned fresh = claim_four<DEGREES>(indptr, indices, visited, parent, u, step, end, w, found_edges);
            warp_append(w, fresh, tail, next);
        }
    }
}

// the direction rule's arithmetic (Beamer's test, as the fused kernel evaluates it each level)
__device__ __forceinline__ bool rule_push(bool push, long long nf, long long edges, long long unexplored, long long n) {
    return push ? !((double)edges > (double)unexplored / 14.0) : (double)nf < (double)n / 24.0;
}

// the barrier between levels: the whole grid's, one thread block cluster's (the launch is one
// cluster), or one block's (the launch is one block)
struct grid_barrier { __device__ void operator()() const { cg::this_grid().sync(); } };
struct cluster_barrier { __device__ void operator()() const { cg::this_cluster().sync(); } };
struct block_barrier { __device__ void operator()() const { __syncthreads(); } };

// one level a round of the launch, the frontier a queue (three slots: level L reads L % 3,
// appends to (L + 1) % 3 and clears the counters of (L + 2) % 3, read before the last barrier)
template <bool RULE, typename Barrier>
__device__ void level_loop(const int* __restrict__ indptr, const int* __restrict__ indices, unsigned* visited,
                           int* parent, int* queue, unsigned* counts, long long* edges, int n, int spread,
                           u64* started, unsigned* sizes) {
    const Barrier barrier;
    __shared__ unsigned long long block_edges;
    const unsigned nthreads = gridDim.x * blockDim.x, me = first_entry(spread);
    const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
    long long unexplored = indptr[n];
    bool push = true;
    if (threadIdx.x == 0) block_edges = 0;
    for (int level = 0;; ++level) {
        const int cur = level % 3, nxt = (level + 1) % 3, old = (level + 2) % 3;
        const unsigned nf = __ldcg(&counts[cur]);
        if (leader) { started[level] = now_ns(); sizes[level] = nf; }
        if (nf == 0) break;
        if (RULE) {
            const long long fe = __ldcg(&edges[cur]);
            unexplored -= fe;
            push = rule_push(push, nf, fe, unexplored, n);
        }
        long long found_edges = 0;
        walk_queue<RULE>(indptr, indices, visited, parent, queue + (size_t)cur * n, nf, nthreads, me, &counts[nxt],
                         queue + (size_t)nxt * n, found_edges);
        if (RULE) {
            block_add(found_edges, &block_edges);
            __syncthreads();
            if (threadIdx.x == 0) {
                if (block_edges) atomicAdd((unsigned long long*)&edges[nxt], block_edges);
                block_edges = 0;
            }
        }
        if (leader) { counts[old] = 0; edges[old] = 0; }
        barrier();
    }
}

#define LEVEL_ARGS const int* __restrict__ indptr, const int* __restrict__ indices, unsigned* visited, int* parent, \
                   int* queue, unsigned* counts, long long* edges, int n, int spread, u64* started, unsigned* sizes
#define LEVEL_PASS indptr, indices, visited, parent, queue, counts, edges, n, spread, started, sizes
template <bool RULE> __global__ void queue_levels(LEVEL_ARGS) { level_loop<RULE, grid_barrier>(LEVEL_PASS); }
template <bool RULE> __global__ void block_levels(LEVEL_ARGS) { level_loop<RULE, block_barrier>(LEVEL_PASS); }
#ifdef LF_CLUSTER
template <bool RULE>
__global__ void __cluster_dims__(LF_CLUSTER, 1, 1) cluster_levels(LEVEL_ARGS) { level_loop<RULE, cluster_barrier>(LEVEL_PASS); }

// rule, run by one cluster with the frontier in its blocks' shared memories: vertex v belongs to
// block v % LF_CLUSTER, whose inbox lists it; a level reads its block's inbox (a shared load,
// not a global queue entry) and appends what it finds to the owners' next inboxes with a remote
// shared atomic (distributed shared memory), so that no global queue or its tail is on the
// chain; a block's count and found out-edges are read by every block after the barrier. Two
// inboxes a block (level L reads L % 2 and fills (L + 1) % 2, which only its owner read, during
// level L - 1) and three counts (level L reads L % 3 from every block, fills (L + 1) % 3 and
// zeroes its own (L + 2) % 3, which every block read before the barrier ending level L - 1).
#define INBOX 4096
__global__ void __cluster_dims__(LF_CLUSTER, 1, 1)
inbox_levels(const int* __restrict__ indptr, const int* __restrict__ indices, unsigned* visited, int* parent,
             unsigned* overflow, int n, u64* started, unsigned* sizes) {
    cg::cluster_group cluster = cg::this_cluster();
    __shared__ int inbox[2][INBOX];
    __shared__ unsigned inbox_count[3];
    __shared__ unsigned long long block_edges[3], total[2];
    const unsigned rank = cluster.block_rank();
    const bool leader = rank == 0 && threadIdx.x == 0;
    long long unexplored = indptr[n];
    bool push = true;
    if (threadIdx.x == 0) {
        inbox_count[0] = rank == 0 ? 1u : 0u;      // the source, vertex 0, is block 0's
        inbox_count[1] = inbox_count[2] = 0;
        inbox[0][0] = 0;
        block_edges[0] = rank == 0 ? (unsigned long long)(indptr[1] - indptr[0]) : 0ull;
        block_edges[1] = block_edges[2] = 0;
    }
    cluster.sync();
    for (int level = 0;; ++level) {
        const int cur = level & 1, nxt = cur ^ 1;                                  // inboxes
        const int c3 = level % 3, n3 = (level + 1) % 3, o3 = (level + 2) % 3;      // counts
        // the cluster's frontier: every block's count and out-edges (a remote read each)
        if (threadIdx.x < 32) {
            unsigned long long count = 0, edges = 0;
            if (threadIdx.x < LF_CLUSTER) {
                count = *cluster.map_shared_rank(&inbox_count[c3], threadIdx.x);
                edges = *cluster.map_shared_rank(&block_edges[c3], threadIdx.x);
            }
            for (int d = 16; d; d >>= 1) {
                count += __shfl_down_sync(0xffffffffu, count, d);
                edges += __shfl_down_sync(0xffffffffu, edges, d);
            }
            if (threadIdx.x == 0) { total[0] = count; total[1] = edges; }
        }
        __syncthreads();
        const unsigned long long nf = total[0], fe = total[1];
        if (leader) { started[level] = now_ns(); sizes[level] = (unsigned)nf; }
        if (nf == 0) break;
        unexplored -= (long long)fe;
        push = rule_push(push, (long long)nf, (long long)fe, unexplored, n);
        const unsigned mine = min(inbox_count[c3], (unsigned)INBOX);
        long long found_edges = 0;
        for (unsigned round = 0; round < mine; round += blockDim.x) {
            const unsigned i = round + threadIdx.x;
            int u = -1, start = 0, end = 0;
            if (i < mine) { u = inbox[cur][i]; start = indptr[u]; end = indptr[u + 1]; }
            for (int step = start; step < end; step += 4) {
                int w[4];
                const unsigned fresh = claim_four<true>(indptr, indices, visited, parent, u, step, end, w, found_edges);
                for (int k = 0; k < 4; ++k)
                    if (fresh >> k & 1) {
                        const unsigned owner = (unsigned)w[k] % LF_CLUSTER;
                        const unsigned at = atomicAdd(cluster.map_shared_rank(&inbox_count[n3], owner), 1u);
                        if (at < INBOX) cluster.map_shared_rank(&inbox[nxt][0], owner)[at] = w[k];
                        else atomicOr(overflow, 1u);
                    }
            }
        }
        for (int d = 16; d; d >>= 1) found_edges += __shfl_down_sync(0xffffffffu, found_edges, d);
        if ((threadIdx.x & 31) == 0 && found_edges) atomicAdd(&block_edges[n3], (unsigned long long)found_edges);
        if (threadIdx.x == 0) { inbox_count[o3] = 0; block_edges[o3] = 0; }
        cluster.sync();
    }
    cluster.sync();                      // no block leaves while another may still read its memory
}
#endif

// rule, with the level's counts carried by its barrier: every block adds its arrival
// (1 << TALLY_SHIFT) to the next slot's count word (the appends' tail) and, with its found
// out-edges, to its edges word; a block leaves when both words show every block's arrival, so
// the values it waited on are the counts, with no read of them after the barrier
#define TALLY_SHIFT 48
#define TALLY_VALUE ((1ull << TALLY_SHIFT) - 1)
__device__ __forceinline__ u64 load_acquire(const u64* word) {
    u64 v;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(word) : "memory");
    return v;
}

__global__ void tally_levels(const int* __restrict__ indptr, const int* __restrict__ indices, unsigned* visited,
                             int* parent, int* queue, u64* tally, int n, int spread, u64* started, unsigned* sizes) {
    __shared__ unsigned long long block_edges, seen[2];
    const unsigned nthreads = gridDim.x * blockDim.x, me = first_entry(spread);
    const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
    long long unexplored = indptr[n];
    bool push = true;
    u64 nf = __ldcg(&tally[0]) & TALLY_VALUE, fe = __ldcg(&tally[3]) & TALLY_VALUE;
    if (threadIdx.x == 0) block_edges = 0;
    for (int level = 0;; ++level) {
        const int cur = level % 3, nxt = (level + 1) % 3, old = (level + 2) % 3;
        if (leader) { started[level] = now_ns(); sizes[level] = (unsigned)nf; }
        if (nf == 0) break;
        unexplored -= (long long)fe;
        push = rule_push(push, (long long)nf, (long long)fe, unexplored, n);
        long long found_edges = 0;
        walk_queue<true>(indptr, indices, visited, parent, queue + (size_t)cur * n, (unsigned)nf, nthreads, me,
                         &tally[nxt], queue + (size_t)nxt * n, found_edges);
        block_add(found_edges, &block_edges);
        if (leader) { tally[old] = 0; tally[3 + old] = 0; }
        __syncthreads();
        if (threadIdx.x < 2) {
            u64* word = &tally[3 * threadIdx.x + nxt];
            __threadfence();
            atomicAdd(word, (1ull << TALLY_SHIFT) + (threadIdx.x ? block_edges : 0ull));
            u64 v;
            do v = load_acquire(word); while ((v >> TALLY_SHIFT) < gridDim.x);
            seen[threadIdx.x] = v & TALLY_VALUE;
        }
        __syncthreads();
        nf = seen[0], fe = seen[1];
        if (threadIdx.x == 0) block_edges = 0;
    }
}

// two levels a grid round on a graph of rows of at most 4 edges: round r reads the vertices
// appended at depth L = 2r (skipping those since lowered), proposes (L + 1, u) to each
// neighbour with an atomic minimum on its packed word, and whoever lowers a vertex to L + 1
// proposes (L + 2, it) to that vertex's neighbours; a vertex raised from unseen to L + 2 is
// appended for the next round
#define DEPTH(x) ((unsigned)((x) >> 32))
__global__ void two_hop_levels(const int* __restrict__ indptr, const int* __restrict__ indices, u64* word,
                               int* queue, unsigned* counts, int n, int spread, u64* started, unsigned* sizes) {
    cg::grid_group grid = cg::this_grid();
    const unsigned nthreads = gridDim.x * blockDim.x, me = first_entry(spread);
    const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
    for (int r = 0;; ++r) {
        const unsigned level = 2 * r;
        const int cur = r % 3, nxt = (r + 1) % 3, old = (r + 2) % 3;
        const unsigned nf = __ldcg(&counts[cur]);
        if (leader) { started[r] = now_ns(); sizes[r] = nf; }
        if (nf == 0) break;
        const u64 first = (u64)(level + 1) << 32, second = (u64)(level + 2) << 32;
        for (unsigned round = 0; round < nf; round += nthreads) {
            const unsigned i = round + me;
            int u = -1, start = 0, end = 0;
            if (i < nf) {
                u = __ldcg(&queue[(size_t)cur * n + i]);
                const unsigned depth = DEPTH(__ldcg(&word[u]));
                start = indptr[u];
                end = depth == level ? indptr[u + 1] : start;      // lowered to L - 1 since
            }
            int w[4], ws[4], we[4], x[16];
            u64 before[4], before2[16];
            for (int k = 0; k < 4; ++k) w[k] = start + k < end ? indices[start + k] : -1;
            for (int k = 0; k < 4; ++k) {
                ws[k] = we[k] = 0;
                if (w[k] < 0) continue;
                before[k] = atomicMin(&word[w[k]], first | (unsigned)u);
                ws[k] = indptr[w[k]];
                we[k] = indptr[w[k] + 1];
            }
            for (int k = 0; k < 4; ++k) {
                if (w[k] < 0 || DEPTH(before[k]) <= level + 1) we[k] = ws[k];      // not lowered here
                for (int q = 0; q < 4; ++q) x[4 * k + q] = ws[k] + q < we[k] ? indices[ws[k] + q] : -1;
            }
            for (int k = 0; k < 4; ++k)
                for (int q = 0; q < 4; ++q)
                    before2[4 * k + q] = x[4 * k + q] >= 0 ? atomicMin(&word[x[4 * k + q]], second | (unsigned)w[k]) : 0ull;
            unsigned fresh = 0;
            for (int j = 0; j < 16; ++j)
                if (x[j] >= 0 && DEPTH(before2[j]) > level + 2) fresh |= 1u << j;
            warp_append(x, fresh, &counts[nxt], queue + (size_t)nxt * n);
        }
        if (leader) counts[old] = 0;
        grid.sync();
    }
}

// one level a grid round, the frontier bits: the claim's winner sets its bit in the next
// frontier (a reduction, not waited on); a level scans the frontier's words, clearing those it
// read (two bitmaps suffice), and counts what it found a block
__global__ void bitmap_levels(const int* __restrict__ indptr, const int* __restrict__ indices, unsigned* visited,
                              int* parent, unsigned* frontier, unsigned* counts, long long* edges, int n,
                              u64* started, unsigned* sizes) {
    cg::grid_group grid = cg::this_grid();
    __shared__ unsigned long long block_edges, block_found;
    const int nthreads = gridDim.x * blockDim.x, thread = blockIdx.x * blockDim.x + threadIdx.x;
    const int nwords = (n + 31) / 32;
    const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
    long long unexplored = indptr[n];
    bool push = true;
    if (threadIdx.x == 0) block_edges = block_found = 0;
    for (int level = 0;; ++level) {
        const int c3 = level % 3, n3 = (level + 1) % 3, o3 = (level + 2) % 3;
        const unsigned nf = __ldcg(&counts[c3]);
        if (leader) { started[level] = now_ns(); sizes[level] = nf; }
        if (nf == 0) break;
        const long long fe = __ldcg(&edges[c3]);
        unexplored -= fe;
        push = rule_push(push, nf, fe, unexplored, n);
        unsigned* bits_now = frontier + (size_t)(level & 1) * nwords;
        unsigned* bits_next = frontier + (size_t)((level + 1) & 1) * nwords;
        long long found = 0, found_edges = 0;
        for (int base = thread; base < nwords; base += 4 * nthreads) {
            unsigned bits[4];
            for (int k = 0; k < 4; ++k) bits[k] = base + k * nthreads < nwords ? __ldcg(&bits_now[base + k * nthreads]) : 0u;
            for (int k = 0; k < 4; ++k) {
                if (!bits[k]) continue;
                bits_now[base + k * nthreads] = 0u;
                for (unsigned b = bits[k]; b; b &= b - 1) {
                    const int u = (base + k * nthreads) * 32 + __ffs(b) - 1;
                    const int start = indptr[u], end = indptr[u + 1];
                    for (int step = start; step < end; step += 4) {
                        int w[4];
                        const unsigned fresh = claim_four<true>(indptr, indices, visited, parent, u, step, end, w,
                                                                found_edges);
                        for (int q = 0; q < 4; ++q)
                            if (fresh >> q & 1) atomicOr(&bits_next[w[q] >> 5], 1u << (w[q] & 31));
                        found += __popc(fresh);
                    }
                }
            }
        }
        block_add(found, &block_found);
        block_add(found_edges, &block_edges);
        __syncthreads();
        if (threadIdx.x == 0) {
            if (block_found) {
                atomicAdd(&counts[n3], (unsigned)block_found);
                atomicAdd((unsigned long long*)&edges[n3], block_edges);
            }
            block_found = block_edges = 0;
        }
        if (leader) { counts[o3] = 0; edges[o3] = 0; }
        grid.sync();
    }
}
"""
KERNELS = {"bare": "queue_levels<false>", "rule": "queue_levels<true>", "two-hop": "two_hop_levels",
           "bitmap": "bitmap_levels", "tally": "tally_levels"}
#: the rule's levels run by fewer SMs with a cheaper barrier: one block (block barriers), or one
#: thread block cluster of 2 to 16 blocks, one an SM (the cluster's barrier; 16 is a size the
#: H100 allows only as non-portable)
SMALL_KERNEL = {"block": "block_levels<true>", "cluster": "cluster_levels<true>", "inbox": "inbox_levels"}
CLUSTER_SIZES = (2, 4, 8, 16)
SMALL_THREADS = (512, 1024)
#: dynamic shared memory a block of a cluster asks for, so that no two share a multiprocessor
ONE_AN_SM_SHARED = 120 * 1024
CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14
#: the frontier sizes that bound the bands levels are grouped by: 1-64, 65-256, 257-512, 513+
#: (the fused kernel's notes use the same bands)
BAND_BOUNDS = (64, 256, 512)
THREADS = (128, 256, 512)


def banded(sizes, seconds):
    """Mean and count of the levels' (or rounds') measured seconds in each frontier band, in us,
    by band name (lagraph_dist.tools.bench.banded_levels groups them)."""
    return {f"{b['frontier_from']}-{b['frontier_to']}" if b["frontier_to"] else f"{b['frontier_from']}+":
            {"levels": b["levels"], "mean_us": b["us_mean"]} for b in banded_levels(sizes, seconds, BAND_BOUNDS)}


def mesh(rows, cols):
    """The mesh as int32 CSR (scipy), its edges for the package, and scipy's distances from 0."""
    from scipy.sparse import csgraph
    from lagraph_dist.io.generators import grid2d_edges
    n = rows * cols
    src, dst = grid2d_edges(rows, cols)
    A = scipy_csr(src, dst, n)
    A.sort_indices()
    distance = csgraph.shortest_path(A, unweighted=True, indices=0)
    if not np.isfinite(distance).all():
        raise SystemExit("the mesh is not connected")
    return A, src, dst, distance.astype(np.int64)


class FloorSearch:
    """The floor kernels' buffers on the device for one graph, a launch and its check."""

    def __init__(self, cp, module, A, distance):
        self.cp, self.module, self.distance = cp, module, distance
        self.n = n = A.shape[0]
        self.levels = int(distance.max()) + 1
        self.sizes_expected = np.bincount(distance)
        self.indptr = cp.asarray(A.indptr.astype(np.int32))
        self.indices = cp.asarray(A.indices.astype(np.int32))
        self.nwords = (n + 31) // 32
        self.visited = cp.zeros(self.nwords, cp.uint32)
        self.parent = cp.zeros(n, cp.int32)
        self.word = cp.zeros(n, cp.uint64)
        self.queue = cp.zeros(3 * n, cp.int32)
        self.frontier = cp.zeros(2 * self.nwords, cp.uint32)
        self.counts = cp.zeros(3, cp.uint32)
        self.edges = cp.zeros(3, cp.int64)
        self.tally = cp.zeros(6, cp.uint64)         # tally: the three slots' counts, then their edges
        self.overflow = cp.zeros(1, cp.uint32)      # inbox: a block's inbox overflowed
        self.started = cp.zeros(self.levels + 2, cp.uint64)
        self.sizes = cp.zeros(self.levels + 2, cp.uint32)
        self.source_edges = int(A.indptr[1] - A.indptr[0])
        self.max_row = int(np.diff(A.indptr).max())

    def reset(self):
        cp = self.cp
        self.counts.fill(0)
        self.counts[0] = 1
        self.edges.fill(0)
        self.edges[0] = self.source_edges
        self.tally.fill(0)
        self.overflow.fill(0)
        self.tally[0] = 1
        self.tally[3] = self.source_edges
        self.queue[0] = 0
        self.visited.fill(0)
        self.visited[0] = 1
        self.parent.fill(-1)
        self.parent[0] = 0
        self.word.fill(cp.uint64(0xFFFFFFFFFFFFFFFF))
        self.word[0] = 0
        self.frontier.fill(0)
        self.frontier[0] = 1

    def launch(self, variant, blocks, threads, spread, function=None, shared=0):
        """The kernel's ms (CUDA events around the launch); `function`, where given, runs the
        `variant`'s levels in place of its grid kernel (the rule's, by one block or cluster)."""
        cp, np32 = self.cp, np.int32
        self.reset()
        function = function or self.module.get_function(KERNELS[variant])
        common = (self.indptr, self.indices)
        if variant in ("bare", "rule"):
            args = common + (self.visited, self.parent, self.queue, self.counts, self.edges, np32(self.n), np32(spread),
                             self.started, self.sizes)
        elif variant == "inbox":
            args = common + (self.visited, self.parent, self.overflow, np32(self.n), self.started, self.sizes)
        elif variant == "tally":
            args = common + (self.visited, self.parent, self.queue, self.tally, np32(self.n), np32(spread), self.started,
                             self.sizes)
        elif variant == "two-hop":
            args = common + (self.word, self.queue, self.counts, np32(self.n), np32(spread), self.started, self.sizes)
        else:
            args = common + (self.visited, self.parent, self.frontier, self.counts, self.edges, np32(self.n),
                             self.started, self.sizes)
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        function((blocks,), (threads,), args, shared_mem=shared)
        stop.record()
        stop.synchronize()
        return cp.cuda.get_elapsed_time(start, stop)

    def rounds(self):
        """The levels' (two-hop: rounds') frontier sizes and measured seconds of the last launch."""
        sizes = self.sizes.get().astype(np.int64)
        steps = int(np.argmax(sizes == 0))          # the last round found its frontier empty
        started = self.started.get()[: steps + 1].astype(np.int64)
        return sizes[:steps], np.diff(started) * 1e-9

    def check(self, variant):
        """Raise unless the last launch's search is the scipy search: depths (two-hop) or each
        level's size, and every parent one level up."""
        d = self.distance
        if variant == "two-hop":
            word = self.word.get()
            depth, parent = (word >> np.uint64(32)).astype(np.int64), (word & np.uint64(0xFFFFFFFF)).astype(np.int64)
            if not np.array_equal(depth, d):
                raise AssertionError(f"{variant}: depths differ from scipy's")
        else:
            if variant == "inbox" and int(self.overflow.get()[0]):
                raise AssertionError(f"{variant}: an inbox overflowed")
            parent = self.parent.get().astype(np.int64)
            sizes = self.sizes.get()[: self.levels].astype(np.int64)
            if not np.array_equal(sizes, self.sizes_expected):
                raise AssertionError(f"{variant}: levels' sizes differ from scipy's")
        if (parent < 0).any() or not np.array_equal(d[parent[1:]], d[1:] - 1):
            raise AssertionError(f"{variant}: a parent is not one level up")


def package_search(ld, cp, src, dst, n, expected_sizes, calls):
    """The package's fused search of the same mesh from the same corner (push): call ms, the
    levels' own ms and their records banded, its levels' sizes checked against scipy's
    (``expected_sizes``)."""
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=True, backend="gpu")
    ld.bfs(A, 0, direction="push")
    times, result = [], None
    for _ in range(calls):
        started = time.perf_counter()
        result = ld.bfs(A, 0, direction="push")
        cp.cuda.Device().synchronize()
        times.append(1e3 * (time.perf_counter() - started))
    sizes = [s["frontier"] for s in result.stats]
    if sizes != expected_sizes.tolist():
        raise AssertionError("the package's levels differ from scipy's")
    seconds = [s["seconds"] for s in result.stats]
    return {"call_ms": statistics.median(times), "calls_ms": times, "levels": len(sizes),
            "levels_own_ms": 1e3 * sum(seconds), "bands": banded(sizes, seconds)}


def allow_non_portable_clusters(function):
    """Let `function` (a loaded RawKernel) launch clusters of more than 8 blocks: the driver's
    cuFuncSetAttribute itself (CuPy has no setter for this attribute)."""
    import ctypes
    result = ctypes.CDLL("libcuda.so.1").cuFuncSetAttribute(
        ctypes.c_void_p(function.kernel.ptr), ctypes.c_int(CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED),
        ctypes.c_int(1))
    if result != 0:
        raise RuntimeError(f"cuFuncSetAttribute (non-portable cluster size) failed: CUresult {result}")


def small_launches(cp, module):
    """(name, variant, function, blocks, shared) for the rule's levels by one block and by one
    cluster of each of CLUSTER_SIZES blocks, and for the inbox variant by each cluster (a module
    a size: the cluster's size is the kernel's attribute)."""
    yield "block", "rule", module.get_function(SMALL_KERNEL["block"]), 1, 0
    for size in CLUSTER_SIZES:
        clusters = cp.RawModule(code=SOURCE, options=("-std=c++17", f"-DLF_CLUSTER={size}"),
                                name_expressions=[SMALL_KERNEL["cluster"], SMALL_KERNEL["inbox"]])
        for variant, kernel in (("rule", SMALL_KERNEL["cluster"]), ("inbox", SMALL_KERNEL["inbox"])):
            function = clusters.get_function(kernel)
            function.max_dynamic_shared_size_bytes = ONE_AN_SM_SHARED
            if size > 8:
                allow_non_portable_clusters(function)
            yield f"cluster of {size}", variant, function, size, ONE_AN_SM_SHARED


def timed_run(search, variant, blocks, threads, spread, calls, function=None, shared=0):
    """A warmed-up, checked run of a floor kernel: its median ms and its levels' bands."""
    search.launch(variant, blocks, threads, spread, function, shared)         # warm-up (and the module's load)
    times = [search.launch(variant, blocks, threads, spread, function, shared) for _ in range(calls)]
    search.check(variant)
    sizes, seconds = search.rounds()
    return {"variant": variant, "mapping": "inbox" if variant == "inbox" else "spread" if spread else "block", "blocks": blocks, "threads": threads,
            "ms": statistics.median(times), "ms_all": times, "rounds": len(sizes),
            "levels_a_round": 2 if variant == "two-hop" else 1, "bands": banded(sizes, seconds)}


def show(run, package):
    print(f"  {run['variant']:8s} {run.get('launch', 'grid'):13s} {run['mapping']:6s} {run['blocks']}x{run['threads']}: "
          f"{run['ms']:.3f} ms ({run['ms'] / package['levels_own_ms']:.2f} x the package's levels); a "
          f"{'round' if run['variant'] == 'two-hop' else 'level'}: "
          + ", ".join(f"{b} {v['mean_us']:.2f} us" for b, v in run["bands"].items()), flush=True)


settings.host_search_edges = 0      # the device's kernels are what this measures, however small the graph


def main():
    import cupy as cp
    import lagraph_dist as ld
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--meshes", default="1000x1000,2000x2000")
    parser.add_argument("--calls", type=int, default=7)
    parser.add_argument("--brief", action="store_true",
                        help="of the grid's kernels only the rule's (512 threads, spread), beside the block's and "
                             "the clusters'")
    parser.add_argument("--json")
    args = parser.parse_args()
    module = cp.RawModule(code=SOURCE, options=("-std=c++17",), name_expressions=list(KERNELS.values()) + [SMALL_KERNEL["block"]],
                          enable_cooperative_groups=True)
    props = cp.cuda.runtime.getDeviceProperties(0)
    sms = props["multiProcessorCount"]
    record = {"benchmark": "level-floor", "commit": code_identity()["commit"],
              "device": props["name"].decode(), "graphs": []}
    for spec in args.meshes.split(","):
        rows, cols = (int(x) for x in spec.split("x"))
        A, src, dst, distance = mesh(rows, cols)
        search = FloorSearch(cp, module, A, distance)
        graph = {"graph": f"mesh:{spec}", "n": search.n, "levels": search.levels,
                 "package": package_search(ld, cp, src, dst, search.n, search.sizes_expected, args.calls), "runs": []}
        package = graph["package"]
        print(f"mesh:{spec}: {graph['levels']} levels; package push call {package['call_ms']:.3f} ms, levels' own "
              f"{package['levels_own_ms']:.3f}; " + ", ".join(f"{b} {v['mean_us']:.2f} us"
                                                                for b, v in package["bands"].items()), flush=True)
        for threads in (512,) if args.brief else THREADS:
            for variant in ("rule", "tally") if args.brief else KERNELS:
                for spread in (1,) if args.brief else (0,) if variant == "bitmap" else (0, 1):
                    if variant == "two-hop" and search.max_row > 4:
                        continue
                    run = timed_run(search, variant, sms, threads, spread, args.calls)
                    graph["runs"].append(run)
                    show(run, package)
        for name, variant, function, blocks, shared in small_launches(cp, module):
            for threads in SMALL_THREADS:
                for spread in (0, 1) if blocks > 1 and variant == "rule" else (0,):
                    run = timed_run(search, variant, blocks, threads, spread, args.calls, function, shared)
                    run["launch"] = name
                    graph["runs"].append(run)
                    show(run, package)
        record["graphs"].append(graph)
    if args.json:
        write_json(record, args.json)


if __name__ == "__main__":
    main()
