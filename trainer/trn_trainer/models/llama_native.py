"""The Llama of the native path (`pretrain-lm --native`, docs/architecture.md#native-path): plain
nn.Linear and nn.Embedding layers with Hugging Face's names, built on the meta device, which
parallel/native_llama.py then splits with DTensor (tensor parallel) and shards with FSDP2 before
each rank allocates and initializes its shards.

The layers hold no process group: which rank holds which slice is the DTensor plan's, so one
forward serves every layout. After the plan a column-parallel projection returns this rank's
heads (or intermediate features), which is why the views below take the head count from the
tensor (-1), not the configuration. The norms, the rotary embedding and the attention core are
models/llama.py's, as are the initial weights (the same names in the same order).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.tensor import DTensor, distribute_tensor

from .llama import LlamaRMSNorm, apply_rotary, core_attention, initial_tensor, rotary_tables

IGNORE_INDEX = -100  # the label of a position with no next token (cross_entropy's default)


class NativeAttention(nn.Module):
    """recompute: None or Device.checkpoint, as LlamaAttention's."""

    def __init__(self, config, recompute=None):
        super().__init__()
        c = config
        self.recompute = recompute
        self.head_dim = c.head_dim
        self.q_proj = nn.Linear(c.hidden_size, c.num_attention_heads * c.head_dim, bias=False)
        self.k_proj = nn.Linear(c.hidden_size, c.num_key_value_heads * c.head_dim, bias=False)
        self.v_proj = nn.Linear(c.hidden_size, c.num_key_value_heads * c.head_dim, bias=False)
        self.o_proj = nn.Linear(c.num_attention_heads * c.head_dim, c.hidden_size, bias=False)

    def forward(self, x, cos, sin):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, -1, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, s, -1, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, s, -1, self.head_dim).transpose(1, 2)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        if k.shape[1] != q.shape[1]:  # grouped-query attention: each kv head serves a group
            k = k.repeat_interleave(q.shape[1] // k.shape[1], dim=1)
            v = v.repeat_interleave(q.shape[1] // v.shape[1], dim=1)
        out = self.recompute(core_attention, q, k, v) if self.recompute else core_attention(q, k, v)
        return self.o_proj(out.transpose(1, 2).reshape(b, s, -1))


class NativeMLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        c = config
        self.gate_proj = nn.Linear(c.hidden_size, c.intermediate_size, bias=False)
        self.up_proj = nn.Linear(c.hidden_size, c.intermediate_size, bias=False)
        self.down_proj = nn.Linear(c.intermediate_size, c.hidden_size, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class NativeDecoderLayer(nn.Module):
    def __init__(self, config, recompute=None):
        super().__init__()
        self.self_attn = NativeAttention(config, recompute)
        self.mlp = NativeMLP(config)
        self.input_layernorm = LlamaRMSNorm(config.hidden_size, config.rms_norm_eps)
        self.post_attention_layernorm = LlamaRMSNorm(config.hidden_size, config.rms_norm_eps)

    def forward(self, x, cos, sin):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin)
        return x + self.mlp(self.post_attention_layernorm(x))


class NativeLlamaModel(nn.Module):
    def __init__(self, config, recompute=None):
        super().__init__()
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(NativeDecoderLayer(config, recompute)
                                    for _ in range(config.num_hidden_layers))
        self.norm = LlamaRMSNorm(config.hidden_size, config.rms_norm_eps)


class NativeLlamaForCausalLM(nn.Module):
    """forward(input_ids) -> logits [batch, seq, vocab] (after the plan: a DTensor split along the
    vocabulary over the tensor-parallel group, for loss_parallel); this module's causal_lm_loss
    turns them into the mean next-token cross-entropy, as LlamaForCausalLM's forward does."""

    def __init__(self, config, recompute=None):
        """Built where torch's default device says: on the meta device (no memory) for the
        trainer, which splits it, allocates each rank's shards and then calls init_parameters."""
        super().__init__()
        self.config = config.check()
        self.model = NativeLlamaModel(config, recompute)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)

    @torch.no_grad()
    def init_parameters(self, seed):
        """Every parameter (whole, or a DTensor of this rank's shards) set to its part of
        models/llama.py's initial_tensor: the own path's initial weights at any layout. Each
        whole tensor is drawn on the host, one at a time, and each rank keeps its shards of it."""
        for index, (name, p) in enumerate(self.named_parameters()):
            full = initial_tensor(name, index, tuple(p.shape), self.config, seed)
            if isinstance(p, DTensor):
                # src_data_rank=None: every rank drew the same tensor, so each takes its own
                # shards without communication.
                full = distribute_tensor(full.to(p.device), p.device_mesh, p.placements, src_data_rank=None)
            p.copy_(full)

    def forward(self, input_ids):
        x = self.model.embed_tokens(input_ids)
        cos, sin = rotary_tables(self.config, input_ids.shape[1], input_ids.device)
        for layer in self.model.layers:
            x = layer(x, cos, sin)
        return self.lm_head(self.model.norm(x))


def next_token_labels(input_ids):
    """Each position's label is the next token; the last position has none (IGNORE_INDEX), so the
    logits need no slicing (a DTensor split along the vocabulary stays whole along the sequence)."""
    labels = input_ids.roll(-1, dims=1)
    labels[:, -1] = IGNORE_INDEX
    return labels


def causal_lm_loss(logits, labels):
    """Mean cross-entropy in fp32 over the positions with a label (under loss_parallel when the
    logits are split along the vocabulary)."""
    return F.cross_entropy(logits.flatten(0, 1).float(), labels.flatten(0, 1), ignore_index=IGNORE_INDEX)
