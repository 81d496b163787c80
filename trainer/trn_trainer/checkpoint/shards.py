"""How a checkpoint is split among the data-parallel ranks (docs/checkpoints.md#shards).

The model weights and the optimizer state are the same on every data-parallel rank, so each
rank writes a share of them, in parallel: every tensor goes to exactly one rank, largest first
to the rank with the fewest bytes so far. Every rank computes the same split from the same
shapes, without talking. Rank 0's part also holds everything else (step, schedule, random
state, configuration) with a placeholder where another rank's tensor goes; loading puts those
tensors back. With one rank the part is the whole state, a plain dict as torch.save wrote it.
"""

from .tensor_tree import map_tensors

SHARED_PARTS = ("model", "optimizer")  # replicated over the data-parallel ranks
_TENSORS = "trn_shard_tensors"  # the key of a rank > 0 part: {index: tensor}


def _placeholder(rank, index):
    return {"trn_shard": rank, "index": index}


def _is_placeholder(obj):
    return isinstance(obj, dict) and obj.keys() == {"trn_shard", "index"}


def owners(sizes, world):
    """The rank that writes each tensor of `sizes` (bytes): largest first, each to the rank
    with the fewest bytes so far (ties: the lower rank)."""
    loads, owner = [0] * world, [0] * len(sizes)
    for i in sorted(range(len(sizes)), key=lambda i: (-sizes[i], i)):
        rank = min(range(world), key=lambda r: (loads[r], r))
        owner[i] = rank
        loads[rank] += sizes[i]
    return owner


def _shared_tensors(state):
    tensors = []
    for part in SHARED_PARTS:
        map_tensors(state[part], tensors.append)
    return tensors


def share_of(state, rank, world):
    """Rank `rank`'s part of `state` (the live tensors, nothing copied): for rank 0 the whole
    dict with placeholders for the other ranks' tensors; for the others their tensors by index."""
    if world == 1:
        return state
    tensors = _shared_tensors(state)
    owner = owners([t.numel() * t.element_size() for t in tensors], world)
    if rank != 0:
        return {_TENSORS: {i: t for i, t in enumerate(tensors) if owner[i] == rank}}
    index = iter(range(len(tensors)))

    def keep_or_refer(tensor):
        i = next(index)
        return tensor if owner[i] == 0 else _placeholder(owner[i], i)

    head = dict(state)
    for part in SHARED_PARTS:
        head[part] = map_tensors(state[part], keep_or_refer)
    return head


def ranks_referred(head):
    """The ranks whose parts rank 0's part `head` refers to."""
    found = set()

    def visit(obj):
        if _is_placeholder(obj):
            found.add(obj["trn_shard"])
        elif isinstance(obj, dict):
            for v in obj.values():
                visit(v)
        elif isinstance(obj, (list, tuple)):
            for v in obj:
                visit(v)

    for part in SHARED_PARTS:
        visit(head.get(part))
    return found


def assemble(head, parts):
    """The whole state from rank 0's part `head` and `parts` ({rank: that rank's part});
    ValueError when a part lacks a tensor the head refers to."""
    def fill(obj):
        if _is_placeholder(obj):
            tensors = parts.get(obj["trn_shard"], {}).get(_TENSORS, {})
            if obj["index"] not in tensors:
                raise ValueError(f"the part of rank {obj['trn_shard']} lacks tensor {obj['index']}")
            return tensors[obj["index"]]
        if isinstance(obj, dict):
            return {k: fill(v) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return type(obj)(fill(v) for v in obj)
        return obj

    state = dict(head)
    for part in SHARED_PARTS:
        if part in head:
            state[part] = fill(head[part])
    return state
