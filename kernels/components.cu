// Connected components by a sampled union-find, the CUDA twin of
// lagraph_dist/local/cpu_kernels/components.py (Afforest: Sutton, Ben-Nun and Barak, IPDPS 2018).
// parent[v] <= v always: a link puts the larger root under the smaller, so each tree's root is its
// smallest id, the label. Links race, so the one that hooks a root does it with atomicCAS on the
// root's own entry (only a root is ever hooked, and only while it is a root); a lost race reads
// the two trees again and retries. Compression may race with links and other compressions: every
// write replaces a pointer by one further up the same path, so a reader sees a valid ancestor.
//
// The driver (lagraph_dist/local/gpu_kernels/components.py): each vertex's r-th out-edge linked,
// r = 0 .. SAMPLED_EDGES - 1, a compression after each; the most frequent root of sampled
// vertices named the giant's; every vertex outside the giant links the rest of its out-edges (and
// its in-edges, directed); a last compression makes every entry its root.
#include "common.cuh"

// A read of parent[] that sees other threads' links (never the read-only cache).
__device__ __forceinline__ i64 ld_cc_read(const i64* parent, i64 v) { return __ldcg(parent + v); }

// Join u's and v's trees (GAP's Afforest link).
__device__ __forceinline__ void ld_cc_link(i64* parent, i64 u, i64 v) {
    i64 p1 = ld_cc_read(parent, u), p2 = ld_cc_read(parent, v);
    while (p1 != p2) {
        const i64 high = p1 > p2 ? p1 : p2, low = p1 > p2 ? p2 : p1;
        const i64 above = ld_cc_read(parent, high);
        if (above == low) return;                                      // already hooked there
        if (above == high &&
            atomicCAS((unsigned long long*)(parent + high), (unsigned long long)high, (unsigned long long)low) ==
                (unsigned long long)high)
            return;                                                    // hooked: high was a root
        p1 = ld_cc_read(parent, ld_cc_read(parent, high));
        p2 = ld_cc_read(parent, low);
    }
}

// Each vertex links its out-edge number `round` (in its row's order), if it has one.
extern "C" __global__ void ld_cc_link_round(const i64* __restrict__ indptr, const int* __restrict__ indices,
                                            i64* parent, i64 n, i64 round) {
    for (i64 u = (i64)blockIdx.x * blockDim.x + threadIdx.x; u < n; u += (i64)gridDim.x * blockDim.x) {
        const i64 e = indptr[u] + round;
        if (e < indptr[u + 1]) ld_cc_link(parent, u, indices[e]);
    }
}

// Every vertex outside the tree of root `giant` links its edges from slot `first` of its row on.
extern "C" __global__ void ld_cc_link_rest(const i64* __restrict__ indptr, const int* __restrict__ indices,
                                           i64* parent, i64 n, i64 first, i64 giant) {
    for (i64 u = (i64)blockIdx.x * blockDim.x + threadIdx.x; u < n; u += (i64)gridDim.x * blockDim.x) {
        const i64 start = indptr[u] + first, stop = indptr[u + 1];
        if (start >= stop || ld_cc_read(parent, u) == giant) continue;
        for (i64 e = start; e < stop; ++e) ld_cc_link(parent, u, indices[e]);
    }
}

// Every entry pointed at its root.
extern "C" __global__ void ld_cc_compress(i64* parent, i64 n) {
    for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
        i64 up = ld_cc_read(parent, v);
        for (i64 top = ld_cc_read(parent, up); up != top; top = ld_cc_read(parent, up)) {
            parent[v] = top;
            up = top;
        }
    }
}
