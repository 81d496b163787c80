"""torch_xla - TEST DOUBLE of torch-xla 2.9 (the subset trn_trainer's XLA path calls), for
trn-slurm's tests only: tests put tests/doubles first on PYTHONPATH, product code never fakes it.

Tensors stay on the CPU and collectives run on gloo, so the trainer's XLA path runs here as it
would on Trainium, while the double counts what matters for the real compiler
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
