"""torch_xla.core.xla_model, the torch-xla 2.9 subset trn_trainer uses (TEST DOUBLE of
https://github.com/pytorch/xla/blob/v2.9.0/torch_xla/core/xla_model.py).

Collectives keep the real signatures and rules: `groups` is a list of replica groups, checked as
XLA checks them (../_replica_groups.py), and a collective reduces or gathers only within the
caller's group (carried by gloo, ../_gloo_carrier.py). all_reduce is a no-op in a world of one;
all_gather with pin_layout (the default) is an all-reduce of zero-padded copies;
reduce_scatter checks the input's shape as XLA's shape inference does (at the call) and its
shard count against the group's size as XLA's verifier does when it compiles, and has no
shortcut in a world of one; collective_broadcast zeroes every replica but the root and
all-reduces; rendezvous is device collectives between graph cuts, not a host barrier.
docs/hardware.md#torch-xla-groups.
"""

import os

import torch
import torch.distributed as dist
import torch.nn.functional as F

from .. import _gloo_carrier, _replica_groups, runtime
from .._state import STATE

REDUCE_SUM = "sum"
REDUCE_MUL = "mul"
REDUCE_AND = "and"
REDUCE_OR = "or"
REDUCE_MIN = "min"
REDUCE_MAX = "max"
_CARRIED_OPS = {REDUCE_SUM: dist.ReduceOp.SUM, REDUCE_MUL: dist.ReduceOp.PRODUCT,
                REDUCE_AND: dist.ReduceOp.BAND, REDUCE_OR: dist.ReduceOp.BOR,
                REDUCE_MIN: dist.ReduceOp.MIN, REDUCE_MAX: dist.ReduceOp.MAX}
_rng_seed = 0


def xla_device(n=None, devkind=None):
    return torch.device("cpu")  # the double's device: its str() is "cpu", the real one's "xla:0"


def xla_device_hw(device):
    return "NEURON" if os.environ.get("PJRT_DEVICE") == "NEURON" else "CPU"


def get_xla_supported_devices(max_devices=None):
    """This process's devices: one, "xla:0"."""
    return ["xla:0"][:max_devices] if max_devices else ["xla:0"]


def set_replication(device, devices):
    """Replicate over `devices` (this process's own, all of them) - then every device of the world
    takes part in collectives and runtime.world_size() counts them - or, with none, over nothing
    (a world of 1). The real one checks as below (xla_replication_devices), then tells the C++
    runtime."""
    def name(d):  # the double's device (the CPU) stands for "xla:0"
        return "xla:0" if d == xla_device() else str(d)

    device = name(device)
    devices = [name(d) for d in devices]
    if devices:
        local = get_xla_supported_devices()
        if len(devices) != len(local):
            raise RuntimeError(f"Cannot replicate if number of devices ({len(devices)}) is different "
                               f"from {len(local)}")
        devices.index(device)  # ValueError when `device` is not among them, as in the real one
        runtime._set_replication_devices(runtime.global_device_count())
    else:
        runtime._set_replication_devices(0)


def mark_step(wait=False, reset_scope=True):
    STATE.cut()


def add_step_closure(closure, args=(), run_async=False):
    STATE.closures.append((closure, args))


def wait_device_ops(devices=()):
    pass


def _my_group(kind, groups, uniform):
    """The caller's replica group of `groups` (parsed), after XLA's verifier's checks."""
    world = runtime.world_size()
    _replica_groups.verify(kind, groups, world, uniform)
    return _replica_groups.group_of(groups, runtime.global_ordinal(), world)


def all_reduce(reduce_type, inputs, scale=1.0, groups=None, pin_layout=True):
    """A list is reduced in place; a tensor gives a new one. Each replica sums (etc.) only with
    the members of its own group."""
    groups = groups or []
    if runtime.world_size() == 1:  # the real one adds no collective to the graph either
        return inputs.clone() if isinstance(inputs, torch.Tensor) else inputs
    groups = _replica_groups.parse(groups)  # the binding's types, then the op when traced,
    if reduce_type not in _CARRIED_OPS:
        raise RuntimeError(f"Unknown AllReduce type: {reduce_type}")
    group = _my_group("all-reduce", groups, uniform=False)  # then the groups when compiled
    STATE.collective("all_reduce", groups, inputs)
    STATE.all_reduce_calls += 1
    tensors = inputs if isinstance(inputs, list) else [inputs.clone()]
    for t in tensors:
        _gloo_carrier.all_reduce(t, _CARRIED_OPS[reduce_type], group, runtime.global_ordinal(),
                                 runtime.world_size())
        if scale != 1.0:
            t.mul_(scale)
    return inputs if isinstance(inputs, list) else tensors[0]


def _all_gather_by_all_reduce(value, dim, groups):
    """Each replica's value placed at its slot of a zero tensor, summed over the group. The
    slot comes from `groups` when given (so an empty list finds no slot: KeyError, as in the
    real one), else from the world."""
    if dim < 0:
        dim += value.dim()
    ordinal = runtime.global_ordinal()
    if groups is None:
        slot, slots = ordinal, runtime.world_size()
    else:
        places = {replica: (i, len(g)) for g in groups for i, replica in enumerate(g)}
        slot, slots = places[ordinal]
    size = value.size(dim)
    padding = [0] * (2 * value.dim())
    last = 2 * (value.dim() - 1 - dim)  # F.pad lists the last dimension first
    padding[last], padding[last + 1] = slot * size, (slots - 1 - slot) * size
    return all_reduce(REDUCE_SUM, F.pad(value, padding), groups=groups)


def all_gather(value, dim=0, groups=None, output=None, pin_layout=True, channel_id=None,
               use_global_device_ids=None):
    """The group's values concatenated along `dim`, in the group's order."""
    if pin_layout and output is None and isinstance(value, torch.Tensor):
        return _all_gather_by_all_reduce(value, dim, groups)
    if not isinstance(value, torch.Tensor) or output is not None:
        raise NotImplementedError("torch_xla TEST DOUBLE: all_gather of a list or into `output` is not "
                                  "modelled (trn_trainer does not call it)")
    if dim < 0:
        dim += value.dim()
    if groups:
        assert all(len(g) == len(groups[0]) for g in groups), \
            "Replica groups must have the same number of replicas/shards."
    group = _my_group("all-gather", _replica_groups.parse(groups), uniform=True)
    STATE.collective("all_gather", groups, value)
    parts = _gloo_carrier.all_gather(value, group, runtime.global_ordinal(), runtime.world_size())
    return torch.cat(parts, dim=dim)


def _ret_check(where, condition, detail=""):
    """What XLA's TF_RET_CHECK reports when `condition` (its text) fails in `where`."""
    return f"RET_CHECK failure ({where}) {condition} {detail}".rstrip()


def _reduce_scatter_shape(value, scatter_dim, shard_count):
    """XLA's ShapeInference::InferReduceScatterShape, which runs when torch-xla makes the node (at
    the call): the result's shape, or the RuntimeError torch-xla raises for its error status.
    torch-xla's traced reduce-scatter hands `scatter_dim` over as given (only its SPMD variant
    makes it canonical), so a negative one fails the first check."""
    where = "xla/service/shape_inference.cc"
    if scatter_dim < 0:
        raise RuntimeError(_ret_check(where, "scatter_dimension >= 0"))
    if shard_count <= 0:
        raise RuntimeError(_ret_check(where, "shard_count > 0"))
    if scatter_dim >= value.dim():
        raise RuntimeError(_ret_check(where, "scatter_dimension < operand_shape->rank()"))
    size = value.size(scatter_dim)
    if size % shard_count:
        raise RuntimeError(f"ReduceScatter operand scatter dimension size {size} must be dividable by "
                           f"shard_count {shard_count}.")
    shape = list(value.shape)
    shape[scatter_dim] = size // shard_count
    return torch.Size(shape)


def reduce_scatter(reduce_type, input, scale, scatter_dim, shard_count, groups=None, output=None,
                   pin_layout=True, channel_id=None, use_global_device_ids=None):
    """The group's reduction of `input`, and of it this replica's shard along `scatter_dim`: the
    i-th of `shard_count` equal pieces to the group's i-th replica; times `scale` when it is not
    1 (in the input's type). Into `output` when given (then returned), else a new tensor. No
    shortcut in a world of one (unlike all_reduce): a collective of one replica is still traced.

    Checked as the real one is: the binding's types, the reduce type and XLA's shape inference
    at the call (RuntimeError); the replica groups - of one size, naming every replica - and
    `shard_count` equal to the group's size (or the group of one) by XLA's verifier when the graph
    compiles, here at the call (ValueError). docs/hardware.md#torch-xla-groups."""
    if isinstance(input, list) and all(isinstance(v, torch.Tensor) for v in input):
        raise NotImplementedError("torch_xla TEST DOUBLE: xm.reduce_scatter of a list of tensors (a "
                                  "coalesced reduce-scatter) is not modelled (trn_trainer does not call it)")
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"`input` needs to be a Tensor or a list of Tensors, but given {type(input)}.")
    if channel_id is not None or use_global_device_ids is not None:
        raise NotImplementedError("torch_xla TEST DOUBLE: xm.reduce_scatter with channel_id or "
                                  "use_global_device_ids is not modelled (trn_trainer does not call it)")
    groups = _replica_groups.parse(groups or [])  # the binding's types,
    if reduce_type not in _CARRIED_OPS:  # the reduce type,
        raise RuntimeError(f"Unknown AllReduce type: {reduce_type}")
    shape = _reduce_scatter_shape(input, scatter_dim, shard_count)  # the node's shape,
    group = _my_group("reduce-scatter", groups, uniform=True)  # then the verifier's checks
    if len(group) != 1 and shard_count != len(group):
        raise ValueError(_ret_check("xla/service/hlo_verifier.cc", "subgroup_size == 1 || shard_count == "
                                    "subgroup_size", f"shard_count = {shard_count}, subgroup_size = "
                                    f"{len(group)}, {_replica_groups._text('reduce-scatter', groups)}"))
    if shard_count != len(group):
        raise NotImplementedError(f"torch_xla TEST DOUBLE: a reduce-scatter of {shard_count} shards over a "
                                  "group of one replica is not modelled (trn_trainer does not call it)")
    if output is not None and (output.shape != shape or output.dtype != input.dtype):
        raise NotImplementedError(f"torch_xla TEST DOUBLE: xm.reduce_scatter into an output of "
                                  f"{tuple(output.shape)} {output.dtype} for a result of {tuple(shape)} "
                                  f"{input.dtype} is not modelled (the real one gives the output the "
                                  "result's value, shape and type unchecked)")
    STATE.collective("reduce_scatter", groups, input,
                     f"{reduce_type} dim={scatter_dim} shards={shard_count} scale={float(scale)} "
                     f"pin_layout={bool(pin_layout)}")
    with torch.no_grad():
        result = _gloo_carrier.reduce_scatter(input.detach(), _CARRIED_OPS[reduce_type], group,
                                              runtime.global_ordinal(), runtime.world_size(), scatter_dim)
        if scale != 1.0:
            result.mul_(torch.tensor(scale, dtype=result.dtype))  # XLA: scale * in the input's type
        if output is not None:
            output.copy_(result)
            return output
    return result.requires_grad_(input.requires_grad)  # a new leaf, as the binding makes it


def collective_broadcast(tensors, root_ordinal=0, groups=None, pin_layout=True):
    """In place: every replica but `root_ordinal` zeroes its tensors (by a multiply, so every
    replica runs the same graph), then each group sums."""
    with torch.no_grad():
        for t in tensors:
            t.mul_(torch.tensor(1 if runtime.global_ordinal() == root_ordinal else 0, dtype=t.dtype))
    all_reduce(REDUCE_SUM, tensors, groups=groups, pin_layout=pin_layout)


def xla_rendezvous(payload=b"", ordinals=None, tag=None):
    """Every replica's payload, exchanged by two gathers on the device between graph cuts."""
    if ordinals and len(ordinals) != runtime.global_device_count():
        raise ValueError("Only global rendezvous is supported")
    if not isinstance(payload, bytes):
        raise TypeError(f"`payload` must be bytes, not {type(payload)}")
    mark_step()
    device = xla_device()
    data = torch.tensor(list(payload), dtype=torch.uint8)
    size = torch.tensor([data.shape[0]], dtype=torch.int, device=device)
    sizes = all_gather(size)
    longest = torch.max(sizes)
    mark_step()
    lengths, longest = sizes.cpu().tolist(), int(longest.item())  # read after the graph ran
    if longest < 1:
        return [b"" for _ in lengths]
    padded = F.pad(data, (0, longest - data.shape[0])).to(device)
    parts = torch.split(all_gather(padded), longest)
    payloads = [part[:n] for part, n in zip(parts, lengths)]
    mark_step()
    return [bytes(p.cpu().tolist()) for p in payloads]


def rendezvous(tag, payload=b"", replicas=()):
    return xla_rendezvous(payload, list(replicas) or None, tag=tag)


def set_rng_state(seed, device=None):
    global _rng_seed
    _rng_seed = int(seed)


def get_rng_state(device=None):
    return _rng_seed
