"""The native path's Llama layout (docs/architecture.md#native-path): tensor parallel with DTensor
(torch.distributed.tensor.parallel) over mesh["tp"], then FSDP2 (fully_shard) per decoder layer and
at the root over mesh["dp"], as torchtitan parallelizes its Llama.

Tensor parallel: q, k, v, gate and up are ColwiseParallel (their outputs - heads, intermediate
features - split), o and down RowwiseParallel (their inputs split; their outputs reduce-scattered
along the sequence). The norms are SequenceParallel: between blocks the residual stream is split
along the sequence, and each block's input is all-gathered (PrepareModuleInput). The embedding
splits the vocabulary (RowwiseParallel: its rows), and the LM head's output stays split along the
vocabulary for loss_parallel, so the whole vocabulary's logits are never gathered. With the norms
planned too, every parameter is a DTensor on the same tp mesh, which FSDP2 then shards over dp
(one 2-D mesh for all: clip_grad_norm_ sums one kind of norm).

FSDP2 shards each layer's parameters, gradients and AdamW state over dp: a layer's weights are
all-gathered before its forward (and again for its backward), its gradients reduce-scattered and
averaged over dp after its backward. With bf16 the MixedPrecisionPolicy gathers bf16 copies of the
fp32 shards and reduces the gradients in fp32: the optimizer steps fp32 master weights and the
micro-steps' gradients accumulate in fp32, with half the all-gather bytes of fp32.
"""

import contextlib

import torch
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
from torch.distributed.tensor import DTensor, Replicate, Shard
from torch.distributed.tensor.parallel import (ColwiseParallel, PrepareModuleInput, RowwiseParallel,
                                               SequenceParallel, loss_parallel, parallelize_module)


def native_mesh(device, world_size, tp_size):
    """The ("dp", "tp") DeviceMesh: tensor-parallel groups of consecutive ranks, as lm_groups makes
    them, so rank r is data-parallel rank r // tp."""
    return init_device_mesh(device.kind, (world_size // tp_size, tp_size), mesh_dim_names=("dp", "tp"))


def _tensor_parallel(model, tp_mesh):
    parallelize_module(model, tp_mesh, {
        "model.embed_tokens": RowwiseParallel(input_layouts=Replicate(), output_layouts=Shard(1)),
        "model.norm": SequenceParallel(),
        "lm_head": ColwiseParallel(input_layouts=Shard(1), output_layouts=Shard(-1), use_local_output=False),
    })
    for layer in model.model.layers:
        parallelize_module(layer, tp_mesh, {
            "input_layernorm": SequenceParallel(),
            "self_attn": PrepareModuleInput(input_layouts=(Shard(1), None, None),
                                            desired_input_layouts=(Replicate(), None, None)),
            "self_attn.q_proj": ColwiseParallel(),
            "self_attn.k_proj": ColwiseParallel(),
            "self_attn.v_proj": ColwiseParallel(),
            "self_attn.o_proj": RowwiseParallel(output_layouts=Shard(1)),
            "post_attention_layernorm": SequenceParallel(),
            "mlp": PrepareModuleInput(input_layouts=(Shard(1),), desired_input_layouts=(Replicate(),)),
            "mlp.gate_proj": ColwiseParallel(),
            "mlp.up_proj": ColwiseParallel(),
            "mlp.down_proj": RowwiseParallel(output_layouts=Shard(1)),
        })


def parallelize(model, mesh, device, seed, compile_layers=False):
    """`model` (NativeLlamaForCausalLM, built on the meta device) split over mesh["tp"], each decoder
    layer compiled (compile_layers: device.compile_in_place, torchtitan's per-block regions; the
    embedding, head and loss stay eager) and sharded over mesh["dp"]; then this rank's shards
    allocated on the device and set to the initial weights of `seed` (no process holds the whole
    model)."""
    if mesh["tp"].size() > 1:
        _tensor_parallel(model, mesh["tp"])
    bf16 = device.dtype == "bf16"
    policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16 if bf16 else None,
                                  reduce_dtype=torch.float32 if bf16 else None)
    for layer in model.model.layers:
        if compile_layers:
            device.compile_in_place(layer)
        fully_shard(layer, mesh=mesh["dp"], mp_policy=policy)
    fully_shard(model, mesh=mesh["dp"], mp_policy=policy)
    model.to_empty(device=device.torch_device)
    model.init_parameters(seed)
    return model


def loss_context(mesh):
    """Where the loss and its backward run: loss_parallel when the logits are split along the
    vocabulary (tp > 1), else nothing."""
    return loss_parallel() if mesh["tp"].size() > 1 else contextlib.nullcontext()


def whole_value(tensor):
    """A scalar DTensor (the loss under loss_parallel, a norm) as a plain tensor."""
    return tensor.full_tensor() if isinstance(tensor, DTensor) else tensor


def clip_gradients(parameters, max_norm, foreach=None):
    """The global gradient norm over every parameter's shards (DTensors: their norms reduced over
    the mesh, made whole), the gradients scaled down to `max_norm` when above it (0: not clipped)
    as the own path's clip_gradients and torch.nn.utils.clip_grad_norm_ do; foreach: theirs. The
    native path's only clip (pretrain-lm's and NativeDataParallel's)."""
    parameters = [p for p in parameters if p.grad is not None]
    norm = whole_value(torch.nn.utils.get_total_norm([p.grad for p in parameters], foreach=foreach))
    if max_norm:
        torch.nn.utils.clip_grads_with_norm_(parameters, max_norm, norm, foreach=foreach)
    return norm
