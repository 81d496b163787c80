"""torch_xla.distributed.xla_backend (TEST DOUBLE of
https://github.com/pytorch/xla/blob/v2.9.0/torch_xla/distributed/xla_backend.py).

Importing it registers the "xla" process-group backend and the xla:// rendezvous (which takes
rank and world from the PJRT runtime, not from RANK/WORLD_SIZE: see _xla_rendezvous), and replaces
`torch.distributed.new_group`, as the real module does.

An "xla" process group is a ProcessGroupXla: its collectives are xm collectives over the
group's `_mesh`, a list of replica groups of global ranks. The world's mesh is empty (every
replica). `new_group(ranks)` on the xla backend sets the mesh from the ranks alone: all ranks,
or one rank (then every rank alone), or - for any other subset - the mesh given in
`pg_options={"xla_pg_options": {"mesh": [...]}}`, and without it just `[ranks]`: a partial mesh
that XLA refuses when the graph compiles (../_replica_groups.py). `barrier` does nothing;
`broadcast` is xm.collective_broadcast; `reduce_scatter_tensor` (`_reduce_scatter_base`) and
`reduce_scatter` are xm.reduce_scatter along dimension 0 with as many shards as the mesh's groups
have members, `all_gather_into_tensor` (`_allgather_base`) the unpinned xm.all_gather.
docs/hardware.md#torch-xla-groups.
"""

import datetime
import importlib
import logging
import os

import torch
import torch.distributed as dist
from torch._C._distributed_c10d import ProcessGroup

from .. import _gloo_carrier, runtime
from ..core import xla_model as xm


def _completed(result):
    future = torch.futures.Future()
    future.set_result(result)
    return torch._C._distributed_c10d._create_work_from_future(future)


def _not_modelled(name):
    def refuse(self, *args, **kwargs):
        raise NotImplementedError(f"torch_xla TEST DOUBLE: ProcessGroupXla.{name} is not modelled "
                                  "(trn_trainer does not call it)")
    return refuse


def _unsupported(self, *args, **kwargs):
    raise NotImplementedError  # as the real ProcessGroupXla does for these


class ProcessGroupXla(ProcessGroup):
    def __init__(self, prefix_store, rank, size, timeout):
        super().__init__(rank, size)
        self.prefix_store = prefix_store
        self.timeout = timeout
        self._mesh = []

    def getBackendName(self):
        return "xla"

    _REDUCE_TYPES = ((dist.ReduceOp.SUM, xm.REDUCE_SUM), (dist.ReduceOp.PRODUCT, xm.REDUCE_MUL),
                     (dist.ReduceOp.BAND, xm.REDUCE_AND), (dist.ReduceOp.BOR, xm.REDUCE_OR),
                     (dist.ReduceOp.MIN, xm.REDUCE_MIN), (dist.ReduceOp.MAX, xm.REDUCE_MAX))

    def _reduce_type(self, reduce_op):
        for op, reduce_type in self._REDUCE_TYPES:
            if reduce_op == op:
                return reduce_type
        if reduce_op == dist.ReduceOp.BXOR:
            raise NotImplementedError(f"reduce op {reduce_op}")
        raise ValueError(f"Invalid reduce op {reduce_op}")

    def allreduce(self, tensors, all_reduce_options):
        xm.all_reduce(self._reduce_type(all_reduce_options.reduceOp), tensors, groups=self._mesh,
                      pin_layout=False)
        return _completed(tensors)

    def allgather(self, output_tensors_list, input_tensors, opts=None):
        for value, outputs in zip(input_tensors, output_tensors_list):
            scalar = value.dim() == 0
            rows = value.reshape(1) if scalar else value
            gathered = xm.all_gather(rows, dim=0, groups=self._mesh, pin_layout=False)
            for i, part in enumerate(torch.split(gathered, rows.shape[0])):
                with torch.no_grad():
                    outputs[i].copy_(part.reshape(()) if scalar else part)
        return _completed([t for outputs in output_tensors_list for t in outputs])

    def _allgather_base(self, output_tensor, input_tensor, opts):
        """torch 2.9's all_gather_into_tensor: xm.all_gather (unpinned) over the mesh, copied into
        the output when it is the gather concatenated or stacked (checked after the gather, as the
        real one does)."""
        if input_tensor.dim() == 0:
            input_tensor = torch.reshape(input_tensor, (1,))
        result = xm.all_gather(input_tensor, dim=0, groups=self._mesh, pin_layout=False)
        if result.shape == output_tensor.shape:
            output_tensor.copy_(result, non_blocking=True)
            return _completed([output_tensor])
        stacked = torch.stack(torch.split(result, input_tensor.shape[0], dim=0), dim=0)
        if stacked.shape == output_tensor.shape:
            output_tensor.copy_(stacked, non_blocking=True)
            return _completed([output_tensor])
        raise ValueError(f"Input shape {input_tensor.shape} and output shape {output_tensor.shape} are not "
                         "compatible for all_gather_into_tensor. Input must be stacked or concatenated to "
                         "create output.")

    def _shard_count(self):
        return len(self._mesh[0]) if self._mesh else self.size()

    def _reduce_scatter_base(self, output_tensor, input_tensor, opts):
        """torch 2.9's reduce_scatter_tensor: xm.reduce_scatter along dimension 0 over the mesh,
        as many shards as the mesh's first group has members (the group's size when the mesh is
        empty), into the output."""
        xm.reduce_scatter(self._reduce_type(opts.reduceOp), input_tensor, scatter_dim=0,
                          shard_count=self._shard_count(), scale=1.0, groups=self._mesh, output=output_tensor,
                          pin_layout=False)
        return _completed(output_tensor)

    # torch 2.13 (this project's CPU torch) calls these where torch 2.9 - the device's, which
    # torch-xla 2.9 is made for - calls the two above: the same arguments, the same work.
    all_gather_single = _allgather_base
    reduce_scatter_single = _reduce_scatter_base

    def reduce_scatter(self, output_tensors, input_tensors_list, opts):
        """dist.reduce_scatter: each input list (of one shape) concatenated, then as
        _reduce_scatter_base."""
        for input_tensors, output_tensor in zip(input_tensors_list, output_tensors):
            first_shape = input_tensors[0].shape
            for i, t in enumerate(input_tensors[1:]):
                if first_shape != t.shape:
                    raise ValueError(f"Input {i + 1}'s shape is different from input 0: {t.shape} vs "
                                     f"{first_shape}")
            input_tensor = torch.cat(input_tensors)
            xm.reduce_scatter(self._reduce_type(opts.reduceOp), input_tensor, scatter_dim=0,
                              shard_count=self._shard_count(), scale=1, groups=self._mesh,
                              output=output_tensor, pin_layout=False)
        return _completed(output_tensors)

    def broadcast(self, tensors, opts):
        root = tensors[opts.rootTensor]
        source = dist.get_global_rank(self, opts.rootRank)  # xm speaks global ordinals
        xm.collective_broadcast([root], source, groups=self._mesh, pin_layout=False)
        return _completed([root])

    def barrier(self, opts):
        return _completed([])  # no collective at all: use xm.rendezvous to wait for the others

    allreduce_coalesced = recv_anysource = monitored_barrier = Options = _unsupported
    allgather_coalesced = _not_modelled("allgather_coalesced")
    reduce_scatter_coalesced = _not_modelled("reduce_scatter_coalesced")
    reduce = _not_modelled("reduce")
    alltoall = _not_modelled("alltoall")
    alltoall_base = _not_modelled("alltoall_base")
    gather = _not_modelled("gather")
    scatter = _not_modelled("scatter")
    send = _not_modelled("send")
    recv = _not_modelled("recv")


def _create_xla_process_group(prefix_store, rank, size, timeout):
    if not dist.is_initialized():  # the world group: its store carries the double's collectives
        _gloo_carrier.attach_world(prefix_store, timeout)
    return ProcessGroupXla(prefix_store, rank, size, timeout)


def _xla_rendezvous(url, timeout=datetime.timedelta(minutes=30), **kwargs):
    """torch_xla/_internal/rendezvous.py's handler: only under torchrun does it replicate first
    (over the worker's device when torchrun started several workers on the node, over nothing
    when one); a process started otherwise keeps the replication it has - none unless it called
    xm.set_replication - and so its world_size(). Rank and world come from the runtime."""
    if os.environ.get("TORCHELASTIC_RUN_ID"):  # dist.is_torchelastic_launched()
        device = xm.xla_device()
        if int(os.environ["LOCAL_WORLD_SIZE"]) > 1:
            xm.set_replication(device, xm.get_xla_supported_devices())
        else:
            xm.set_replication(device, [])
    store = dist.TCPStore(os.environ.get("MASTER_ADDR", "localhost"),
                          int(os.environ.get("MASTER_PORT", "12355")), runtime.process_count(),
                          runtime.process_index() == 0, timeout)
    yield store, runtime.global_ordinal(), runtime.world_size()


def _mesh_option(pg_options):
    """(the mesh given in pg_options, whether it asks to infer one), as the real one reads them."""
    if not isinstance(pg_options, dict) or "xla_pg_options" not in pg_options:
        return None, False
    mesh = pg_options["xla_pg_options"].get("mesh")
    return mesh, mesh is None and pg_options["xla_pg_options"].get("spmd", False)


_torch_new_group = dist.new_group


def new_xla_process_group(ranks=None, timeout=dist.default_pg_timeout, backend=None, pg_options=None):
    """torch's new_group, then - for an xla group of given ranks - its mesh."""
    mesh, infer = _mesh_option(pg_options)
    group = _torch_new_group(ranks=ranks, timeout=timeout, backend=backend, pg_options=pg_options)
    if not isinstance(group, ProcessGroupXla) or ranks is None:
        return group  # another backend, a rank outside the group, or the whole world
    world = dist.group.WORLD
    if not isinstance(world, ProcessGroupXla):
        raise RuntimeError("xla backend requires the default ProcessGroup to be a ProcessGroupXla")
    ranks = list(ranks)
    if ranks == list(range(world.size())):
        group._mesh = [ranks]
    elif len(ranks) == 1:
        if ranks[0] not in range(world.size()):
            raise ValueError(f"Given ranks is out of range: World size: {world.size()}, ranks: {ranks}")
        group._mesh = [[r] for r in range(world.size())]
    elif 1 < len(ranks) < world.size():
        if infer and not mesh:
            raise NotImplementedError("torch_xla TEST DOUBLE: an inferred mesh (xla_pg_options spmd) is "
                                      "not modelled; pass the mesh")
        group._mesh = mesh if mesh else [ranks]  # without a mesh: this group only, a partial mesh
    else:
        logging.warning(f"Can't infer process group mesh from given ranks \"{ranks}\". The process group "
                        "will use the entire world as its collective comm group.")
    return group


try:
    dist.Backend.register_backend("xla", _create_xla_process_group)
except (ValueError, RuntimeError, AssertionError):
    pass  # registered by an earlier import
importlib.import_module("torch.distributed.rendezvous").register_rendezvous_handler(
    "xla", _xla_rendezvous)
dist.new_group = new_xla_process_group
