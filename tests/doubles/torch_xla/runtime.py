"""torch_xla.runtime (TEST DOUBLE of https://github.com/pytorch/xla/blob/v2.9.0/torch_xla/runtime.py):
the world as the Neuron PJRT plugin reads it from the environment
(docs/hardware.md#torch-neuronx-world). Unlike the real world_size(), which stays 1 until
xm.set_replication has run, this one does not wait for it (docs/hardware.md#torch-xla-groups)."""

import os


def world_size():
    devices = os.environ.get("NEURON_PJRT_PROCESSES_NUM_DEVICES")
    if devices:
        return sum(int(n) for n in devices.split(","))
    if os.environ.get("NEURON_PJRT_WORLD_SIZE"):
        return int(os.environ["NEURON_PJRT_WORLD_SIZE"])
    return int(os.environ.get("NEURONCORE_NUM_DEVICES", "1"))


def global_device_count():
    """One device per process, as the trainer's per-core and torchrun launches give."""
    return world_size()


def global_ordinal():
    return int(os.environ.get("NEURON_PJRT_PROCESS_INDEX", "0"))


def local_ordinal():
    return int(os.environ.get("PJRT_LOCAL_PROCESS_RANK", "0"))


def local_process_count():
    return int(os.environ.get("PJRT_LOCAL_PROCESS_COUNT", "1"))
