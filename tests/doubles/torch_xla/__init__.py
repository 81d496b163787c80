"""torch_xla - TEST DOUBLE of torch-xla 2.9 (https://github.com/pytorch/xla/tree/v2.9.0, the
subset trn_trainer's XLA path calls), for trn-slurm's tests only: tests put tests/doubles first
on PYTHONPATH, product code never fakes it.

Tensors stay on the CPU and collectives are carried by gloo, so the trainer's XLA path runs here
as it would on Trainium. Collectives follow torch-xla's rules (docs/hardware.md#torch-xla-groups):
replica groups checked as XLA checks them and reduced within the caller's group only, the "xla"
process groups and their meshes as torch_xla.distributed.xla_backend makes them, a barrier on
them doing nothing. The double also counts what matters for the real compiler
(docs/hardware.md#torch-xla): graph cuts (mark_step), the graphs run and how many of them are
distinct (what the compiler compiles: the same operations on the same shapes in the same order
are one graph, compiled once), all-reduce calls, and host syncs that read
a tensor while the graph being traced has pending operations (each forces a partial graph to
compile and run). With TORCH_XLA_DOUBLE_STATS=DIR each process writes DIR/<ordinal>.json at exit.
Only APIs that torch-xla 2.9 has are defined: a call to one it removed (xm.xrt_world_size,
xm.get_ordinal, ...) fails with AttributeError, as it would there.
"""

import os as _os

from ._state import STATE as _STATE  # noqa: F401  (starts counting at import, like the real one)


def _configure_pjrt_environment():
    """What importing torch_xla does on a Neuron system (torch_xla/_internal/neuron.py,
    configure_pjrt_environment): under torchrun, the PJRT world from torchrun's variables -
    one device per worker unless a device list is set - and the process index from RANK. A
    process started otherwise keeps the NEURON_PJRT_* variables its launcher set."""
    environ = _os.environ
    if environ.get("XLA_USE_SPMD", "0") == "1" or not environ.get("TORCHELASTIC_RUN_ID"):
        return
    if "NEURON_PJRT_PROCESSES_NUM_DEVICES" not in environ and "NEURON_PJRT_WORLD_SIZE" not in environ:
        environ["NEURON_PJRT_WORLD_SIZE"] = environ.get("WORLD_SIZE", "1")
        environ["PJRT_LOCAL_PROCESS_COUNT"] = environ.get("LOCAL_WORLD_SIZE", "1")
    environ["NEURON_PJRT_PROCESS_INDEX"] = environ.get("RANK", "0")
    environ["PJRT_LOCAL_PROCESS_RANK"] = environ.get("LOCAL_RANK", "0")


_configure_pjrt_environment()


def device(index=None):
    """torch_xla.device(): the process's XLA device (here: the CPU)."""
    from .core import xla_model

    return xla_model.xla_device(index)
