"""PyTorch's own data parallelism for BERT on the native path (`pretrain --native`,
docs/architecture.md#native-bert).

`--data-parallel fsdp` (the default): FSDP2, `fully_shard` on every encoder layer and then on the
root (embeddings, pooler and heads), over a one-dimensional ("dp",) device mesh: each rank holds
1/dp of every parameter, its gradient and its optimizer moments; a layer's parameters are
all-gathered for its forward and backward and its gradients reduce-scattered after. `ddp`:
DistributedDataParallel, whole replicas and bucketed all-reduces overlapping the backward. Either
way the gradients come from the library's own reduction in the backward, not from the trainer.

The loss the step backpropagates is already normalised by the GLOBAL batch (pretrain_step), so
the reduction must SUM the ranks' gradients, not average them: FSDP2 is told a divide factor of 1
with sum-only collectives (every backend, gloo included, has SUM), DDP gets a comm hook that
all-reduces without dividing. With one process there is nothing to reduce and the model stays
unwrapped.

bf16 (`--dtype bf16` on an accelerator): FSDP2's MixedPrecisionPolicy - the sharded fp32
parameters are the optimizer's master weights, all-gathered as bf16 for the compute (half the
bytes), the gradients reduce-scattered in fp32 - so no autocast; DDP keeps fp32 parameters and
computes under the device's bf16 autocast (its gradients, and so the all-reduce, are fp32).

Checkpoints hold whole tensors in the own path's layout (torch.distributed.checkpoint.state_dict
with full_state_dict; the optimizer's state keyed by parameter index as Optimizer.state_dict
keys it), so the engine shares them among the ranks as for the own path, and a checkpoint moves
between FSDP2, DDP, the own path and any data-parallel size.
"""

import contextlib
import warnings

import torch
import torch.distributed as dist
from torch.distributed.checkpoint.state_dict import (StateDictOptions, get_model_state_dict,
                                                     get_optimizer_state_dict, set_model_state_dict,
                                                     set_optimizer_state_dict)
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import FSDPModule, MixedPrecisionPolicy, fully_shard
from torch.distributed.tensor import DTensor
from torch.nn.parallel import DistributedDataParallel

from .native_llama import clip_gradients

_WHOLE = StateDictOptions(full_state_dict=True)


def _sum_gradients_hook(group, bucket):
    """DDP comm hook: the bucket's gradients summed over the ranks (DDP's default averages)."""
    work = dist.all_reduce(bucket.buffer(), group=group, async_op=True)
    return work.get_future().then(lambda done: done.value()[0])


class NativeDataParallel:
    """`model` (the trainer's BertForPreTraining, on `device`) wrapped for data
    parallelism `mode` (fsdp or ddp) over every rank; compile_layers: each encoder layer compiled
    in place (device.compile_in_place: static shapes, the parameter names unchanged)."""

    def __init__(self, model, device, mode, compile_layers=False):
        self.device, self.mode = device, mode or "fsdp"
        self.inner = model  # the unwrapped module: its parameter names are the checkpoint's
        self.distributed = device.env.distributed
        layers = model.bert.encoder.layer
        if compile_layers:
            for layer in layers:  # in place: the parameter names stay (FSDP2, checkpoints)
                device.compile_in_place(layer)
        self.model = model
        if not self.distributed:
            return
        if self.mode == "fsdp":
            mesh = init_device_mesh(device.torch_device.type, (device.env.world_size,),
                                    mesh_dim_names=("dp",))
            policy = MixedPrecisionPolicy()
            if device.dtype == "bf16":
                policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
            # FSDP2 warns that the root returns a view (a 3-D Linear's output), on which an in-place
            # op would skip its pre-backward hook: the step reads the logits out of place only.
            warnings.filterwarnings("ignore", message=r"FSDP2-wrapped module \(.*\) returned a view tensor")
            for layer in layers:
                fully_shard(layer, mesh=mesh, mp_policy=policy)
            fully_shard(model, mesh=mesh, mp_policy=policy)
            for module in model.modules():
                if isinstance(module, FSDPModule):
                    module.set_gradient_divide_factor(1.0)
                    module.set_force_sum_reduction_for_comms(True)
        else:
            ids = None if device.torch_device.type == "cpu" else [device.torch_device]
            # Its buffers (dropout sites' hashes) are the same constants on every rank: no
            # broadcast before each forward.
            self.model = DistributedDataParallel(model, device_ids=ids, broadcast_buffers=False)
            self.model.register_comm_hook(None, _sum_gradients_hook)

    def describe(self):
        if not self.distributed:
            return "native, one process (nothing to reduce)"
        return f"native {self.mode.upper()} over dp {self.device.env.world_size}"

    # -- the step ---------------------------------------------------------------------------
    @contextlib.contextmanager
    def micro_step(self, last):
        """Forward and backward of one micro-step: the gradients are reduced only in the last
        micro-step's backward, the others accumulate locally."""
        if self.distributed and self.mode == "fsdp":
            self.model.set_requires_gradient_sync(last)
        sync = contextlib.nullcontext()
        if self.distributed and self.mode == "ddp" and not last:
            sync = self.model.no_sync()
        with sync:
            yield

    def autocast(self):
        """bf16 compute: FSDP2's policy casts the parameters itself, anything else autocasts."""
        if self.distributed and self.mode == "fsdp":
            return contextlib.nullcontext()
        return self.device.autocast()

    def reduce_losses(self, scalars):
        """The step's loss sums (1-D) summed over the ranks: the gradients are already reduced."""
        local = torch.stack([s.reshape(()) for s in scalars])
        if not self.distributed:
            return local
        dist.all_reduce(local, op=dist.ReduceOp.SUM)
        return local

    def clip_gradients(self, params, max_norm):
        """The global gradient norm (over every shard: a DTensor's norm is made whole) and the
        gradients scaled down to `max_norm` (above 0: pretrain_step clips only then) when above it;
        returns the norm."""
        return clip_gradients(params, max_norm)

    @staticmethod
    def local_shards(params):
        """Each parameter's part on this rank (the whole tensor where it is not sharded), those of
        no element left out (FSDP2 gives a tensor of fewer rows than ranks to some ranks only)."""
        local = [p.to_local() if isinstance(p, DTensor) else p for p in params]
        return [t for t in local if t.numel()]

    def health_over_ranks(self, health):
        """divergence.weights_health's [finite, largest |weight|] of this rank's shards made the
        whole model's, the same on every rank."""
        if not (self.distributed and self.mode == "fsdp"):
            return health
        worst = torch.stack([1 - health[0], health[1]])  # [not finite, largest], maximised
        dist.all_reduce(worst, op=dist.ReduceOp.MAX)
        return torch.stack([1 - worst[0], worst[1]])

    # -- checkpoints ------------------------------------------------------------------------
    def model_state(self):
        """Every weight whole, under its unwrapped name (every rank takes part)."""
        return get_model_state_dict(self.inner, options=_WHOLE)

    def load_model_state(self, state):
        set_model_state_dict(self.inner, state, options=_WHOLE)

    def _names(self, optimizer):
        """The parameter names of the optimizer's groups, in its order (Optimizer.state_dict's
        indices are these positions)."""
        name_of = {id(p): name for name, p in self.inner.named_parameters()}
        return [name_of[id(p)] for group in optimizer.param_groups for p in group["params"]]

    def optimizer_state(self, optimizer):
        """The optimizer's state with whole tensors, keyed by parameter index as
        Optimizer.state_dict keys it (every rank takes part)."""
        by_name = get_optimizer_state_dict(self.inner, optimizer, options=_WHOLE)
        index = {name: i for i, name in enumerate(self._names(optimizer))}
        groups = [dict(g, params=[index[name] for name in g["params"]]) for g in by_name["param_groups"]]
        return {"state": {index[name]: s for name, s in by_name["state"].items()}, "param_groups": groups}

    def load_optimizer_state(self, optimizer, state):
        """`state` as optimizer_state returns it (or the own path's Optimizer.state_dict)."""
        names = self._names(optimizer)
        groups = [dict(g, params=[names[i] for i in g["params"]]) for g in state["param_groups"]]
        by_name = {"state": {names[int(i)]: s for i, s in state["state"].items()}, "param_groups": groups}
        set_optimizer_state_dict(self.inner, optimizer, by_name, options=_WHOLE)
