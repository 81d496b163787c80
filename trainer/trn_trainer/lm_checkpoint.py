"""Checkpoints of pretrain-lm (docs/llama.md#checkpoints): one file per tensor-parallel rank,
`ckpt_<step>.tp<r>.pt`, holding that rank's model shard (Hugging Face names, llama_shards.py's
split), its optimizer state (ZeRO-1's consolidated first) and where the run stands. The manifest
`ckpt_<step>.json` is written last, by rank 0, once every shard is in place: a step without one
was never committed (trn-run reads the same name to decide that a run resumes).

Every file is written to a temporary name and renamed, so a crash leaves the previous checkpoint
whole. Only the data-parallel rank 0 of each tensor-parallel rank writes: the other replicas
hold the same weights.
"""

import glob
import json
import os
import re

import torch
import torch.distributed as dist

from .errors import CheckpointError

_MANIFEST = re.compile(r"^ckpt_(\d+)\.json$")


def shard_name(step, tp_rank):
    return f"ckpt_{step}.tp{tp_rank}.pt"


def newest_step(output):
    if not os.path.isdir(output):
        return None
    return max((int(m.group(1)) for m in map(_MANIFEST.match, os.listdir(output)) if m), default=None)


def _atomic_save(obj, path):
    torch.save(obj, path + ".tmp")
    os.replace(path + ".tmp", path)


def _optimizer_state(optimizer, groups):
    if hasattr(optimizer, "consolidate_state_dict"):  # ZeRO-1: every rank of the group takes part
        optimizer.consolidate_state_dict(to=0)
        return optimizer.state_dict() if groups.dp_rank == 0 else None
    return optimizer.state_dict()


def save(output, step, consumed, model, optimizer, groups, meta, rank, keep):
    """Every rank calls it (ZeRO-1 consolidates over the data-parallel group)."""
    state = _optimizer_state(optimizer, groups)
    os.makedirs(output, exist_ok=True)
    if groups.dp_rank == 0:
        _atomic_save({"model": model.state_dict(), "optimizer": state, "step": step, "consumed": consumed,
                      "meta": meta}, os.path.join(output, shard_name(step, groups.tp.rank)))
    if dist.is_initialized():
        dist.barrier()
    if rank == 0:
        manifest = os.path.join(output, f"ckpt_{step}.json")
        with open(manifest + ".tmp", "w") as f:
            json.dump({"step": step, "consumed": consumed, "tensor_parallel": groups.tp.size,
                       "shards": [shard_name(step, r) for r in range(groups.tp.size)], **meta}, f, indent=2)
        os.replace(manifest + ".tmp", manifest)
        _prune(output, keep)


def _prune(output, keep):
    steps = sorted(int(m.group(1)) for m in map(_MANIFEST.match, os.listdir(output)) if m)
    for step in steps[:-keep] if keep else []:
        os.remove(os.path.join(output, f"ckpt_{step}.json"))
        for path in glob.glob(os.path.join(output, f"ckpt_{step}.tp*.pt")):
            os.remove(path)


def load(output, step, groups, meta):
    """This tensor-parallel rank's shard of the committed checkpoint `step`, checked against the
    run: the same model and tensor-parallel degree."""
    with open(os.path.join(output, f"ckpt_{step}.json")) as f:
        manifest = json.load(f)
    if manifest["tensor_parallel"] != groups.tp.size:
        raise CheckpointError(f"{output}: checkpoint {step} was written with tensor parallel "
                              f"{manifest['tensor_parallel']}, this run has {groups.tp.size}: resume with "
                              "the same --tensor-parallel")
    for key, value in meta.items():
        if manifest.get(key) != value:
            raise CheckpointError(f"{output}: checkpoint {step} has {key} {manifest.get(key)!r}, this run "
                                  f"{value!r}: resume with the same settings or start in a new --output")
    path = os.path.join(output, shard_name(step, groups.tp.rank))
    try:
        return torch.load(path)
    except Exception as e:  # noqa: BLE001 - any unreadable file is the same error for the user
        raise CheckpointError(f"{path}: cannot be read ({type(e).__name__}: {e}); move the checkpoint "
                              "out of the folder to resume from the one before") from None
