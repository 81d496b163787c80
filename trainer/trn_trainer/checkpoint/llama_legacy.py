"""pretrain-lm checkpoints of trn_trainer before DCP (llama_state.py), read at the layout that
wrote them: the same tensor-parallel degree and, with ZeRO-1, data-parallel size.

A tensor-parallel rank's state (its model shard, the AdamW state of it) is the same on every
rank of its data-parallel group, a "column": the column splits it among its ranks the way
the BERT trainer's data-parallel ranks split theirs (shards.share_of), so the
column's data-parallel rank 0 writes the head and the others a share of the tensors. With
ZeRO-1 the AdamW state is not replicated: each rank writes its own partition of it.
"""

from ..errors import CheckpointError
from . import files
from .restore import read_shard_any_tier, read_step_manifest
from .shards import assemble

ZERO1_PARTITION = "zero1_partition"  # a rank's own part of a ZeRO-1 optimizer's state
RUN = "lm_run"  # the head's description of the run: model, tp, dp, sequence, batch


def read_entry(tiers, entry):
    """The loaded shard of manifest entry `entry`, from the fastest tier that has it whole."""
    return read_shard_any_tier(tiers, entry)[0]


def column_ranks(tp_rank, tp_size, world_size):
    """The world ranks of tensor-parallel rank `tp_rank`'s column, data-parallel rank 0 first
    (parallel/lm_groups.py numbers ranks tensor-parallel group by group)."""
    return list(range(tp_rank, world_size, tp_size))


def _column_state(tiers, entries, head, tp_rank, tp_size, world_size):
    """Tensor-parallel rank `tp_rank`'s whole state: its column's head and the other ranks'
    parts put together; the parts by data-parallel rank."""
    column = column_ranks(tp_rank, tp_size, world_size)
    parts = {dp_rank: read_entry(tiers, entries[r]) for dp_rank, r in enumerate(column) if dp_rank}
    return assemble(head, parts), parts


def check_settings(saved, step, where, run):
    """CheckpointError naming the first of `run`'s settings that checkpoint `step` (its saved
    RUN description `saved`) was written with another value of."""
    for key, value in run.items():
        if saved.get(key) != value:
            raise CheckpointError(f"{where}: checkpoint {step} has {key} {saved.get(key)!r}, this run "
                                  f"{value!r}: resume with the same settings or start in a new --output")


def _check_run(head, step, where, groups, zero1, run):
    saved = head.get(RUN) if isinstance(head, dict) else None
    if saved is None or saved.get("tensor_parallel") != groups.tp.size:
        tp = saved.get("tensor_parallel") if saved else "another"
        raise CheckpointError(f"{where}: checkpoint {step} was written with tensor parallel {tp}, this run "
                              f"has {groups.tp.size}, and it predates resharding checkpoints: resume with "
                              f"--tensor-parallel {tp} (or convert merge it and start from the weights)")
    check_settings(saved, step, where, run)
    if zero1 != saved["zero1"] or (zero1 and saved["data_parallel"] != groups.dp_size):
        raise CheckpointError(
            f"{where}: checkpoint {step} holds the optimizer state of zero1={saved['zero1']} over data "
            f"parallel {saved['data_parallel']}, this run has zero1={zero1} over {groups.dp_size}: "
            "resume with the same --zero1 and data-parallel size (it predates resharding checkpoints)")
    return saved


def load_step(tiers, step, groups, zero1, run):
    """This rank's state of checkpoint `step`: its column's model shard and optimizer state
    (with ZeRO-1, its own partition under ZERO1_PARTITION). CheckpointError when the run's
    settings differ; ValueError when a shard cannot be read whole."""
    manifest = read_step_manifest(tiers, step)
    entries = {e["rank"]: e for e in manifest["shards"]}
    tp_rank = groups.tp.rank
    head = files.check_loaded(read_entry(tiers, entries[tp_rank])) if tp_rank in entries else None
    saved = _check_run(head, step, tiers.path(step), groups, zero1, run)
    world = groups.tp.size * saved["data_parallel"]
    if manifest["world_size"] != world:
        raise ValueError(f"its manifest lists {manifest['world_size']} shards, not {world}")
    state, parts = _column_state(tiers, entries, head, tp_rank, groups.tp.size, world)
    if zero1:
        mine = head if groups.dp_rank == 0 else parts[groups.dp_rank]
        state[ZERO1_PARTITION] = mine[ZERO1_PARTITION]
    return state


def model_shards(tiers, step):
    """Every tensor-parallel rank's model shard of checkpoint `step`, in rank order, and the
    run's description (for convert)."""
    manifest = read_step_manifest(tiers, step)
    entries = {e["rank"]: e for e in manifest["shards"]}
    head0 = files.check_loaded(read_entry(tiers, entries[0]))
    saved = head0[RUN]
    tp, world = saved["tensor_parallel"], manifest["world_size"]
    shards = []
    for tp_rank in range(tp):
        head = head0 if tp_rank == 0 else read_entry(tiers, entries[tp_rank])  # its column's first
        shards.append(_column_state(tiers, entries, head, tp_rank, tp, world)[0]["model"])
    return shards, saved
