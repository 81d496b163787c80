"""Where the native path's tensors sit in a pretrain-lm checkpoint (docs/llama.md#checkpoints): the
same DCP checkpoint as the own path's (llama_state.py), keyed by the Hugging Face parameter names,
so a run resumes at another tensor-parallel degree or data-parallel size.

The model's and AdamW's state come from torch.distributed.checkpoint.state_dict
(get_model_state_dict, get_optimizer_state_dict: FSDP2's and DTensor's shards by parameter name)
and go back through set_model_state_dict and set_optimizer_state_dict. What the checkpoint
engine copies into host memory is each shard's local tensor; DCP sees it again as the DTensor it
was, on a host copy of its mesh made without process groups (as llama_state.py's meshes are):
FSDP2's Shard(0) over dp - strided where tensor parallel splits dimension 0 too - and the
tensor-parallel placement over tp.
"""

import torch
from torch.distributed.checkpoint.state_dict import (get_model_state_dict, get_optimizer_state_dict,
                                                     set_model_state_dict, set_optimizer_state_dict)
from torch.distributed.device_mesh import DeviceMesh
from torch.distributed.tensor import DTensor

from .llama_state import _adamw_template, _local


class _Size:
    def __init__(self, size):
        self.size = size


class NativeLayout:
    """llama_state's layout interface (LmLayout's) for a model FSDP2 and DTensor split over `mesh`."""

    zero1 = False
    reads_legacy = False

    def __init__(self, model, mesh):
        self.model = model
        self.params = dict(model.named_parameters())
        self.names_by_id = {id(p): name for name, p in self.params.items()}
        self.groups = _Groups(mesh["tp"].size(), mesh["dp"].size())
        self._host_meshes = {}

    def _host_mesh(self, mesh):
        if id(mesh) not in self._host_meshes:
            self._host_meshes[id(mesh)] = DeviceMesh("cpu", mesh.mesh, mesh_dim_names=mesh.mesh_dim_names,
                                                     _init_backend=False)
        return self._host_meshes[id(mesh)]

    def torch_optimizer(self, optimizer):
        return optimizer

    def model_state(self):
        """This rank's shards of the weights by name (local tensors, live)."""
        return {name: _local(t) for name, t in get_model_state_dict(self.model).items()}

    def named_states(self, optimizer):
        """This rank's shards of AdamW's state by parameter name (local tensors, live)."""
        states = get_optimizer_state_dict(self.model, optimizer)["state"]
        return {name: {key: _local(v) for key, v in s.items()} for name, s in states.items()}

    def whole(self, name, local, zero1_state=False):
        """This rank's shard `local` (host) of parameter `name`'s tensor, or of a state of its shape,
        as the DTensor it is a shard of; a scalar (AdamW's step) as it is."""
        if local.dim() == 0:
            return local
        p = self.params[name]
        return DTensor.from_local(local, self._host_mesh(p.device_mesh), p.placements, run_check=False,
                                  shape=p.shape, stride=p.stride())

    def templates(self, model_state, optimizer):
        """Empty tensors of this rank's shards of the model (model_state: model_state()'s) and of
        AdamW's state of the parameters `optimizer` steps, by name, for a load."""
        params = {self.names_by_id[id(p)]: p for group in optimizer.param_groups for p in group["params"]}
        return ({name: torch.empty(t.shape, dtype=t.dtype) for name, t in model_state.items()},
                {name: _adamw_template(_local(p).shape, p.dtype) for name, p in params.items()})

    def loaded_optimizer(self, optimizer, by_name):
        return "optimizer", by_name

    def _on_device(self, name, local):
        """A loaded shard (host) as the DTensor of parameter `name`'s layout, on its device."""
        if local.dim() == 0:
            return local
        p = self.params[name]
        return DTensor.from_local(local.to(_local(p).device), p.device_mesh, p.placements, run_check=False,
                                  shape=p.shape, stride=p.stride())

    def restore(self, optimizer, state):
        """The model's weights and AdamW's state from load_step's `state`."""
        weights = {name: self._on_device(name, t) for name, t in state["model"].items()}
        set_model_state_dict(self.model, weights)
        groups = get_optimizer_state_dict(self.model, optimizer)["param_groups"]
        states = {name: {key: self._on_device(name, v) for key, v in s.items()}
                  for name, s in state["optimizer"].items()}
        set_optimizer_state_dict(self.model, optimizer, {"state": states, "param_groups": groups})


class _Groups:
    """What llama_state reads of the own path's groups: the degrees."""

    def __init__(self, tp_size, dp_size):
        self.tp = _Size(tp_size)
        self.dp_size = dp_size
