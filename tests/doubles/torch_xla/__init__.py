"""torch_xla - TEST DOUBLE of torch-xla 2.9 (https://github.com/pytorch/xla/tree/v2.9.0, the
subset trn_trainer's XLA path calls), for trn-slurm's tests only: tests put tests/doubles first
on PYTHONPATH, product code never fakes it.

Tensors stay on the CPU and collectives are carried by gloo, so the trainer's XLA path runs here
as it would on Trainium. Collectives follow torch-xla's rules (docs/hardware.md#torch-xla-groups):
replica groups checked as XLA checks them and reduced within the caller's group only, the "xla"
process groups and their meshes as torch_xla.distributed.xla_backend makes them, a barrier on
them doing nothing. The double also counts what matters for the real compiler
(docs/hardware.md#torch-xla): graph cuts (mark_step), all-reduce calls, and host syncs that read
a tensor while the graph being traced has pending operations (each forces a partial graph to
compile and run). With TORCH_XLA_DOUBLE_STATS=DIR each process writes DIR/<ordinal>.json at exit.
Only APIs that torch-xla 2.9 has are defined: a call to one it removed (xm.xrt_world_size,
xm.get_ordinal, ...) fails with AttributeError, as it would there.
"""

from ._state import STATE as _STATE  # noqa: F401  (starts counting at import, like the real one)


def device(index=None):
    """torch_xla.device(): the process's XLA device (here: the CPU)."""
    from .core import xla_model

    return xla_model.xla_device(index)
