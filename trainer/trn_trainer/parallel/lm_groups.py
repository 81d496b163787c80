"""The tensor-parallel and data-parallel groups of a Llama run (docs/llama.md#training).

A tensor-parallel group is `tp` consecutive ranks unless the device orders them otherwise
(Device.tensor_parallel_mesh: half a trn2 node's cores are two rows of its ring). trn-run and
spank_trn number ranks node by node, on consecutive NeuronCores, so such a group sits on one node
whenever tp divides the workers per node, which the plan checks. A data-parallel group is the
ranks at the same place in every tensor-parallel group. A rank's tensor-parallel rank is its
place in its group, its data-parallel rank the number of its group. Each group's options name its
whole mesh (every group of its kind): torch-xla makes the group's collectives from it
(docs/hardware.md#torch-xla-groups).
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


def _group_of(rank, mesh, group_options):
    """Every group of `mesh` made, in order (torch.distributed.new_group's rule: every rank makes
    every group); the one that holds `rank`."""
    mine = None
    for ranks in mesh:
        group = dist.new_group(ranks, pg_options=group_options(mesh))
        if rank in ranks:
            mine = group
    return mine


def consecutive_mesh(world_size, tp_size):
    """Tensor-parallel groups of `tp_size` consecutive ranks."""
    return [list(range(first, first + tp_size)) for first in range(0, world_size, tp_size)]


def lm_groups(rank, world_size, tp_size, group_options=lambda mesh: None, tp_mesh=None):
    """group_options(mesh): new_group's pg_options for a group of `mesh` (Device.group_options;
    torch-xla needs the whole mesh). tp_mesh: the tensor-parallel groups
    (Device.tensor_parallel_mesh), None for consecutive ranks."""
    if tp_size < 1 or world_size % tp_size:
        raise UsageError(f"--tensor-parallel {tp_size} does not divide the world of {world_size} "
                         "processes: choose a degree that divides it")
    dp_size = world_size // tp_size
    if world_size == 1:
        return LmGroups(TensorParallel())
    tp_mesh = tp_mesh or consecutive_mesh(world_size, tp_size)
    if sorted(r for group in tp_mesh for r in group) != list(range(world_size)) or \
            any(len(group) != tp_size for group in tp_mesh):
        raise ValueError(f"tensor-parallel mesh {tp_mesh} is not groups of {tp_size} covering "
                         f"ranks 0..{world_size - 1} once")
    dp_mesh = [list(place) for place in zip(*tp_mesh)]
    tp_group = _group_of(rank, tp_mesh, group_options)
    dp_group = _group_of(rank, dp_mesh, group_options)
    dp_rank = next(number for number, group in enumerate(tp_mesh) if rank in group)
    tp_rank = tp_mesh[dp_rank].index(rank)
    tp = TensorParallel(tp_size, tp_rank, tp_group) if tp_size > 1 else TensorParallel()
    return LmGroups(tp, dp_size, dp_rank, dp_group)
