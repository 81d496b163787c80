"""Tensor parallelism over one process group, as Megatron-LM and neuronx-distributed split a
transformer block (docs/llama.md#tensor-parallel).

A column-parallel linear holds a slice of the output features and a row-parallel one a slice of
the input features. A block runs column then row, so its activations meet in one all-reduce in
the forward pass and one in the backward pass. Megatron calls these operators f and g:
`copy_to` (forward: identity, backward: all-reduce) and `reduce_from` (forward: all-reduce,
backward: identity). The vocabulary is split across ranks too: the embedding looks up only
its own rows, and the cross-entropy works on the rank's slice of the logits, so the full
vocabulary's logits are never gathered.

Sequence parallelism (Korthikanti et al., 2022; neuronx-distributed's sequence_parallel_enabled)
splits the rest of a layer - the norms and the residual stream - along the sequence: between
blocks each rank holds [batch, seq/tp, hidden]. A block then starts with `gather_from_sequence`
(forward: all-gather along the sequence; backward: reduce-scatter, which also sums the ranks'
gradients, as copy_to did) and ends with `reduce_scatter_to_sequence` (forward: reduce-scatter
instead of the all-reduce; backward: all-gather): the same bytes as the two all-reduces, and the
norms' and residuals' activations divided by tp. A norm's weight then sees only the rank's
slice of the sequence, so its gradient is summed over the group (`sum_sequence_parallel_gradients`).

With one rank every operator is the identity, so tp 1 runs the plain model.
"""

import dataclasses

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

from .collectives import all_gather, reduce_scatter


@dataclasses.dataclass(frozen=True)
class TensorParallel:
    """The tensor-parallel group and this rank's place in it (size 1: no group)."""

    size: int = 1
    rank: int = 0
    group: object = None

    def all_reduce(self, tensor, op=dist.ReduceOp.SUM):
        if self.size > 1:
            dist.all_reduce(tensor, op=op, group=self.group)
        return tensor

    def shard(self, tensor, dim):
        """This rank's equal slice of `tensor` along `dim` (checked to divide)."""
        if tensor.shape[dim] % self.size:
            raise ValueError(f"dimension {dim} of size {tensor.shape[dim]} does not split into "
                             f"{self.size} equal tensor-parallel slices")
        return tensor.chunk(self.size, dim=dim)[self.rank].contiguous()

    def gather_sequence(self, x):
        """Every rank's [batch, seq/tp, ...] concatenated along the sequence, in rank order."""
        part = x.transpose(0, 1).contiguous()  # the collectives work along dimension 0
        whole = part.new_empty((part.shape[0] * self.size,) + tuple(part.shape[1:]))
        all_gather(whole, part, self.group)
        return whole.transpose(0, 1)

    def reduce_scatter_sequence(self, x):
        """This rank's slice [batch, seq/tp, ...] of the sum of x [batch, seq, ...] over the group."""
        whole = x.transpose(0, 1).contiguous()
        part = whole.new_empty((whole.shape[0] // self.size,) + tuple(whole.shape[1:]))
        reduce_scatter(part, whole, self.group)
        return part.transpose(0, 1)

    def gather(self, tensor, dim):
        """The slices of every rank, concatenated along `dim` (no gradient)."""
        if self.size == 1:
            return tensor
        parts = [torch.empty_like(tensor) for _ in range(self.size)]
        dist.all_gather(parts, tensor.contiguous(), group=self.group)
        return torch.cat(parts, dim=dim)


class _CopyTo(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, tp):
        ctx.tp = tp
        return x

    @staticmethod
    def backward(ctx, grad):
        return ctx.tp.all_reduce(grad.contiguous()), None


class _ReduceFrom(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, tp):
        return tp.all_reduce(x.contiguous())

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class _GatherFromSequence(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, tp):
        ctx.tp = tp
        return tp.gather_sequence(x)

    @staticmethod
    def backward(ctx, grad):
        return ctx.tp.reduce_scatter_sequence(grad), None


class _ReduceScatterToSequence(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, tp):
        ctx.tp = tp
        return tp.reduce_scatter_sequence(x)

    @staticmethod
    def backward(ctx, grad):
        return ctx.tp.gather_sequence(grad), None


def copy_to(x, tp):
    return x if tp.size == 1 else _CopyTo.apply(x, tp)


def reduce_from(x, tp):
    return x if tp.size == 1 else _ReduceFrom.apply(x, tp)


def gather_from_sequence(x, tp):
    return x if tp.size == 1 else _GatherFromSequence.apply(x, tp)


def reduce_scatter_to_sequence(x, tp):
    return x if tp.size == 1 else _ReduceScatterToSequence.apply(x, tp)


def into_block(x, tp, sequence_parallel):
    """A block's input, replicated over the group: gathered from the sequence slices, or (its
    gradient all-reduced) as it is."""
    return gather_from_sequence(x, tp) if sequence_parallel else copy_to(x, tp)


def out_of_block(x, tp, sequence_parallel):
    """A block's partial output summed over the group: into this rank's sequence slice, or whole."""
    return reduce_scatter_to_sequence(x, tp) if sequence_parallel else reduce_from(x, tp)


def sum_sequence_parallel_gradients(grads, tp):
    """Under sequence parallelism, `grads` - of the parameters no rank splits (the norms'), each
    computed from the rank's sequence slice - summed over the group in place: one all-reduce."""
    grads = [g for g in grads if g is not None]
    if tp.size == 1 or not grads:
        return
    flat = torch.cat([g.reshape(-1) for g in grads])
    tp.all_reduce(flat)
    offset = 0
    for g in grads:
        g.copy_(flat[offset:offset + g.numel()].view_as(g))
        offset += g.numel()


def _split_features(features, what, tp):
    """This rank's share of `features` (`what`: input or output), checked to divide."""
    if features % tp.size:
        raise ValueError(f"{features} {what} features do not split over tensor parallel {tp.size}")
    return features // tp.size


class ColumnParallelLinear(nn.Module):
    """y[..., slice] = x W[slice]^T: this rank's slice of the output features (no bias: Llama).
    forward(x, copied=True) takes an input already through copy_to: layers that share an input
    (q, k and v; gate and up) all-reduce its gradient once, not once each, as a fused
    projection would."""

    def __init__(self, in_features, out_features, tp):
        super().__init__()
        self.tp = tp
        self.weight = nn.Parameter(torch.empty(_split_features(out_features, "output", tp), in_features))

    def forward(self, x, copied=False):
        return F.linear(x if copied else copy_to(x, self.tp), self.weight)


class RowParallelLinear(nn.Module):
    """y = sum over ranks of x[..., slice] W[:, slice]^T: the input is already the rank's slice."""

    def __init__(self, in_features, out_features, tp):
        super().__init__()
        self.tp = tp
        self.weight = nn.Parameter(torch.empty(out_features, _split_features(in_features, "input", tp)))

    def forward(self, x, sequence_parallel=False):
        return out_of_block(F.linear(x, self.weight), self.tp, sequence_parallel)


class VocabParallelEmbedding(nn.Module):
    """Each rank holds rows [rank * V/tp, (rank + 1) * V/tp) of the table; a token's vector comes
    from the one rank that holds it (the others add zeros)."""

    def __init__(self, vocab_size, hidden_size, tp):
        super().__init__()
        if vocab_size % tp.size:
            raise ValueError(f"vocabulary {vocab_size} does not split over tensor parallel {tp.size}")
        self.tp = tp
        self.rows = vocab_size // tp.size
        self.first = tp.rank * self.rows
        self.weight = nn.Parameter(torch.empty(self.rows, hidden_size))

    def forward(self, ids, sequence_parallel=False):
        if self.tp.size == 1:
            return F.embedding(ids, self.weight)
        local = ids - self.first
        outside = (local < 0) | (local >= self.rows)
        vectors = F.embedding(local.masked_fill(outside, 0), self.weight)
        return out_of_block(vectors.masked_fill(outside.unsqueeze(-1), 0.0), self.tp, sequence_parallel)


class _VocabParallelCrossEntropy(torch.autograd.Function):
    """Per-token cross-entropy from this rank's slice of the logits [N, V/tp] (Megatron's
    vocab-parallel cross-entropy): the maximum, the sum of exponentials and the target's logit
    are all-reduced over the group; the gradient is softmax - one-hot on the rank's slice."""

    @staticmethod
    def forward(ctx, logits, target, tp, first):
        logits = logits.float()
        top = logits.max(dim=-1).values
        tp.all_reduce(top, op=dist.ReduceOp.MAX)
        shifted = logits - top.unsqueeze(-1)
        local = target - first
        here = (local >= 0) & (local < logits.shape[-1])
        index = local.clamp(0, logits.shape[-1] - 1).unsqueeze(-1)
        picked = shifted.gather(-1, index).squeeze(-1).masked_fill(~here, 0.0)
        tp.all_reduce(picked)
        exp = shifted.exp()
        total = exp.sum(dim=-1)
        tp.all_reduce(total)
        ctx.save_for_backward(exp.div_(total.unsqueeze(-1)), index, here)
        return total.log() - picked

    @staticmethod
    def backward(ctx, grad):
        softmax, index, here = ctx.saved_tensors
        grad_logits = softmax.clone()
        grad_logits.scatter_add_(-1, index, -here.to(softmax.dtype).unsqueeze(-1))
        return grad_logits * grad.unsqueeze(-1), None, None, None


def vocab_parallel_cross_entropy(logits, target, tp, first, ignore_index=-100):
    """Mean cross-entropy over the tokens whose target is not `ignore_index`; `logits` holds
    vocabulary entries [first, first + logits.shape[-1]) of every token."""
    keep = target != ignore_index
    safe = target.masked_fill(~keep, 0)
    if tp.size == 1:
        losses = F.cross_entropy(logits.float(), safe, reduction="none")
    else:
        losses = _VocabParallelCrossEntropy.apply(logits, safe, tp, first)
    count = keep.sum().clamp(min=1)
    return (losses * keep).sum() / count
