"""Nested state (tensors in dicts, lists and tuples, as state_dict() returns it) walked in one
fixed order: dict order, then list order. Checkpoints split, copy and move state this way."""

import torch


def map_tensors(obj, fn):
    """`obj` rebuilt with every tensor t replaced by fn(t); other values kept as they are."""
    if torch.is_tensor(obj):
        return fn(obj)
    if isinstance(obj, dict):
        return {k: map_tensors(v, fn) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(map_tensors(v, fn) for v in obj)
    return obj
