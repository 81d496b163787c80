"""Splitting a Hugging Face-layout Llama state_dict into tensor-parallel shards and merging them
back: the NxD <-> Hugging Face conversion of seed 001 (docs/llama.md#shards).

Which dimension of each tensor is split follows the layer it feeds: column-parallel layers
(q, k, v, gate and up projections, the LM head) and the embedding split dimension 0,
row-parallel layers (o and down projections) dimension 1, and the norms are whole on every rank.
"""

_SPLIT_DIM = {
    "embed_tokens": 0, "lm_head": 0,
    "q_proj": 0, "k_proj": 0, "v_proj": 0, "gate_proj": 0, "up_proj": 0,
    "o_proj": 1, "down_proj": 1,
}


def split_dim(name):
    """The dimension `name` (a state_dict key) is split along, or None when every rank holds it."""
    parts = name.split(".")
    return _SPLIT_DIM.get(parts[-2]) if len(parts) >= 2 else None


def shard_state(state, tp_size, tp_rank):
    """Rank `tp_rank`'s shard of a full state_dict."""
    shard = {}
    for name, tensor in state.items():
        dim = split_dim(name)
        if dim is not None and tensor.shape[dim] % tp_size:
            raise ValueError(f"{name} {tuple(tensor.shape)}: dimension {dim} does not split over "
                             f"tensor parallel {tp_size}")
        shard[name] = tensor if dim is None else tensor.chunk(tp_size, dim=dim)[tp_rank].clone()
    return shard


def merge_states(shards):
    """The full state_dict from every rank's shard, in rank order."""
    import torch

    merged = {}
    for name, first in shards[0].items():
        dim = split_dim(name)
        merged[name] = first.clone() if dim is None else torch.cat([s[name] for s in shards], dim=dim)
    return merged
