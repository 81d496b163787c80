"""torch_xla.core.xla_model, the torch-xla 2.9 subset trn_trainer uses (TEST DOUBLE)."""

import os

import torch
import torch.distributed as dist

from .._state import STATE

REDUCE_SUM = "sum"
_rng_seed = 0


def xla_device(n=None, devkind=None):
    return torch.device("cpu")


def xla_device_hw(device):
    return "NEURON" if os.environ.get("PJRT_DEVICE") == "NEURON" else "CPU"


def mark_step(wait=False, reset_scope=True):
    STATE.cut()


def add_step_closure(closure, args=(), run_async=False):
    STATE.closures.append((closure, args))


def wait_device_ops(devices=()):
    pass


def all_reduce(reduce_type, inputs, scale=1.0, groups=None, pin_layout=True):
    """A list is reduced in place (one call, one collective per tensor underneath); a tensor
    gives a new one."""
    if reduce_type != REDUCE_SUM:
        raise NotImplementedError(f"double: reduce_type {reduce_type!r}")
    STATE.all_reduce_calls += 1
    STATE.events.append("all_reduce")
    tensors = inputs if isinstance(inputs, list) else [inputs.clone()]
    for t in tensors:
        if dist.is_initialized():
            dist.all_reduce(t)
        if scale != 1.0:
            t.mul_(scale)
    return inputs if isinstance(inputs, list) else tensors[0]


def rendezvous(tag, payload=b"", replicas=()):
    if dist.is_initialized():
        dist.barrier()
    return [payload]


def set_rng_state(seed, device=None):
    global _rng_seed
    _rng_seed = int(seed)


def get_rng_state(device=None):
    return _rng_seed
