"""A Llama causal language model with the module and parameter names of Hugging Face's
LlamaForCausalLM, so a state_dict moves between the two unchanged (docs/llama.md).

RMSNorm, rotary position embeddings (Hugging Face's rotate-half convention), grouped-query
attention and a SwiGLU MLP. Every linear layer and the embedding are tensor-parallel
(parallel/tensor_parallel.py): the query, key and value projections and the MLP's gate and up
projections split their outputs (heads, intermediate features) across the group, the output
and down projections their inputs, the embedding and the LM head the vocabulary. A rank's
parameters are its shard of the Hugging Face tensors (parallel/llama_shards.py splits and merges them).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

from ..parallel.llama_shards import split_dim
from ..parallel.tensor_parallel import (ColumnParallelLinear, RowParallelLinear, TensorParallel,
                                        VocabParallelEmbedding, gather_from_sequence, into_block,
                                        vocab_parallel_cross_entropy)

_HAS_SDPA = hasattr(F, "scaled_dot_product_attention")


class LlamaRMSNorm(nn.Module):
    def __init__(self, hidden_size, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        x = x.float()
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dtype)


def rotary_tables(config, seq_len, device):
    """cos and sin [seq_len, head_dim] of the rotary embedding, in fp32."""
    dim = config.head_dim
    inv_freq = 1.0 / (config.rope_theta ** (torch.arange(0, dim, 2, device=device).float() / dim))
    angles = torch.outer(torch.arange(seq_len, device=device).float(), inv_freq)
    both = torch.cat((angles, angles), dim=-1)
    return both.cos(), both.sin()


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rotary(x, cos, sin):
    """x [batch, heads, seq, head_dim] rotated by position (Hugging Face's convention)."""
    return (x * cos.to(x.dtype)) + (rotate_half(x) * sin.to(x.dtype))


def core_attention(q, k, v):
    """softmax(q k^T / sqrt(head_dim), causal) v for q, k, v [batch, heads, seq, head_dim]: the
    part of a layer whose activations grow with seq^2 ([batch, heads, seq, seq] scores and
    probabilities where attention is computed as written, as torch-xla does)."""
    if _HAS_SDPA:
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    s = q.shape[-2]  # torch < 2.0
    scores = (q @ k.transpose(-1, -2)) / q.shape[-1] ** 0.5
    future = torch.ones(s, s, dtype=torch.bool, device=q.device).triu(1)
    return scores.masked_fill(future, float("-inf")).softmax(-1) @ v


def initial_tensor(name, index, shape, config, seed):
    """The whole initial value of parameter `name`, the index-th of model.named_parameters():
    Normal(0, initializer_range) weights and unit norms, as Hugging Face initializes, each drawn
    from a generator seeded by `seed` and its place. Every layout of the own path, and the
    native path's model (models/llama_native.py: the same names in the same order), starts from
    these weights."""
    if name.endswith("norm.weight"):
        return torch.ones(shape)
    generator = torch.Generator().manual_seed(seed * 100003 + index)
    return torch.randn(shape, generator=generator) * config.initializer_range


def init_parameters(model, config, seed, tp):
    """Each parameter's initial_tensor, of which a rank keeps its tensor-parallel slice."""
    for index, (name, p) in enumerate(model.named_parameters()):
        dim = split_dim(name)
        shape = list(p.shape)
        if dim is not None:
            shape[dim] *= tp.size
        full = initial_tensor(name, index, shape, config, seed)
        with torch.no_grad():
            p.copy_(full if dim is None else tp.shard(full, dim))


class LlamaAttention(nn.Module):
    """recompute: None, or a checkpoint function (Device.checkpoint) the core attention runs
    under: selective activation checkpointing keeps its inputs, not its seq^2 activations, and
    runs it again in the backward (Korthikanti et al., "Reducing Activation Recomputation in
    Large Transformer Models", 2022; docs/llama.md#memory)."""

    def __init__(self, config, tp, recompute=None, sequence_parallel=False):
        super().__init__()
        self.recompute = recompute
        self.sequence_parallel = sequence_parallel
        c = config
        self.heads = c.num_attention_heads // tp.size  # this rank's query heads
        self.kv_heads = c.num_key_value_heads // tp.size
        self.head_dim = c.head_dim
        self.q_proj = ColumnParallelLinear(c.hidden_size, c.num_attention_heads * c.head_dim, tp)
        self.k_proj = ColumnParallelLinear(c.hidden_size, c.num_key_value_heads * c.head_dim, tp)
        self.v_proj = ColumnParallelLinear(c.hidden_size, c.num_key_value_heads * c.head_dim, tp)
        self.o_proj = RowParallelLinear(c.num_attention_heads * c.head_dim, c.hidden_size, tp)

    def forward(self, x, cos, sin):
        # One gradient all-reduce (or reduce-scatter) for q, k and v.
        x = into_block(x, self.q_proj.tp, self.sequence_parallel)
        b, s, _ = x.shape
        q = self.q_proj(x, copied=True).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x, copied=True).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x, copied=True).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        if self.kv_heads != self.heads:  # grouped-query attention: each kv head serves a group
            k = k.repeat_interleave(self.heads // self.kv_heads, dim=1)
            v = v.repeat_interleave(self.heads // self.kv_heads, dim=1)
        out = self.recompute(core_attention, q, k, v) if self.recompute else core_attention(q, k, v)
        return self.o_proj(out.transpose(1, 2).reshape(b, s, self.heads * self.head_dim),
                           self.sequence_parallel)


class LlamaMLP(nn.Module):
    def __init__(self, config, tp, sequence_parallel=False):
        super().__init__()
        self.sequence_parallel = sequence_parallel
        c = config
        self.gate_proj = ColumnParallelLinear(c.hidden_size, c.intermediate_size, tp)
        self.up_proj = ColumnParallelLinear(c.hidden_size, c.intermediate_size, tp)
        self.down_proj = RowParallelLinear(c.intermediate_size, c.hidden_size, tp)

    def forward(self, x):
        x = into_block(x, self.gate_proj.tp, self.sequence_parallel)  # one for gate and up
        return self.down_proj(F.silu(self.gate_proj(x, copied=True)) * self.up_proj(x, copied=True),
                              self.sequence_parallel)


class LlamaDecoderLayer(nn.Module):
    def __init__(self, config, tp, recompute=None, sequence_parallel=False):
        super().__init__()
        self.self_attn = LlamaAttention(config, tp, recompute, sequence_parallel)
        self.mlp = LlamaMLP(config, tp, sequence_parallel)
        self.input_layernorm = LlamaRMSNorm(config.hidden_size, config.rms_norm_eps)
        self.post_attention_layernorm = LlamaRMSNorm(config.hidden_size, config.rms_norm_eps)

    def forward(self, x, cos, sin):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin)
        return x + self.mlp(self.post_attention_layernorm(x))


class LlamaModel(nn.Module):
    def __init__(self, config, tp, recompute=None, sequence_parallel=False):
        super().__init__()
        self.embed_tokens = VocabParallelEmbedding(config.vocab_size, config.hidden_size, tp)
        self.layers = nn.ModuleList(LlamaDecoderLayer(config, tp, recompute, sequence_parallel)
                                    for _ in range(config.num_hidden_layers))
        self.norm = LlamaRMSNorm(config.hidden_size, config.rms_norm_eps)


class LlamaForCausalLM(nn.Module):
    """forward(input_ids, labels) -> mean next-token cross-entropy over labels != -100; labels
    are the input ids (shifted inside, as Hugging Face does). recompute: LlamaAttention's.
    sequence_parallel: the residual stream and the norms split along the sequence between
    blocks (parallel/tensor_parallel.py; the sequence length must split over tp)."""

    def __init__(self, config, tp=None, seed=0, recompute=None, sequence_parallel=False):
        super().__init__()
        self.tp = tp or TensorParallel()
        self.config = config.check(self.tp.size)
        self.sequence_parallel = sequence_parallel and self.tp.size > 1
        self.model = LlamaModel(config, self.tp, recompute, self.sequence_parallel)
        self.lm_head = ColumnParallelLinear(config.hidden_size, config.vocab_size, self.tp)
        self.init_parameters(seed)

    def init_parameters(self, seed):
        init_parameters(self, self.config, seed, self.tp)

    def logits(self, input_ids):
        """This rank's slice of the vocabulary's logits [batch, seq, vocab / tp]."""
        if self.sequence_parallel and input_ids.shape[1] % self.tp.size:
            raise ValueError(f"sequence length {input_ids.shape[1]} does not split over tensor "
                             f"parallel {self.tp.size}")
        x = self.model.embed_tokens(input_ids, self.sequence_parallel)
        cos, sin = rotary_tables(self.config, input_ids.shape[1], input_ids.device)
        for layer in self.model.layers:
            x = layer(x, cos, sin)
        x = self.model.norm(x)
        if self.sequence_parallel:  # the head's input whole; its gradient reduce-scattered back
            return self.lm_head(gather_from_sequence(x, self.tp), copied=True)
        return self.lm_head(x)

    def forward(self, input_ids, labels):
        logits = self.logits(input_ids)[:, :-1]
        target = labels[:, 1:]
        first = self.tp.rank * (self.config.vocab_size // self.tp.size)
        return vocab_parallel_cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1),
                                            self.tp, first)
