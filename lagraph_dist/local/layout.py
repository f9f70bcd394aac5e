"""The numbers the CUDA kernels in ``kernels/`` and the Python code share, in one place.

Each shared number is a name here; the kernels see it as ``LD_<name>``, a ``-D`` option of
:func:`cuda_defines` (``gpu_kernels`` passes them to every ``cupy.RawModule``, the tests to
nvcc). The sources define none of these names themselves: ``kernels/common.cuh`` stops a
compile that lacks one with an ``#error`` naming it. The numpy twins (``cpu_kernels``), the GPU
driver (``gpu_kernels``) and ``grid`` import them from here.

It imports only the semirings' kernel codes, which their operators define (lagraph_dist.semirings).
"""
from __future__ import annotations

from lagraph_dist.semirings import (ADD_ANY, ADD_LAND, ADD_LOR, ADD_MAX, ADD_MIN, ADD_PLUS, MULT_FIRST,  # noqa: F401
                                    MULT_LAND, MULT_PAIR, MULT_PLUS, MULT_SECOND, MULT_SECONDI, MULT_TIMES)

__all__ = ["cuda_defines", "SHARED"]

# -- words --------------------------------------------------------------------------------------
WORD_BITS = 32               # bits of a packed bitmap word (uint32; the kernels index id >> 5)

# -- launch shapes --------------------------------------------------------------------------------
THREADS = 256                # block of the plain launches (bitmap, pull, fold, multi; host only)
PUSH_THREADS = 256           # push.cu: ld_push_spmspv's block (its __launch_bounds__ and tile)
EDGES_PER_THREAD = 4         # push.cu: a thread's edges a tile (Bisson et al. 2015 measured 4 best)
TILE_EDGES = PUSH_THREADS * EDGES_PER_THREAD       # push.cu: the edges a block's warps take in one tile each
SMALL_SCAN = 1024            # push.cu: frontiers up to this size are scanned by one block
LONG_ROW_THRESHOLD = 128     # pull rows longer than this are scanned a warp at a time, whose
                             # 32-wide reads coalesce (pull.cu's second kernel); a lane scans a
                             # shorter row alone, four in-edges in flight: most rows stop at their
                             # first frontier in-edge, and a warp takes its long rows one after
                             # another (H100, Kronecker 26's level 4: 3.51 ms at 8, 2.77 at 32,
                             # 2.27 at 128, 512 and 2048). The fused kernel's pull has a lane scan
                             # the first 128 in-edges of every row and the warp only the rest of
                             # a row that found nothing there (fused_grid_levels.cuh's
                             # LD_FUSED_LANE_EDGES): with a quarter of the GPU's warps, a warp's
                             # long rows in a row cost it more
FUSED_THREADS = 512          # fused.cu: the cooperative kernel's block
FUSED_GIANT_DEGREE = 4096    # fused.cu: pull rows of more in-edges are sliced over the grid
FUSED_PUSH_GIANT_DEGREE = 1024  # fused.cu: push vertices of more out-edges are sliced over the grid
                             # (a warp walking 4,096 edges 32 at a time was the tail of Kronecker
                             # push levels; pull keeps 4,096, whose giant rows cost a second phase)
#: fused.cu's builds: the blocks a multiprocessor each is built for (__launch_bounds__); one
#: gives a thread twice the registers of two (not a -D define: the template argument)
FUSED_BUILDS = (1, 2)
#: multi_fused.cu's pull lanes a row when a vertex has one word (its PULL_LANES template
#: argument; with several words a row takes one lane a word), and the (words, lanes) shapes built
MULTI_FUSED_PULL_LANES_BUILT = (1, 2, 4, 8)
MULTI_FUSED_SHAPES = tuple((1, p) for p in MULTI_FUSED_PULL_LANES_BUILT) + tuple((w, w) for w in (2, 4, 8))
FUSED_BLOCK_FRONTIER = 1024  # fused.cu: frontier entries a one-block level holds in shared memory
FUSED_BLOCK_EDGES = 2048     # fused.cu: a push level of at most this many frontier edges runs in
                             # one block (a kernel argument, not a define: benchmarks sweep it)
FUSED_CLUSTER_BLOCK_EDGES = 1024  # the same where the cluster levels run above block 0's (a thin
                             # graph's clustered build): a mesh level of 257-512 entries is faster
                             # in the cluster than in block 0 (docs/notes/gpu-cluster-levels.md)
FUSED_THIN_ROW = 8           # fused.cu: a graph whose rows have at most this many out-edges runs
                             # its block levels a thread an entry (the one-block-an-SM build)
THIN_ROW_DEGREE_BITS = 4     # fused.cu: such a graph's rows, a word each: start << these | degree
FUSED_CLUSTER = 8            # fused.cu: blocks of the thread block cluster whose levels run between
                             # block 0's and the grid's on thin graphs (compute capability 9.0 and up)
FUSED_INBOX = 1024           # fused.cu: entries a cluster block's inbox holds (the vertices it owns
                             # of a level's frontier)
SWEEP_HEAVY_EDGES = 2048     # dependencies.cu: a row longer than this is summed by a block of
                             # SWEEP_HEAVY_THREADS (a kernel argument), not by one warp: a
                             # Kronecker hub's row would hold a warp for milliseconds
SWEEP_THREAD_WORK = 32       # dependencies.cu: a slot whose searches times its row's edges are at
                             # most this is summed by its own thread, not by a warp (a mesh's
                             # slots: a warp a slot waited on each slot's loads in turn)
SWEEP_HEAVY_THREADS = 1024   # dependencies.cu: ld_sweep_heavy's block (its shared sums hold 32 warps)
SWEEP_GROUP_WORDS = 32       # dependencies.cu: the words (64 searches each) whose sweeps run in one
                             # set of depth launches at most (ld_sweep_planes counts their columns
                             # in shared memory): a mesh's depth launches wait on chains of loads,
                             # and more slots a launch keep more of them in flight
RULE_EDGES = 16              # edge_rules.cu: the consecutive entries a thread checks (a kernel
                             # argument): one search of indptr finds a run's first row
MAX_OWNERS = 64              # fold.cu, multi.cu: per-owner tables hold up to this many members

# -- semiring and mask codes (template arguments / kernel arguments) -----------------------------
# The semirings' codes are defined with the operators that carry them (lagraph_dist.semirings)
# and handed on from here with the other shared numbers; the tables below only name them.
MASK_NONE, MASK_KEEP_SET, MASK_KEEP_CLEAR = 0, 1, 2    # no mask, mask, complemented mask
MULT_CODES = {"pair": MULT_PAIR, "land": MULT_LAND, "secondi": MULT_SECONDI, "first": MULT_FIRST,
              "second": MULT_SECOND, "times": MULT_TIMES, "plus": MULT_PLUS}
ADD_CODES = {"any": ADD_ANY, "min": ADD_MIN, "lor": ADD_LOR, "plus": ADD_PLUS, "max": ADD_MAX, "land": ADD_LAND}

# -- the counters every product kernel writes (u64 each, zeroed with the output) -----------------
FOUND = 0                    # entries found = length of the output queue
EXAMINED = 1                 # edges (matrix entries) read
PUSH_EDGES = 2               # sum of out_degree over the entries found (the direction rule's input)
LONG_ROWS = 3                # pull: rows queued for the warp-per-row kernel
OVERFLOW = 4                 # fold: a piece held more entries than its capacity (a wrong bound)
PUSH_GIANTS = 5              # push in place: its output's vertices of more than FUSED_PUSH_GIANT_DEGREE
                             # out-edges, listed for fused.cu's next run
NCOUNTERS = 6                # even, so that words after the counters stay 8-byte aligned

# -- the counters of the multi-source kernels (multi.cu) --------------------------------------------
M_FOUND = 0                  # vertices appended to the queue (their next word became nonzero)
M_BITS = 1                   # bits claimed
M_EXAMINED = 2               # matrix entries read
M_PUSH_EDGES = 3             # out-degrees of the vertices appended (when out_degree is given)
M_COMPLETED = 4              # out-degrees of the vertices whose word became ``full`` (likewise)
M_LIVE = 5                   # the OR of the bits claimed: the searches that found something
M_NCOUNTERS = 8

# -- the fused search (fused.cu) ----------------------------------------------------------------
# direction rule modes: the order of lagraph_dist.core.direction.DIRECTIONS
RULE_PUSH, RULE_PULL, RULE_AUTO = 0, 1, 2
# why a run stopped (status[STATUS_REASON])
STOP_EMPTY, STOP_TOO_BIG, STOP_LEVELS, STOP_TARGET = 0, 1, 2, 3
FUSED_NSLOTS = 34            # u64 words of the kernel's counters (their layout is fused.cu's own)
# status[] written at exit (int64), in this order
STATUS_LEVELS = 0
STATUS_SLOT = 1              # the slot holding the last frontier (its queue is valid)
STATUS_FRONTIER = 2
STATUS_EDGES = 3
STATUS_REASON = 4
STATUS_PUSH = 5              # the rule's state after the run
STATUS_PREVIOUS = 6
STATUS_UNEXPLORED = 7
STATUS_STARTED = 8           # %globaltimer (ns) when the first level began
STATUS_CLUSTER_LEVELS = 9    # levels run inside one thread block cluster (fused.cu's ld_cluster_levels)
STATUS_CLUSTER_SPILLS = 10   # of those, levels whose output overfilled an inbox (the grid took it)
FUSED_NSTATUS = 11
# a level's record (uint64), FUSED_RECORD words a level after the status
RECORD_FRONTIER, RECORD_DISCOVERED, RECORD_EXAMINED, RECORD_PUSH, RECORD_END_NS = range(5)
FUSED_RECORD = 5             # RECORD_PUSH: 1 push / 0 pull; RECORD_END_NS: %globaltimer at its end
#: the levels one run of the fused kernel takes at most (its report's records), the next run going
#: on from the frontier it leaves
FUSED_MAX_LEVELS = 4096

#: the names handed to the kernels, each as -DLD_<name>=<value>
SHARED = (
    "WORD_BITS", "PUSH_THREADS", "EDGES_PER_THREAD", "SMALL_SCAN", "LONG_ROW_THRESHOLD",
    "FUSED_THREADS", "FUSED_GIANT_DEGREE", "FUSED_PUSH_GIANT_DEGREE", "FUSED_BLOCK_FRONTIER", "FUSED_THIN_ROW",
    "THIN_ROW_DEGREE_BITS", "FUSED_CLUSTER", "FUSED_INBOX",
    "MAX_OWNERS", "SWEEP_GROUP_WORDS",
    "MULT_PAIR", "MULT_LAND", "MULT_SECONDI", "MULT_FIRST", "MULT_SECOND", "MULT_TIMES", "MULT_PLUS",
    "ADD_ANY", "ADD_MIN", "ADD_LOR", "ADD_PLUS", "ADD_MAX", "ADD_LAND",
    "MASK_NONE", "MASK_KEEP_SET", "MASK_KEEP_CLEAR",
    "FOUND", "EXAMINED", "PUSH_EDGES", "LONG_ROWS", "OVERFLOW", "PUSH_GIANTS", "NCOUNTERS",
    "M_FOUND", "M_BITS", "M_EXAMINED", "M_PUSH_EDGES", "M_COMPLETED", "M_LIVE", "M_NCOUNTERS",
    "RULE_PUSH", "RULE_PULL", "RULE_AUTO", "STOP_EMPTY", "STOP_TOO_BIG", "STOP_LEVELS", "STOP_TARGET",
    "FUSED_NSLOTS",
    "STATUS_LEVELS", "STATUS_SLOT", "STATUS_FRONTIER", "STATUS_EDGES", "STATUS_REASON", "STATUS_PUSH",
    "STATUS_PREVIOUS", "STATUS_UNEXPLORED", "STATUS_STARTED", "STATUS_CLUSTER_LEVELS", "STATUS_CLUSTER_SPILLS",
    "FUSED_NSTATUS",
    "RECORD_FRONTIER", "RECORD_DISCOVERED", "RECORD_EXAMINED", "RECORD_PUSH", "RECORD_END_NS",
    "FUSED_RECORD",
)


def cuda_defines() -> tuple[str, ...]:
    """The ``-DLD_<name>=<value>`` compiler options of every shared name, in :data:`SHARED`'s
    order (the kernels in ``kernels/`` do not compile without them)."""
    values = globals()
    options = []
    for name in SHARED:
        value = values[name]
        if type(value) is not int:
            raise TypeError(f"kernel_layout.{name} must be an int, not {value!r}")
        options.append(f"-DLD_{name}={value}")
    return tuple(options)
