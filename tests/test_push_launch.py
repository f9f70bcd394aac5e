"""push.py's launch shape (PushKernels._push_blocks), which needs no device: as many blocks as
the frontier's edges fill with tiles (TILE_EDGES a block), never fewer than one, at most
PUSH_BLOCKS_PER_SM a multiprocessor or the ``push_blocks_per_sm`` setting's count."""
from types import SimpleNamespace

import pytest

from lagraph_dist.local.gpu_kernels.push import PUSH_BLOCKS_PER_SM, PushKernels
from lagraph_dist.local.layout import TILE_EDGES


def _blocks(edges, sms=132, setting=None):
    return PushKernels._push_blocks(SimpleNamespace(_sms=sms, push_blocks_per_sm=setting), edges)


@pytest.mark.parametrize("edges, expected", [(0, 1), (1, 1), (TILE_EDGES, 1), (TILE_EDGES + 1, 2),
                                             (100 * TILE_EDGES, 100)])
def test_a_small_frontier_takes_the_blocks_its_tiles_fill(edges, expected):
    assert _blocks(edges) == expected


def test_a_big_frontier_takes_the_policy_or_the_setting():
    huge = 10 ** 12
    assert _blocks(huge) == 132 * PUSH_BLOCKS_PER_SM == 132 * 64
    assert _blocks(huge, setting=8) == 132 * 8
    assert _blocks(huge, sms=2, setting=3) == 6
    assert _blocks(5 * TILE_EDGES, sms=2, setting=2) == 4
