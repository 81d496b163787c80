"""The tensor-parallel and data-parallel groups of a Llama run (docs/llama.md#training).

A tensor-parallel group is `tp` consecutive ranks. trn-run and spank_trn number ranks node by
node, on consecutive NeuronCores, so such a group sits on one node whenever tp divides the
workers per node, which the plan checks. A data-parallel group is the ranks at the same place
in every tensor-parallel group.
"""

import dataclasses

import torch.distributed as dist

from ..errors import UsageError
from .tensor_parallel import TensorParallel


@dataclasses.dataclass(frozen=True)
class LmGroups:
    tp: TensorParallel
    dp_size: int = 1
    dp_rank: int = 0
    dp_group: object = None


def lm_groups(rank, world_size, tp_size):
    """Every rank makes every group, in the same order (torch.distributed.new_group's rule)."""
    if tp_size < 1 or world_size % tp_size:
        raise UsageError(f"--tensor-parallel {tp_size} does not divide the world of {world_size} "
                         "processes: choose a degree that divides it")
    dp_size = world_size // tp_size
    if world_size == 1:
        return LmGroups(TensorParallel())
    tp_group = dp_group = None
    for first in range(0, world_size, tp_size):
        group = dist.new_group(list(range(first, first + tp_size)))
        if first <= rank < first + tp_size:
            tp_group = group
    for place in range(tp_size):
        group = dist.new_group(list(range(place, world_size, tp_size)))
        if rank % tp_size == place:
            dp_group = group
    tp = TensorParallel(tp_size, rank % tp_size, tp_group) if tp_size > 1 else TensorParallel()
    return LmGroups(tp, dp_size, rank // tp_size, dp_group)
