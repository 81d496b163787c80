"""pretrain-lm's optimizer step (docs/llama.md#training): AdamW (sharded over the data-parallel
group with ZeRO-1), the gradients averaged over the data-parallel group and clipped by their
global norm. Everything stays on the device: no host read in the middle of the step, which on
XLA would cut the traced graph."""

import torch
import torch.distributed as dist

from .llama_shards import split_dim
from .zero1 import Zero1AdamW


def build_optimizer(named_params, args, groups):
    """AdamW over `named_params` (the model's, or their fp32 master copies), no weight decay on
    the norms; sharded over the data-parallel group (parallel/zero1.py) with --zero1 and more
    than one data-parallel rank."""
    decay = [p for n, p in named_params if not n.endswith("norm.weight")]
    no_decay = [p for n, p in named_params if n.endswith("norm.weight")]
    options = dict(lr=args.lr, betas=(0.9, 0.95), eps=1e-8)
    if args.zero1 and groups.dp_size > 1:
        return Zero1AdamW(named_params, weight_decay=args.weight_decay, groups=groups, **options)
    return torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                              {"params": no_decay, "weight_decay": 0.0}], **options)


def average_over_data_parallel(tensors, groups):
    """Each of `tensors` (gradients, the loss sum) replaced by its mean over the data-parallel
    group: one collective over one flat buffer."""
    if groups.dp_size == 1:
        return
    flat = torch.cat([t.reshape(-1).float() for t in tensors])
    dist.all_reduce(flat, group=groups.dp_group)
    flat.div_(groups.dp_size)
    offset = 0
    for t in tensors:
        t.copy_(flat[offset:offset + t.numel()].view_as(t))
        offset += t.numel()


def clip_gradients(named_grads, tp, max_norm):
    """The global norm of the (parameter name, gradient) pairs over every rank's shard (a tensor;
    the tensor-parallel shards' squares summed over the group, the whole tensors' counted once),
    the gradients scaled down to `max_norm` (0: not clipped) as torch.nn.utils.clip_grad_norm_
    does."""
    first = named_grads[0][1]
    sharded = torch.zeros((), device=first.device)
    whole = torch.zeros((), device=first.device)
    for name, grad in named_grads:
        square = grad.float().pow(2).sum()
        if split_dim(name) is None:
            whole += square
        else:
            sharded += square
    norm = (tp.all_reduce(sharded) + whole).sqrt()
    if max_norm:
        scale = (max_norm / (norm + 1e-6)).clamp(max=1.0)
        for _, grad in named_grads:
            grad.mul_(scale.to(grad.dtype))
    return norm
