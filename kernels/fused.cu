// A whole search on one GPU: one persistent cooperative kernel runs BFS level after level, push
// or pull as Beamer's rule says, with a grid-wide barrier between levels (simd-x, section 5:
// push-pull fusion in one kernel, the grid barrier) instead of a return to Python. It is the GPU
// backend's implementation of the composite lagraph_dist.ops.repeat_masked_vxm, repeated until
// a stop condition:
//     q<!visited.S, replace> = q' A        (semiring any_pair or any_secondi)
//     visited<q.S> = q                     (visited values: true, or the parent's id)
//     depths<q.S> = depth                  (when depths are kept: values and bits)
//     depth += 1
// The product is computed top-down (push: the frontier's out-edges) or bottom-up (pull: each
// unvisited vertex's in-edges, stopping at its first frontier in-neighbour), the choice made
// on the device by the rule of lagraph_dist/direction.py (DirectionRule.choose) from counters
// the levels write. Both directions update visited in place (Bisson et al.): a push claims a
// neighbour's bit with atomicOr, so the claimant alone writes its parent and depth; a pull
// warp owns the rows of the words it takes. No product output or separate assign exists.
//
// Frontier representations rotate over three slots (level L reads slot L%3, writes (L+1)%3
// and clears (L+2)%3, level L-1's input), so that one barrier a level suffices:
//   queue  Q[s]: ids (push levels write it; a push after a pull compacts the bitmap first),
//   bitmap F[s]: bits (a pull writes and reads them; a push writes none, and a pull after a push
//   sets its frontier's bits from the queue first, so that thin push levels neither set bits
//   nor clear them),
//   giants G[s]: its vertices of more than LD_FUSED_PUSH_GIANT_DEGREE out-edges (sliced over the
//   warps),
//   and counters (count, out-edges, giants, work, giant rows, examined, fill) per slot.
// Work inside a level: push warps fetch up to 32 frontier entries at a time; the edges of those of
// at most LD_SMALL_DEGREE are flattened over the warp's lanes (a warp scan and a shuffle
// search find each edge's source), larger ones are read a warp at a time, giants by the whole
// grid (ld_giant_parts slices each, a warp a slice, all giants at once); a push level of at most
// LD_FLAT_FRONTIER entries instead splits all its edges evenly over the grid's warps
// (ld_push_flat_level: no warp walks a vertex's hundreds of edges alone). Pull warps fetch
// LD_ROW_GROUP words of rows and pack their open rows into the lanes, 32 a pass; a lane scans the
// first LD_FUSED_LANE_EDGES in-edges of its row alone, the warp the rest of a row that found no
// frontier in-neighbour in them (pull.cu's long rows are a warp's from their start:
// ld_pull_level says why not here), and rows of more than
// LD_FUSED_GIANT_DEGREE in-edges wait for a second phase that slices them over the grid's warps.
// Small push levels run inside block 0 alone (ld_block_levels, in fused_block_levels.cuh): block
// barriers only, the frontier in shared memory (and, where the launch gives it n / 8 bytes, a
// copy of the visited words to claim in), while the other blocks wait; levels of at most
// LD_WARP_EDGES edges run in its warp 0 alone (ld_warp_levels), warp-synchronous. The grid takes
// the search back when a level's output grows past one block's share or the rule turns to pull.
// Data written inside the kernel is read with __ldcg or volatile (never the read-only cache),
// but for the visited bits' probe of ld_push_claim (a set bit is final).
//
// Steps shared with the one-product kernels (a fix lands in both): push_steps.cuh's
// ld_push_claim (the read-only-cache probe and atomicOr claim of an out-neighbour, as in
// push.cu) under ld_push_visit; pull_steps.cuh's ld_pull_short_row (a lane a row, four in-edges
// in flight) and ld_pull_warp_row (a warp a row with ballot and early exit, one load a step
// here) as in pull.cu, and ld_pull_warp_hits for the giant rows' slices, all reading the
// frontier bitmap with __ldcg (COHERENT true); common.cuh's ld_giant_slice for giant vertices
// and rows. The block (LD_FUSED_THREADS), the giant degree, the status and record layout, the
// stop reasons and the rule's modes come from lagraph_dist/local/layout.py.
//
// The file is one translation unit in five parts, included in this order:
//   fused_base.cuh            includes, slot layout, the direction rule (ld_rule), the trace and
//                             warp-clock instrumentation, the helpers the levels share
//   fused_grid_levels.cuh     the grid's push, flat push and pull levels, ld_compact
//   fused_block_levels.cuh    levels inside one block (ld_block_levels, ld_warp_levels)
//   fused_cluster_levels.cuh  levels inside one thread block cluster (ld_cluster_levels)
//   fused.cu (this file)      the levels' shared memory, the search (ld_bfs_fused_search), the
//                             entry kernels ld_bfs_fused and ld_bfs_fused_clustered
#include "fused_base.cuh"
#include "fused_grid_levels.cuh"
#include "fused_block_levels.cuh"
#include "fused_cluster_levels.cuh"

// A flat push level's shared memory: its frontier, and each warp's stage of its finds.
struct ld_flat_shared {
    ld_flat_frontier frontier;
    int found[LD_FUSED_THREADS / 32][LD_FLAT_STAGE];
};

// The shared memory of block 0's levels, the cluster's and a flat push level's: one block, as
// they never run at once (the kernel's static shared memory stays under the 48 KB a block may
// declare).
union ld_level_shared {
    ld_block_state block;
    ld_cluster_state cluster;
    ld_flat_shared flat;
};

// BLOCKS: the blocks a multiprocessor the launch is built for. Two hide the latency of big
// Kronecker levels; one, on graphs of thin frontiers, gives each thread twice the registers (128),
// so that the level loops keep their state in registers instead of spilling it to local memory
// on the latency chain of every small level (lagraph_dist/local/gpu_kernels/fused.py picks).
template <int MULT, typename V, int BLOCKS, bool CLUSTERED>
__device__ __forceinline__ void
ld_bfs_fused_search(const i64* __restrict__ out_indptr, const int* __restrict__ out_indices,   // push: A by source
             const i64* __restrict__ in_indptr, const int* __restrict__ in_indices,     // pull: A by destination
             const u32* __restrict__ empty_rows,                                        // rows without in-edges
             i64 n, u32* __restrict__ words, V* __restrict__ parents,
             long long* __restrict__ depths, u32* __restrict__ depth_words, long long first_depth,
             const int* __restrict__ first, i64 nfirst, int source, const u64* __restrict__ pushed,
             int* __restrict__ queues, u32* __restrict__ bitmaps, int* __restrict__ giants,
             int* __restrict__ giant_rows, i64 giant_capacity, int giant_rows_possible,
             const u64* __restrict__ thin_rows,       // a thin graph's rows (ld_thin_claim), else null
             u64* __restrict__ slots,
             int rule_mode, double alpha, double beta, long long rule_push, long long rule_previous,
             long long rule_unexplored,
             i64 max_frontier, i64 max_edges, i64 handover_edges, i64 max_levels, i64 block_edges, int target,
             u64* __restrict__ records, long long* __restrict__ status, u64* __restrict__ mirror,
             i64 mirror_levels, bool cache_visited, bool depth_bits_follow) {
    cg::grid_group grid = cg::this_grid();
    // block 0's copy of the visited words (cache_visited: the launch gave it n / 8 bytes of
    // dynamic shared memory), where its levels claim
    extern __shared__ u32 ld_visited_cache[];
    // block 0's levels and a flat push level's frontier (grid levels) never run at once
    __shared__ ld_level_shared level_shared;
    const int lane = threadIdx.x & 31;
    const i64 thread = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const i64 nthreads = (i64)gridDim.x * blockDim.x;
    const i64 warp = thread >> 5, nwarps = nthreads >> 5;
    const i64 nwords = (n + 31) >> 5;
    // depth_bits_follow: the depths' bits equal the visited bits at the start (a search started
    // here, or by the host's start): the levels write depths without their bits, and the exit
    // copies the visited words to them, one coalesced pass instead of an atomic a found vertex
    u32* const level_depth_words = depth_bits_follow ? nullptr : depth_words;
    auto slot = [&](int what, int s) { return slots + what * 3 + s; };
    auto queue = [&](int s) { return queues + (i64)s * n; };
    auto bitmap = [&](int s) { return bitmaps + (i64)s * nwords; };
    auto giant_list = [&](int s) { return giants + (i64)s * giant_capacity; };

    // start: counters zero, bitmaps clear, the first frontier in slot 0 (queue, bits, giants).
    // A search that starts here (first null, nfirst 1) starts at `source`: visited and depths
    // are cleared and take the source alone (its value: its id or true; its depth first_depth
    // - 1), as the host's Vector.singles would have made them, with no launch or list of its own.
    // A first frontier a tile push made (push.cu in place, just before this launch: `pushed`,
    // its stamps, not null; `first` its output queue) comes with its count, out-edges and giants
    // in the push's counters (read here: the host launches this run without reading them), its
    // giants in slot 0's list and slot 0's bitmap holding the visited words from before that
    // push: its bits are the words that changed (visited bits only turn on), so that a run
    // after a big push level neither walks millions of entries nor claims their bits with
    // atomics before its first level. The push's own stop (its output empty, too big, or
    // holding the target) ends the run before any level.
    const bool made = pushed != nullptr, seeded = first == nullptr;
    if (made) nfirst = (i64)__ldcg(pushed + LD_FOUND);
    if (thread == 0)
        for (int k = 0; k < LD_FUSED_NSLOTS; ++k)
            slots[k] = k == LD_SLOT_COUNT * 3 ? (u64)nfirst
                     : made && k == LD_SLOT_EDGES * 3 ? __ldcg(pushed + LD_PUSH_EDGES)
                     : made && k == LD_SLOT_GIANTS * 3 ? __ldcg(pushed + LD_PUSH_GIANTS) : 0ull;
    for (i64 k = thread; k < 3 * nwords; k += nthreads) bitmaps[k] = made && k < nwords ? bitmaps[k] ^ words[k] : 0u;
    if (seeded)
        for (i64 k = thread; k < nwords; k += nthreads) {
            words[k] = 0u;
            if (depth_words) depth_words[k] = 0u;
        }
    for (i64 k = thread; k < nfirst; k += nthreads) queues[k] = seeded ? source : first[k];
    grid.sync();
    if (seeded && thread == 0) {
        words[source >> 5] = 1u << (source & 31);
        parents[source] = ld_multiply<MULT, V>(source, V(), 1, 1, 0);
        if (depths) ld_set_depth(depths, depth_words, source, first_depth - 1, true);
    }
    if (!made) {
        u64 first_edges = 0;
        for (i64 base = warp * 32; base < nfirst; base += nwarps * 32) {
            const i64 i = base + lane;
            bool giant = false;
            int u = 0;
            if (i < nfirst) {
                u = __ldcg(queues + i);
                atomicOr(bitmaps + (u >> 5), 1u << (u & 31));
                const i64 degree = __ldg(out_indptr + u + 1) - __ldg(out_indptr + u);
                first_edges += (u64)degree;
                giant = degree > LD_FUSED_PUSH_GIANT_DEGREE;
            }
            ld_warp_append(giant, u, giants, slot(LD_SLOT_GIANTS, 0));
        }
        ld_add_block_count(slot(LD_SLOT_EDGES, 0), first_edges);
    }
    grid.sync();
    if (thread == 0) status[LD_STATUS_STARTED] = (long long)ld_now_ns();
    ld_tracer trace;
    LD_TRACE_START(trace);
    LD_WARP_CLOCKS_START;
    // the current level's frontier (count, out-edges, giants), carried from level to level
    i64 nf, fe, ngiants;
    {
        u64 counts[3];
        ld_read_slots<3>(slots, {LD_SLOT_COUNT * 3, LD_SLOT_EDGES * 3, LD_SLOT_GIANTS * 3}, counts);
        nf = (i64)counts[0], fe = (i64)counts[1], ngiants = (i64)counts[2];
    }

    ld_rule rule{rule_mode, alpha, beta, (double)n, rule_push, rule_previous, rule_unexplored};
    // the edges a block's or a cluster's levels may take: the search's limit, and no more than a
    // grid level would keep before handing its push to push.cu
    const i64 kept_edges = max_edges < handover_edges ? max_edges : handover_edges;
    int queue_valid = 1;                 // bit s: Q[s] holds slot s's frontier
    // bit s: F[s] holds slot s's frontier bits (else it is all clear). Push levels write none: a
    // pull lists its frontier's bits when a push made it, and only written bitmaps are cleared.
    int bits_held = 1;
    u64 handovers = 0;                   // runs of block levels so far
    i64 level = 0, previous_count = 0;
    const long long pushed_stop = made ? ld_stop_after(nf, __ldcg(pushed + LD_NCOUNTERS + 1) != 0ull, max_frontier) : -1;
    int reason = pushed_stop >= 0 ? (int)pushed_stop : LD_STOP_LEVELS;
    while (pushed_stop < 0 && level < max_levels) {
        const int cur = (int)(level % 3), nxt = (int)((level + 1) % 3), old = (int)((level + 2) % 3);
        if (nf == 0) { reason = LD_STOP_EMPTY; break; }
        LD_WARP_CLOCK(clock_known);          // (after a branch on the counters: past the barrier's wait)
        const bool push = rule.choose(nf, fe);
        if (push && (fe > max_edges || (fe > handover_edges && !ld_flat_keeps(nf, fe)))) {
            reason = LD_STOP_TOO_BIG;
            break;
        }
        LD_TRACE_USE(trace, nf + fe);
        LD_TRACE_MARK(trace, LD_G_HEAD);
        if (push && !((queue_valid >> cur) & 1)) {         // a pull made this frontier: list it
            ld_compact(bitmap(cur), nwords, queue(cur), slot(LD_SLOT_FILL, cur), lane, warp, nwarps);
            queue_valid |= 1 << cur;
            grid.sync();
        }
        if (!push && !((bits_held >> cur) & 1)) {          // a push made it: its bits for the pull
            ld_set_list_bits(queue(cur), nf, bitmap(cur), thread, nthreads);
            bits_held |= 1 << cur;
            grid.sync();
        }
        // level L-1's counters and input bits are no one's now: clear them for level L+1 to
        // write. A grid level does it after its own work (nothing of this level reads them, and
        // the barrier closing the level orders it before L+1), off the level's latency chain.
        // (Loading the first stale id before the work saved ~1% of a mesh's levels and cost
        // Kronecker 22's levels ~5% on nvidia-h100-x1: not kept.)
        auto clear_old = [&]() {
            if (thread == 0)
                for (int what = 0; what <= LD_SLOT_FILL; ++what) *slot(what, old) = 0ull;
            if (!((bits_held >> old) & 1)) return;
            bits_held &= ~(1 << old);
            if (((queue_valid >> old) & 1) && previous_count * 4 < nwords) {
                const int* stale = queue(old);
                for (i64 k = thread; k < previous_count; k += nthreads) bitmap(old)[__ldcg(stale + k) >> 5] = 0u;
            } else {
                for (i64 k = thread; k < nwords; k += nthreads) bitmap(old)[k] = 0u;
            }
        };
        const bool to_block = ld_block_fits(push, nf, fe, ngiants, block_edges, kept_edges);
        const bool to_cluster = CLUSTERED && thin_rows && ld_cluster_fits(push, nf, fe, ngiants, block_edges,
                                                                                 kept_edges);
        if (to_block || to_cluster) {
            clear_old();
            // the other blocks wait on the hand-over's epoch with a pause between reads, not in
            // the grid barrier's tight loop, whose reads would crowd block 0's memory traffic
            const u64 epoch = ++handovers;          // the same count in every thread
            if (to_block ? blockIdx.x == 0 : blockIdx.x < LD_FUSED_CLUSTER) {
                if (to_block) {
                    ld_block_levels<MULT, V, BLOCKS>(out_indptr, out_indices, n, words, parents, depths,
                                                     level_depth_words, first_depth, queues, bitmaps, giants,
                                                     giant_capacity, slots, rule, level, nf, fe, max_frontier,
                                                     kept_edges, max_levels, block_edges, thin_rows, target,
                                                     records, cache_visited ? ld_visited_cache : nullptr,
                                                     level_shared.block);
                    __syncthreads();
                } else {                            // (ends with the cluster's barrier)
                    ld_cluster_levels<MULT, V>(out_indptr, out_indices, n, words, parents, depths, level_depth_words,
                                               first_depth, queues, bitmaps, slots, rule, level, nf, fe, max_frontier,
                                               kept_edges, max_levels, block_edges, target, thin_rows, records,
                                               level_shared.cluster, trace);
                }
                if (blockIdx.x == 0 && threadIdx.x == 0) {
                    __threadfence();
                    *(volatile u64*)(slots + LD_SLOT_EPOCH) = epoch;
                }
            } else if (threadIdx.x == 0) {
                while (*(volatile u64*)(slots + LD_SLOT_EPOCH) < epoch) __nanosleep(LD_BLOCK_WAIT_NS);
            }
            LD_TRACE_MARK(trace, LD_H_BLOCK);
            grid.sync();
            LD_TRACE_MARK(trace, LD_H_BARRIER);
            LD_WARP_CLOCK_RESTART();
            u64 handover[8];
            ld_read_slots<8>(slots, {LD_SLOT_HANDOVER, LD_SLOT_HANDOVER + 1, LD_SLOT_HANDOVER + 2, LD_SLOT_HANDOVER + 3,
                                     LD_SLOT_HANDOVER + 4, LD_SLOT_HANDED, LD_SLOT_HANDED + 1, LD_SLOT_HANDED + 2},
                             handover);
            level = (i64)handover[0];
            rule.push = (long long)handover[1];
            rule.previous = (long long)handover[2];
            rule.unexplored = (long long)handover[3];
            const long long stop = (long long)handover[4];
            nf = (i64)handover[5], fe = (i64)handover[6], ngiants = (i64)handover[7];
            queue_valid = 1 << (int)(level % 3);  // block levels list their outputs and leave every
            bits_held = 0;                        // bitmap clear
            previous_count = 0;
            if (stop >= 0) { reason = (int)stop; break; }
            continue;
        }
        LD_WARP_CLOCK(clock_set);
        const ld_level_out<V> out{words, parents, depths, level_depth_words, first_depth + level, out_indptr,
                                  push ? nullptr : bitmap(nxt), queue(nxt), slot(LD_SLOT_COUNT, nxt), giant_list(nxt),
                                  slot(LD_SLOT_GIANTS, nxt), target, slots + LD_SLOT_TARGET};
        u64 next_edges = 0, found = 0, examined = 0;
        if (push) {
            // eager claims only in the 128-register build (the 64-register one would spill them)
            bool eager = false;
            if constexpr (BLOCKS == 1) eager = fe <= LD_EAGER_EDGES;
            if (nf <= LD_FLAT_FRONTIER && fe <= INT_MAX) {
                ld_flat_stage found{level_shared.flat.found[threadIdx.x >> 5], 0};
                ld_push_flat_level<MULT, V>(out_indptr, out_indices, queue(cur), (int)nf, out, next_edges, eager,
                                            level_shared.flat.frontier, found, lane, warp, nwarps);
            } else if (eager)
                ld_push_level<MULT, V, true>(out_indptr, out_indices, queue(cur), nf, giant_list(cur), ngiants,
                                             slot(LD_SLOT_WORK, cur), out, next_edges, lane, warp, nwarps);
            else
                ld_push_level<MULT, V, false>(out_indptr, out_indices, queue(cur), nf, giant_list(cur), ngiants,
                                              slot(LD_SLOT_WORK, cur), out, next_edges, lane, warp, nwarps);
            queue_valid |= 1 << nxt;
        } else {
            ld_pull_level<MULT, V>(in_indptr, in_indices, n, empty_rows, bitmap(cur), slot(LD_SLOT_WORK, cur), giant_rows,
                                   slot(LD_SLOT_GIANT_ROWS, cur), out, found, next_edges, examined, lane, warp,
                                   nwarps);
            if (giant_rows_possible) {       // a second barrier only where a row can be giant
                grid.sync();
                u64 rows[1];
                ld_read_slots<1>(slots, {LD_SLOT_GIANT_ROWS * 3 + cur}, rows);
                const i64 count = (i64)rows[0];
                ld_pull_giant_rows<MULT, V>(in_indptr, in_indices, bitmap(cur), giant_rows, count, out, found,
                                            next_edges, examined, lane, warp, nwarps);
            }
            ld_add_block_count(slot(LD_SLOT_COUNT, nxt), found);
            ld_add_block_count(slot(LD_SLOT_EXAMINED, cur), examined);
            queue_valid &= ~(1 << nxt);
            bits_held |= 1 << nxt;
        }
        LD_TRACE_MARK(trace, LD_G_WORK);
        LD_WARP_CLOCK_WORK();
        clear_old();
        LD_TRACE_MARK(trace, LD_G_CLEAR);
        ld_add_block_count(slot(LD_SLOT_EDGES, nxt), next_edges);
        LD_TRACE_MARK(trace, LD_G_COUNT);
        LD_WARP_CLOCK(clock_count);
        grid.sync();
        LD_TRACE_MARK(trace, LD_G_BARRIER);
        LD_WARP_CLOCKS_EXIT(out.depth - 1);     // (the search's level index, across runs: its depth - 1)
        u64 after[4];
        ld_read_slots<4>(slots, {LD_SLOT_COUNT * 3 + nxt, LD_SLOT_EDGES * 3 + nxt, LD_SLOT_GIANTS * 3 + nxt, LD_SLOT_TARGET},
                         after);
        const i64 discovered = (i64)after[0];
        if (thread == 0)
            ld_write_record(records, level, nf, discovered,
                            push ? fe : (i64)*(volatile u64*)slot(LD_SLOT_EXAMINED, cur), push, ld_now_ns());
        previous_count = nf;
        ++level;
        nf = discovered, fe = (i64)after[1], ngiants = (i64)after[2];
        const long long stop = ld_stop_after(discovered, after[3] != 0, max_frontier);
        if (stop >= 0) { reason = (int)stop; break; }
        LD_TRACE_USE(trace, discovered);
        LD_TRACE_MARK(trace, LD_G_RECORD);
    }
    LD_TRACE_FINISH(trace);
    const int last = (int)(level % 3);
    const i64 remaining = nf;            // the count of slot `last`, as every exit leaves it
    if (remaining && !((queue_valid >> last) & 1)) {       // the caller reads the frontier's ids
        ld_compact(bitmap(last), nwords, queue(last), slot(LD_SLOT_FILL, last), lane, warp, nwarps);
        grid.sync();
    }
    if (depth_bits_follow && depths)     // (every exit follows a grid barrier: every level's bits are in)
        for (i64 k = thread; k < nwords; k += nthreads) depth_words[k] = __ldcg(words + k);
    if (thread == 0) {
        status[LD_STATUS_LEVELS] = level;
        status[LD_STATUS_SLOT] = last;
        status[LD_STATUS_FRONTIER] = remaining;
        status[LD_STATUS_EDGES] = (long long)*(volatile u64*)slot(LD_SLOT_EDGES, last);
        status[LD_STATUS_REASON] = reason;
        status[LD_STATUS_PUSH] = rule.push;
        status[LD_STATUS_PREVIOUS] = rule.previous;
        status[LD_STATUS_UNEXPLORED] = rule.unexplored;
        status[LD_STATUS_CLUSTER_LEVELS] = (long long)*(volatile u64*)(slots + LD_SLOT_CLUSTER_LEVELS);
        status[LD_STATUS_CLUSTER_SPILLS] = (long long)*(volatile u64*)(slots + LD_SLOT_CLUSTER_SPILLS);
    }
    // The report's head (the status, a tile push's stamps between them and the records, the
    // first mirror_levels records) written into the host's page-locked mirror by block 0, whose
    // threads wrote all of it: the host reads it after the stream's synchronize, with no copy of
    // its own queued behind the kernel (the copy's call and its latency were 5-7 us of each call;
    // a deep search's records, copied after it, 70 us on a 1000 x 1000 mesh)
    if (blockIdx.x == 0) {
        __syncthreads();
        const volatile u64* head = (const volatile u64*)status;
        const i64 levels = (i64)head[LD_STATUS_LEVELS];
        const i64 words = (i64)(records - (const u64*)status) + LD_FUSED_RECORD * min(levels, mirror_levels);
        for (i64 k = threadIdx.x; k < words; k += blockDim.x) mirror[k] = head[k];
    }
}

// The kernel's arguments as one struct, so that a launch passes one argument (CuPy packs it
// from one buffer: lagraph_dist/local/gpu_kernels/fused.py's FUSED_ARGUMENTS names these
// fields in this order, tests/test_cuda_sources.py checks it). Every field is 8 bytes wide,
// so that the packing has no padding: the graph's and the workspace's fields first (packed
// once a matrix), then the call's.
template <typename V>
struct ld_fused_args {
    const i64* out_indptr; const int* out_indices; const i64* in_indptr; const int* in_indices;
    const u32* empty_rows; i64 n;
    int* queues; u32* bitmaps; int* giants; int* giant_rows; i64 giant_capacity; i64 giant_rows_possible;
    const u64* thin_rows; u64* slots;
    u32* words; V* parents; long long* depths; u32* depth_words; long long first_depth;
    const int* first; i64 nfirst; i64 source; const u64* pushed;
    i64 rule_mode; double alpha; double beta; long long rule_push; long long rule_previous;
    long long rule_unexplored;
    i64 max_frontier; i64 max_edges; i64 handover_edges; i64 max_levels; i64 block_edges; i64 target;
    u64* records; long long* status; u64* mirror; i64 mirror_levels; i64 cache_visited; i64 depth_bits_follow;
};

// The search's call of ld_bfs_fused_search from its one argument.
#define LD_FUSED_SEARCH(MULT, V, BLOCKS, CLUSTERED) ld_bfs_fused_search<MULT, V, BLOCKS, CLUSTERED>( \
        a.out_indptr, a.out_indices, a.in_indptr, a.in_indices, a.empty_rows, a.n, a.words, a.parents, a.depths, \
        a.depth_words, a.first_depth, a.first, a.nfirst, (int)a.source, a.pushed, a.queues, \
        a.bitmaps, a.giants, a.giant_rows, a.giant_capacity, (int)a.giant_rows_possible, a.thin_rows, a.slots, \
        (int)a.rule_mode, a.alpha, a.beta, a.rule_push, a.rule_previous, a.rule_unexplored, a.max_frontier, \
        a.max_edges, a.handover_edges, a.max_levels, a.block_edges, (int)a.target, a.records, a.status, a.mirror, a.mirror_levels, \
        a.cache_visited != 0, a.depth_bits_follow != 0)

// BLOCKS: the blocks a multiprocessor the launch is built for (see ld_bfs_fused_search).
template <int MULT, typename V, int BLOCKS>
__global__ void __launch_bounds__(LD_FUSED_THREADS, BLOCKS) ld_bfs_fused(const ld_fused_args<V> a) {
    LD_FUSED_SEARCH(MULT, V, BLOCKS, false);
}

// The one-block-an-SM build launched in thread block clusters, whose first cluster runs the
// levels between block 0's and the grid's on thin graphs (ld_cluster_levels; compute capability
// 9.0 and up: built elsewhere without the clusters, it traps if a cluster level is reached).
#ifdef LD_CLUSTER_LEVELS
#define LD_CLUSTER_DIMS __cluster_dims__(LD_FUSED_CLUSTER, 1, 1)
#else
#define LD_CLUSTER_DIMS
#endif
template <int MULT, typename V>
__global__ void __launch_bounds__(LD_FUSED_THREADS, 1) LD_CLUSTER_DIMS ld_bfs_fused_clustered(const ld_fused_args<V> a) {
    LD_FUSED_SEARCH(MULT, V, 1, true);
}
#undef LD_FUSED_SEARCH

#ifdef LD_NVCC_CHECK
#define LD_FUSED_INSTANCE(M, V, B) template __global__ void ld_bfs_fused<M, V, B>(const ld_fused_args<V>);
LD_FUSED_INSTANCE(LD_MULT_PAIR, bool, 1)
LD_FUSED_INSTANCE(LD_MULT_SECONDI, long long, 1)
LD_FUSED_INSTANCE(LD_MULT_PAIR, bool, 2)
LD_FUSED_INSTANCE(LD_MULT_SECONDI, long long, 2)
template __global__ void ld_bfs_fused_clustered<LD_MULT_PAIR, bool>(const ld_fused_args<bool>);
template __global__ void ld_bfs_fused_clustered<LD_MULT_SECONDI, long long>(const ld_fused_args<long long>);
#endif
