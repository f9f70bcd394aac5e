// The fold of a distributed product: a rank's output over its whole output space (C owner blocks
// of block_len ids, word-aligned) is packed into one send buffer of C pieces, one launch, and
// the owner merges the C pieces it receives into its block, one launch.
//
// Wire layout (32-bit words; lagraph_dist/wire.py holds the same rules for the host):
//   fixed pieces (capacity `cap`, used when a host-known bound says every piece is a short
//   list): [count, 0][cap ids, padded to even][cap values of `vw` words]; no counts travel.
//   counted pieces (counts exchanged first): a list [count ids, padded][count values] or, for
//   a pattern-only piece holding more than block_len / 32 ids, the block's bitmap words.
// Values travel in `vw` words (0 when the semiring's value is implicitly true): as V, or as
// their low 32-bit word where V is wider than `vw` words (vertex ids that fit: wire.value_words
// narrowed them, wire.wire_dtype). Per-owner tables hold LD_MAX_OWNERS members
// (lagraph_dist/local/layout.py). Entries go to their owner's piece in any order.
#include "common.cuh"

__device__ __forceinline__ i64 ld_even(i64 words) { return (words + 1) & ~(i64)1; }

// Value `slot` of a piece's values (starting at `values`), at its wire width (see above).
template <typename V>
__device__ __forceinline__ void ld_put_value(u32* values, i64 slot, int vw, V value) {
    if (sizeof(V) > 4 * (size_t)vw) values[slot] = (u32)value;     // a narrowed vertex id
    else ((V*)values)[slot] = value;
}

template <typename V>
__device__ __forceinline__ V ld_get_value(const u32* values, i64 slot, int vw) {
    if (sizeof(V) > 4 * (size_t)vw) return (V)values[slot];
    return ((const V*)values)[slot];
}

// A counted piece goes as the block's bitmap when its values need not travel and its entries
// exceed `threshold` (block_len / 32 unless an encoding is forced; wire.bitmap_threshold).
__device__ __forceinline__ bool ld_counted_bitmap(i64 count, int vw, i64 threshold) {
    return vw == 0 && count > threshold;
}

// Words of a counted piece of `count` entries (see the layout above).
__device__ __forceinline__ i64 ld_counted_words(i64 count, i64 block_len, int vw, i64 threshold) {
    if (ld_counted_bitmap(count, vw, threshold)) return block_len / 32;
    return ld_even(count) + count * vw;
}

// counts[k] += entries of the queue owned by member k (an id's owner is id / block_len): a
// shared atomic a warp and an owner, one global atomic a block and an owner.
extern "C" __global__ void ld_fold_count(const int* __restrict__ queue, const u64* __restrict__ counters,
                                         i64 block_len, int nowners, long long* __restrict__ counts) {
    __shared__ unsigned int local[LD_MAX_OWNERS];
    for (int k = threadIdx.x; k < nowners; k += blockDim.x) local[k] = 0;
    __syncthreads();
    const i64 n = (i64)counters[LD_FOUND];
    // every lane of a warp runs the same rounds, as the warp's grouping requires
    for (i64 base = (i64)blockIdx.x * blockDim.x; base < n; base += (i64)gridDim.x * blockDim.x) {
        const i64 i = base + threadIdx.x;
        ld_warp_count_by_key(i < n, i < n ? (int)(queue[i] / block_len) : 0, local);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < nowners; k += blockDim.x)
        if (local[k]) atomicAdd((u64*)(counts + k), (u64)local[k]);
}

// Start word of each counted piece (prefix of the piece sizes), computed by every block.
__device__ void ld_counted_offsets(const long long* __restrict__ counts, int nowners, i64 block_len, int vw,
                                   i64 threshold, i64* __restrict__ offsets) {
    if (threadIdx.x == 0) {
        i64 at = 0;
        for (int k = 0; k < nowners; ++k) {
            offsets[k] = at;
            at += ld_counted_words(counts[k], block_len, vw, threshold);
        }
        offsets[nowners] = at;
    }
    __syncthreads();
}

// Pack the queue's entries into per-owner pieces. cap > 0: fixed pieces of capacity cap, whose
// count words (zeroed by the caller) serve as the cursors. cap == 0: counted pieces laid out by
// `counts`, with `cursors` (zeroed, nowners) as the cursors; bitmap pieces copy the block's
// words from out_words. A round of the block counts its entries by owner in shared memory
// (ld_warp_count_by_key), reserves them with one atomic an owner on that owner's cursor, then
// writes them: millions of entries on two or three cursors would otherwise serialize there.
template <typename V>
__global__ void ld_fold_pack(const int* __restrict__ queue, const u64* __restrict__ counters,
                             const u32* __restrict__ out_words, const V* __restrict__ out_values,
                             i64 block_len, int nowners, int vw, i64 cap, i64 threshold,
                             const long long* __restrict__ counts, unsigned int* __restrict__ cursors,
                             u32* __restrict__ send) {
    __shared__ i64 offsets[LD_MAX_OWNERS + 1];
    __shared__ unsigned int round_count[LD_MAX_OWNERS];    // this round's entries of the block, by owner
    __shared__ unsigned int round_base[LD_MAX_OWNERS];     // where they start in the owner's piece
    const i64 piece_words = 2 + ld_even(cap) + cap * vw;
    if (cap == 0) ld_counted_offsets(counts, nowners, block_len, vw, threshold, offsets);
    const i64 n = (i64)counters[LD_FOUND];
    // every thread of the block runs the same rounds, as the block's barriers require
    for (i64 base = (i64)blockIdx.x * blockDim.x; base < n; base += (i64)gridDim.x * blockDim.x) {
        for (int k = threadIdx.x; k < nowners; k += blockDim.x) round_count[k] = 0;
        __syncthreads();
        const i64 i = base + threadIdx.x;
        const int id = i < n ? queue[i] : 0;
        const int k = (int)(id / block_len);
        // a counted piece over the threshold is its block's bitmap, copied below
        const bool listed = i < n && (cap > 0 || !ld_counted_bitmap(counts[k], vw, threshold));
        const unsigned int mine = ld_warp_count_by_key(listed, k, round_count);
        __syncthreads();
        for (int o = threadIdx.x; o < nowners; o += blockDim.x)
            if (round_count[o]) round_base[o] = atomicAdd(cap > 0 ? send + o * piece_words : cursors + o, round_count[o]);
        __syncthreads();
        if (listed) {
            u32* piece = cap > 0 ? send + k * piece_words + 2 : send + offsets[k];
            const i64 capacity = cap > 0 ? cap : counts[k];
            const unsigned int slot = round_base[k] + mine;
            if (slot < capacity) {             // else the bound was wrong: the merge reports it
                piece[slot] = (u32)(id - k * block_len);
                if (vw) ld_put_value<V>(piece + ld_even(capacity), slot, vw, out_values[id]);
            }
        }
        __syncthreads();                       // round_base read before the next round's counts
    }
    if (cap > 0) return;
    const i64 words_per_block = block_len / 32;
    for (int k = 0; k < nowners; ++k) {
        if (!ld_counted_bitmap(counts[k], vw, threshold)) continue;
        for (i64 w = (i64)blockIdx.x * blockDim.x + threadIdx.x; w < words_per_block; w += (i64)gridDim.x * blockDim.x)
            send[offsets[k] + w] = out_words[k * words_per_block + w];
    }
}

// Merge the nowners received pieces into this rank's block: an entry passes the (exact, own
// block) mask, is claimed in out_words with the monoid ADD, appended to the queue when new, and
// its out-degree summed. blockIdx.y is the piece. counters[LD_OVERFLOW] is set when a fixed
// piece holds more entries than its capacity (a wrong bound: the host raises).
template <int ADD, typename V>
__global__ void ld_fold_merge(const u32* __restrict__ recv, int nowners, i64 block_len, int vw, i64 cap,
                              i64 threshold, const long long* __restrict__ counts,
                              const u32* __restrict__ mask, int mask_mode,
                              u32* __restrict__ out_words, V* __restrict__ out_values, int* __restrict__ queue,
                              u64* __restrict__ counters, const i64* __restrict__ out_degree) {
    __shared__ i64 offsets[LD_MAX_OWNERS + 1];
    __shared__ ld_stage found;
    ld_stage_init(found);
    const int k = blockIdx.y;
    const u32* piece;
    i64 count, values_at;          // entries, and where their values start in the piece
    bool bitmap = false;
    if (cap > 0) {
        piece = recv + k * (2 + ld_even(cap) + cap * vw);
        count = piece[0];
        values_at = ld_even(cap);
        if (count > cap) {
            if (blockIdx.x == 0 && threadIdx.x == 0) atomicOr((unsigned long long*)(counters + LD_OVERFLOW), 1ull);
            count = cap;
        }
        piece += 2;
    } else {
        ld_counted_offsets(counts, nowners, block_len, vw, threshold, offsets);
        piece = recv + offsets[k];
        count = counts[k];
        values_at = ld_even(count);
        bitmap = ld_counted_bitmap(count, vw, threshold);
    }
    u64 pushed_edges = 0;
    const i64 slots = bitmap ? block_len : count;
    const i64 step = (i64)gridDim.x * blockDim.x;
    // every thread of the block runs the same rounds, as the staged append requires
    for (i64 base = (i64)blockIdx.x * blockDim.x; base < slots; base += step) {
        const i64 i = base + threadIdx.x;
        bool fresh = false;
        int id = 0;
        if (i < slots) {
            bool present = true;
            if (bitmap) { id = (int)i; present = (piece[i >> 5] >> (i & 31)) & 1u; }
            else id = (int)piece[i];
            if (present && ld_allowed(mask, mask_mode, id)) {
                const V value = vw ? ld_get_value<V>(piece + values_at, i, vw) : (V)1;
                fresh = ld_claim<ADD, V>(out_words, out_values, id, value);
            }
        }
        ld_stage_add(found, fresh, id);
        if (fresh && out_degree) pushed_edges += (u64)out_degree[id];
        ld_stage_flush(found, queue, counters + LD_FOUND, blockDim.x, false);
    }
    ld_stage_flush(found, queue, counters + LD_FOUND, 0, true);
    ld_add_block_count(counters + LD_PUSH_EDGES, pushed_edges);
}

#ifdef LD_NVCC_CHECK   // every value type's pack, every monoid's merge on each type it takes
#define LD_FOLD_PACK(V) template __global__ void ld_fold_pack<V>(const int*, const u64*, const u32*, const V*, i64, \
    int, int, i64, i64, const long long*, unsigned int*, u32*);
#define LD_FOLD_MERGE(A, V) template __global__ void ld_fold_merge<A, V>(const u32*, int, i64, int, i64, i64, \
    const long long*, const u32*, int, u32*, V*, int*, u64*, const i64*);
#define LD_FOLD_MERGES(V) LD_FOLD_MERGE(LD_ADD_ANY, V) LD_FOLD_MERGE(LD_ADD_MIN, V) LD_FOLD_MERGE(LD_ADD_MAX, V)
LD_FOLD_PACK(bool) LD_FOLD_PACK(int) LD_FOLD_PACK(long long) LD_FOLD_PACK(float) LD_FOLD_PACK(double)
LD_FOLD_MERGES(bool) LD_FOLD_MERGES(int) LD_FOLD_MERGES(long long) LD_FOLD_MERGES(float) LD_FOLD_MERGES(double)
LD_FOLD_MERGE(LD_ADD_LOR, bool) LD_FOLD_MERGE(LD_ADD_LAND, bool)
LD_FOLD_MERGE(LD_ADD_PLUS, int) LD_FOLD_MERGE(LD_ADD_PLUS, long long) LD_FOLD_MERGE(LD_ADD_PLUS, float)
LD_FOLD_MERGE(LD_ADD_PLUS, double)
#endif
