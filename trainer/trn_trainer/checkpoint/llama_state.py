"""What a pretrain-lm checkpoint holds, stored through torch.distributed.checkpoint so that a run
resumes at another tensor-parallel degree, data-parallel size or ZeRO-1 partition
(docs/llama.md#checkpoints, docs/checkpoints.md#dcp).

The model's weights and AdamW's state are keyed by parameter name and described as DTensors
of the whole tensors: a tensor-parallel shard is Shard(split_dim) over the ("dp", "tp") mesh and
Replicate() over dp; with ZeRO-1 a parameter's state lives on the ranks of one data-parallel
place only, a DTensor over their tensor-parallel row. DCP (dcp_share.py) writes each chunk once,
spread over the ranks, and reads back whatever chunks a rank of the new layout needs. The
meshes only describe where chunks are: they are made without process groups. Rank 0's shard also
holds the head: step, samples consumed, the model's configuration and the run's settings.
The files, tiers, background writer and manifest are the checkpoint engine's, as for BERT.
Checkpoints written before DCP are read by llama_legacy.py.
"""

import dataclasses

import torch
from torch.distributed.device_mesh import DeviceMesh
from torch.distributed.tensor import DTensor, Replicate, Shard

from ..parallel.llama_shards import shard_state, split_dim
from . import dcp_share, llama_legacy
from .restore import load_newest as load_newest_checkpoint
from .restore import read_shard_any_tier, read_step_manifest

FORMAT = "lm_format"  # the head's format mark: "dcp"; legacy heads have none
ZERO1_PARTITION = llama_legacy.ZERO1_PARTITION  # what a ZeRO-1 rank's optimizer loads
RUN = llama_legacy.RUN
HEAD_KEYS = ("step", "consumed_samples", "model_config", "optimizer_name", RUN, FORMAT)


@dataclasses.dataclass
class LmLayout:
    """Where this rank's tensors sit in the whole: its groups, ZeRO-1 or not, and the names of the
    parameters the optimizer steps (by identity: the model's own or their fp32 master copies)."""
    groups: object
    zero1: bool
    names_by_id: dict
    row: object = None  # this rank's tensor-parallel row (where its ZeRO-1 states are)
    reads_legacy = True  # checkpoints from before DCP (llama_legacy.py)
    mesh: object = None  # the ("dp", "tp") mesh

    @classmethod
    def of(cls, groups, zero1, named_params):
        layout = cls(groups, zero1, {id(p): name for name, p in named_params})
        tp, dp = groups.tp.size, groups.dp_size
        if tp > 1:
            ranks = torch.arange(tp * dp).view(dp, tp)
            layout.mesh = DeviceMesh("cpu", ranks, mesh_dim_names=("dp", "tp"), _init_backend=False)
            layout.row = DeviceMesh("cpu", ranks[groups.dp_rank], mesh_dim_names=("tp",), _init_backend=False)
        return layout

    def torch_optimizer(self, optimizer):
        """The torch optimizer that holds this rank's AdamW state (ZeRO-1: its partition's)."""
        return optimizer.optim if self.zero1 else optimizer

    def named_states(self, optimizer):
        """This rank's AdamW state by parameter name, live."""
        return _named_states(self.torch_optimizer(optimizer), self.names_by_id)

    def templates(self, model_state, optimizer):
        """Empty tensors of this rank's part of the model and of AdamW's state, by name, for a load."""
        torch_optimizer = self.torch_optimizer(optimizer)
        params = {self.names_by_id[id(p)]: p
                  for group in torch_optimizer.param_groups for p in group["params"]}
        return ({name: torch.empty(t.shape, dtype=t.dtype) for name, t in model_state.items()},
                {name: _adamw_template(p.shape, p.dtype) for name, p in params.items()})

    def loaded_optimizer(self, optimizer, by_name):
        """(key, value) of the loaded optimizer state in what load_step returns."""
        return (ZERO1_PARTITION if self.zero1 else "optimizer",
                _optimizer_state_dict(self.torch_optimizer(optimizer), self.names_by_id, by_name))

    def whole(self, name, local, zero1_state=False):
        """`local` (this rank's part of parameter `name`'s tensor, or of a state of its shape) as
        the whole tensor for DCP; scalars and unsplit tensors stay plain tensors (the same
        everywhere they are, written once)."""
        dim = split_dim(name)
        if self.mesh is None or dim is None or local.dim() == 0:
            return local
        shape = list(local.shape)
        shape[dim] *= self.groups.tp.size
        shape = tuple(shape)
        stride = torch.empty(shape, device="meta").stride()
        if zero1_state:
            return DTensor.from_local(local, self.row, [Shard(dim)], run_check=False, shape=shape,
                                      stride=stride)
        return DTensor.from_local(local, self.mesh, [Replicate(), Shard(dim)], run_check=False,
                                  shape=shape, stride=stride)


def _named_states(torch_optimizer, names_by_id):
    """AdamW's per-parameter state keyed by parameter name, the tensors live. `state` is read
    once: ZeRO-1's (parallel/zero1.py) copies its flat moments to the host on each read."""
    states = torch_optimizer.state
    return {names_by_id[id(p)]: dict(states[p])
            for group in torch_optimizer.param_groups for p in group["params"] if p in states}


def capture(model_state, optimizer, layout, progress, run):
    """This rank's state of the step just taken, live tensors (the writer copies them): the model,
    AdamW's state by name and the head. progress: step, consumed_samples and model_config; run:
    the settings a resume must match."""
    head = {**progress, "optimizer_name": "adamw", FORMAT: "dcp",
            RUN: {**run, "tensor_parallel": layout.groups.tp.size, "data_parallel": layout.groups.dp_size,
                  "zero1": layout.zero1}}
    return {"head": head, "model": dict(model_state),
            "optim": layout.named_states(optimizer)}


def _as_whole(model, optim, layout):
    return {"model": {name: layout.whole(name, t) for name, t in model.items()},
            "optim": {name: {key: layout.whole(name, v, layout.zero1) for key, v in state.items()}
                      for name, state in optim.items()}}


def share_of(captured, layout, rank, process_group):
    """This rank's shard of a checkpoint from its captured (host) state, planned by DCP over
    `process_group` (the writer thread's; every rank calls this at once). `captured` may be the
    exception its snapshot raised: the rank still takes part in the plan, with nothing, and
    the exception is returned for the writer to report."""
    if isinstance(captured, Exception):
        dcp_share.share_of({}, rank, process_group)
        return captured
    share = dcp_share.share_of(_as_whole(captured["model"], captured["optim"], layout), rank, process_group)
    if rank == 0:
        share.update(captured["head"])
    return share


def _check_head(head, step, where, run):
    if not isinstance(head, dict) or any(k not in head for k in HEAD_KEYS) or dcp_share.METADATA not in head:
        raise ValueError("not a pretrain-lm checkpoint (keys missing)")
    llama_legacy.check_settings(head[RUN], step, where, run)
    return head


class _Shares:
    """The shards of one checkpoint, each read (from the fastest tier that has it whole) when a
    load first needs a chunk of it."""

    def __init__(self, tiers, manifest):
        self.tiers = tiers
        self.entries = {e["rank"]: e for e in manifest["shards"]}
        self.loaded = {}

    def __call__(self, rank):
        if rank not in self.loaded:
            if rank not in self.entries:
                raise ValueError(f"its manifest lists no shard of rank {rank}")
            self.loaded[rank] = read_shard_any_tier(self.tiers, self.entries[rank])[0]
        return self.loaded[rank]


def _adamw_template(shape, dtype):
    return {"step": torch.zeros((), dtype=torch.float32), "exp_avg": torch.empty(shape, dtype=dtype),
            "exp_avg_sq": torch.empty(shape, dtype=dtype)}


def _optimizer_state_dict(torch_optimizer, names_by_id, by_name):
    """torch_optimizer's state_dict with the loaded states put in by parameter name."""
    state_dict = torch_optimizer.state_dict()
    position = 0
    for group in torch_optimizer.param_groups:
        for p in group["params"]:
            state_dict["state"][position] = by_name[names_by_id[id(p)]]
            position += 1
    return state_dict


def _local(value):
    return value.to_local() if isinstance(value, DTensor) else value


def load_step(tiers, step, layout, run, model_state, optimizer):
    """This rank's state of checkpoint `step` at this run's layout, whatever the layout that wrote
    it: {"model": its weights, "optimizer" or ZERO1_PARTITION: its optimizer's state_dict, step,
    consumed_samples}. model_state and optimizer: this run's (their shapes and names).
    CheckpointError when the run's settings differ; ValueError when a shard cannot be read whole."""
    manifest = read_step_manifest(tiers, step)
    shares = _Shares(tiers, manifest)
    head = shares(0)
    if isinstance(head, dict) and FORMAT not in head:
        if not layout.reads_legacy:
            raise ValueError("it was written before DCP, which the native path does not read")
        return llama_legacy.load_step(tiers, step, layout.groups, layout.zero1, run)
    saved = _check_head(head, step, tiers.path(step), run)[RUN]
    if manifest["world_size"] != saved["tensor_parallel"] * saved["data_parallel"]:
        raise ValueError(f"its manifest lists {manifest['world_size']} shards, not "
                         f"{saved['tensor_parallel'] * saved['data_parallel']}")
    model, optim = layout.templates(model_state, optimizer)
    whole = dcp_share.load_into(_as_whole(model, optim, layout), head[dcp_share.METADATA], shares)
    state = {key: head[key] for key in HEAD_KEYS}
    state["model"] = {name: _local(t) for name, t in whole["model"].items()}
    by_name = {name: {key: _local(v) for key, v in s.items()} for name, s in whole["optim"].items()}
    key, value = layout.loaded_optimizer(optimizer, by_name)
    state[key] = value
    return state


def load_newest(tiers, layout, run, model_state, optimizer, warn):
    """(state, step) of the newest checkpoint this rank can load; (None, -1) without one
    (restore.load_newest's rules)."""
    state, step, _ = load_newest_checkpoint(
        tiers, warn, load=lambda t, s: (load_step(t, s, layout, run, model_state, optimizer), set()))
    return state, step


def model_shards(tiers, step):
    """Every tensor-parallel rank's model shard of checkpoint `step` at the degree it was written
    with, in rank order, and the run's description (for convert)."""
    manifest = read_step_manifest(tiers, step)
    shares = _Shares(tiers, manifest)
    head = shares(0)
    if isinstance(head, dict) and FORMAT not in head:
        return llama_legacy.model_shards(tiers, step)
    metadata = _check_head(head, step, tiers.path(step), {})[dcp_share.METADATA]
    sizes = dcp_share.tensor_sizes(metadata, "model")
    full = {name: torch.empty(size, dtype=metadata.state_dict_metadata["model." + name].properties.dtype)
            for name, size in sizes.items()}
    full = dcp_share.load_into({"model": full}, metadata, shares)["model"]
    tp = head[RUN]["tensor_parallel"]
    return [shard_state(full, tp, rank) for rank in range(tp)], head[RUN]
