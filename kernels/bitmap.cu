// Bitmap <-> list conversions and popcounts for sparse-vector parts (packed uint32 words,
// bit l of word l / 32 is entry l). list_from_bitmap is a ballot compaction: one warp a word,
// lane b owns bit b, and each set lane writes its id at the word's offset plus the set lanes
// below it (simd-x's ballot filter).
#include "common.cuh"

extern "C" __global__ void ld_popcount_words(const u32* __restrict__ words, i64 nwords, int* __restrict__ counts) {
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < nwords; i += (i64)gridDim.x * blockDim.x)
        counts[i] = __popc(words[i]);
}

extern "C" __global__ void ld_count_bits(const u32* __restrict__ words, i64 nwords, u64* __restrict__ total) {
    u64 mine = 0;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < nwords; i += (i64)gridDim.x * blockDim.x)
        mine += __popc(words[i]);
    ld_add_block_count(total, mine);
}

// offsets: exclusive scan of the per-word popcounts.
extern "C" __global__ void ld_list_from_bitmap(const u32* __restrict__ words, i64 nwords,
                                               const i64* __restrict__ offsets, int* __restrict__ ids) {
    const int lane = threadIdx.x & 31;
    const i64 nwarps = ((i64)gridDim.x * blockDim.x) >> 5;
    for (i64 w = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w < nwords; w += nwarps) {
        const u32 word = words[w];
        if (word == 0) continue;                     // uniform across the warp
        if ((word >> lane) & 1u) {
            const int below = __popc(word & ((1u << lane) - 1u));
            ids[offsets[w] + below] = (int)(w * 32 + lane);
        }
    }
}

extern "C" __global__ void ld_bitmap_from_list(const int* __restrict__ ids, i64 count, u32* __restrict__ words) {
    ld_set_list_bits(ids, count, words, (i64)blockIdx.x * blockDim.x + threadIdx.x, (i64)gridDim.x * blockDim.x);
}

extern "C" __global__ void ld_bitmap_test(const u32* __restrict__ words, const int* __restrict__ ids, i64 count,
                                          bool* __restrict__ out) {
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (i64)gridDim.x * blockDim.x)
        out[i] = ld_bit(words, ids[i]);
}

// In place, GrB_assign with a list as structural mask: for each of the `count` ids set its bit
// in `words` and write its value: src_dense[id] (value_mode 0), src_compact[i] (1) or
// `scalar` (2). One launch for what would be a bit scatter plus a value scatter.
template <typename V>
__global__ void ld_assign_from_list(const int* __restrict__ ids, i64 count, const V* __restrict__ src_dense,
                                    const V* __restrict__ src_compact, V scalar, int value_mode,
                                    u32* __restrict__ words, V* __restrict__ values) {
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (i64)gridDim.x * blockDim.x) {
        const int id = ids[i];
        atomicOr(words + (id >> 5), 1u << (id & 31));
        values[id] = value_mode == 0 ? src_dense[id] : value_mode == 1 ? src_compact[i] : scalar;
    }
}

// Parts of one entry each, made at once (a search's start: its visited set and depths):
// `count` (1 or 2) bitmaps of `nwords` words laid end to end in `words`, each zeroed but for bit
// `id` (none when id < 0, on a rank that does not own it); the entry's value, `bits` stored as
// `size` bytes, written into each part's values; and unless `list_ids` is null the first part's
// entry as a one-long list. One launch for what was a memset and a one-thread launch a part.
__device__ __forceinline__ void ld_store_value(void* values, i64 at, u64 bits, int size) {
    switch (size) {
        case 1: static_cast<unsigned char*>(values)[at] = (unsigned char)bits; break;
        case 2: static_cast<unsigned short*>(values)[at] = (unsigned short)bits; break;
        case 4: static_cast<u32*>(values)[at] = (u32)bits; break;
        default: static_cast<u64*>(values)[at] = bits;
    }
}

extern "C" __global__ void ld_single_entries(int id, i64 nwords, int count, u32* __restrict__ words,
                                             void* values0, u64 bits0, int size0, void* values1, u64 bits1,
                                             int size1, int* __restrict__ list_ids, void* list_values) {
    const i64 word_of_id = id >= 0 ? id >> 5 : -1;
    for (i64 w = (i64)blockIdx.x * blockDim.x + threadIdx.x; w < count * nwords; w += (i64)gridDim.x * blockDim.x)
        words[w] = (w < nwords ? w : w - nwords) == word_of_id ? 1u << (id & 31) : 0u;
    if (id < 0 || blockIdx.x != 0 || threadIdx.x != 0) return;
    ld_store_value(values0, id, bits0, size0);
    if (count > 1) ld_store_value(values1, id, bits1, size1);
    if (list_ids) { list_ids[0] = id; ld_store_value(list_values, 0, bits0, size0); }
}

// Rows first .. first + count - 1 of a batch's levels from its bit planes (the fused multi-source
// search's: `planes` (nplanes, rows, words) uint64, plane 0 the reached bits, plane 1 + p the
// bits whose depth has bit p; search c is bit c % 64 of word c / 64) into `out` (count, k)
// int32, -1 where unreached: a thread an element, so the writes are coalesced and a word's 64
// readers share its load.
extern "C" __global__ void ld_level_planes_rows(const u64* __restrict__ planes, i64 nplanes, i64 rows, i64 words,
                                                i64 k, i64 first, i64 count, int* __restrict__ out) {
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < count * k; i += (i64)gridDim.x * blockDim.x) {
        const i64 at = (first + i / k) * words + (i % k) / 64;
        const int bit = (int)((i % k) % 64);
        int depth = -1;
        if ((planes[at] >> bit) & 1ull) {
            depth = 0;
            for (i64 p = 1; p < nplanes; ++p) depth |= (int)((planes[p * rows * words + at] >> bit) & 1ull) << (p - 1);
        }
        out[i] = depth;
    }
}

#ifdef LD_NVCC_CHECK   // every value type's assignment
#define LD_ASSIGN(V) template __global__ void ld_assign_from_list<V>(const int*, i64, const V*, const V*, V, int, \
    u32*, V*);
LD_ASSIGN(bool) LD_ASSIGN(int) LD_ASSIGN(long long) LD_ASSIGN(float) LD_ASSIGN(double)
#endif
