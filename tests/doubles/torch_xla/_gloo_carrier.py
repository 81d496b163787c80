"""What carries the double's collectives between processes: gloo (TEST DOUBLE machinery, no
torch-xla counterpart - the real collectives are operations in the device's graph).

Each replica group gets a gloo process group of its own, made by its members only, from the xla
world's store under a key naming the group's replicas in order. So a group is the same gloo
group on every member whichever mesh names it, no rank outside it takes part, and nothing
depends on the order in which meshes are first used. Its gloo rank is the replica's place in the
group, which is the order an all-gather concatenates in.
"""

import torch
import torch.distributed as dist

_world = None  # (store, timeout) of the "xla" world process group
_carriers = {}  # tuple of replica ids -> ProcessGroupGloo


def attach_world(store, timeout):
    """Called when the "xla" world process group is made: its store carries every group's (a
    new world, after destroy_process_group, makes its groups anew)."""
    global _world
    _world = (store, timeout)
    _carriers.clear()


def _carrier(group, ordinal, world_size):
    key = tuple(group)
    if key not in _carriers:
        if _world is None:
            raise RuntimeError("torch_xla TEST DOUBLE: a collective between processes needs the xla "
                               "process group (dist.init_process_group('xla', init_method='xla://')) "
                               "to carry it; the real runtime needs none")
        outside = [r for r in group if not 0 <= r < world_size]
        if outside:
            raise ValueError(f"torch_xla TEST DOUBLE: replica group {group} names replicas {outside} "
                             f"outside the world of {world_size}")
        store, timeout = _world
        prefix = dist.PrefixStore(f"torch_xla_double/replica_group/{'-'.join(map(str, group))}/", store)
        _carriers[key] = dist.ProcessGroupGloo(prefix, group.index(ordinal), len(group), timeout)
    return _carriers[key]


def all_reduce(tensor, op, group, ordinal, world_size):
    """`tensor` reduced in place over `group` (a list of replica ids holding `ordinal`)."""
    if len(group) == 1:
        return
    carried = tensor if tensor.is_contiguous() else tensor.contiguous()
    options = dist.AllreduceOptions()
    options.reduceOp = op
    _carrier(group, ordinal, world_size).allreduce([carried], options).wait()
    if carried is not tensor:
        tensor.copy_(carried)


def all_gather(tensor, group, ordinal, world_size):
    """Every member's `tensor`, in the group's order."""
    if len(group) == 1:
        return [tensor.clone()]
    carried = tensor.contiguous()
    parts = [carried.new_empty(carried.shape) for _ in group]
    _carrier(group, ordinal, world_size).allgather([parts], [carried]).wait()
    return parts


def reduce_scatter(tensor, op, group, ordinal, world_size, dim):
    """`tensor` reduced over `group`, then this replica's shard of it: the result split along
    `dim` into one piece per member, the i-th to the group's i-th replica (XLA's reduce-scatter
    order). Carried as an all-reduce of a copy, then a slice."""
    reduced = tensor.clone(memory_format=torch.contiguous_format)
    all_reduce(reduced, op, group, ordinal, world_size)
    return reduced.chunk(len(group), dim)[group.index(ordinal)].clone()
