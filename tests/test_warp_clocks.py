"""benchmarks/warp_clocks.py's reading of a grid level's warp clocks, on clocks made by hand."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import warp_clocks  # noqa: E402


def test_a_level_is_read_from_each_blocks_release_as_its_master_warp_saw_it():
    # two blocks of two warps, block 1's SM clock 10,000 cycles ahead; each row: start, counters
    # known, set up, work end, count end, next barrier's exit (clock64), then %globaltimer at the
    # start and the work's end. Warp 1 of each block read its "start" and "exit" on arriving at
    # the barrier, before the release its master (warp 0) saw: those readings must not count.
    rows = np.array([[1_000, 1_100, 1_200, 1_400, 1_700, 3_000, 500, 700],
                     [400, 1_100, 1_250, 1_900, 2_100, 2_500, 200, 950],          # block 0's slowest
                     [11_000, 11_150, 11_250, 11_300, 11_600, 13_050, 520, 670],
                     [10_100, 11_150, 11_300, 12_000, 12_400, 12_600, 100, 970]],  # the slowest: works to 1,000
                    dtype=np.uint64)
    figures = warp_clocks.level_figures(rows, warps_a_block=2)
    assert figures["level"] == (2_000 + 2_050) // 2
    assert figures["last_work_end"] == 1_000                # 12,000 - 11,000
    assert figures["last_count"] == 1_400
    assert figures["slowest_block"] == 1 and figures["slowest_warp_in_block"] == 1
    assert figures["barrier_after_last"] == 650             # block 1: 2,050 - 1,400 (block 0: 2,000 - 1,100)
    assert figures["median_work_end"] == int(np.median([400, 900, 300, 1_000]))
    assert figures["release_spread_ns"] == 20               # the masters' starts: 500 and 520
    assert figures["counters_known"] == int(np.median([100, 100, 150, 150]))
    assert figures["set_up"] == int(np.median([200, 250, 250, 300]))


def test_summary_counts_the_slowest_blocks_over_levels():
    levels = [{"level": 10, "counters_known": 0, "set_up": 0, "first_work_end": 1, "median_work_end": 2, "last_work_end": 5, "last_count": 6,
               "barrier_after_last": 3, "slowest_block": b, "slowest_warp_in_block": w, "release_spread_ns": 7}
              for b, w in ((0, 1), (0, 3), (7, 1))]
    summary = warp_clocks.summarize(levels, clock_hz=1e9)
    assert summary["grid_levels"] == 3
    assert abs(summary["slowest_is_block_0"] - 2 / 3) < 1e-12
    assert summary["slowest_block_counts"] == {0: 2, 7: 1}
    assert summary["slowest_warp_in_block_counts"] == {1: 2, 3: 1}
    assert summary["median_us"]["level"] == 10 * 1e6 / 1e9
    assert summary["release_spread_ns"] == 7
