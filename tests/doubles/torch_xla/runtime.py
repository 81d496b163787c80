"""torch_xla.runtime (TEST DOUBLE of https://github.com/pytorch/xla/blob/v2.9.0/torch_xla/runtime.py).

The devices and this process's place among them are what the Neuron PJRT plugin reads from the
environment (docs/hardware.md#torch-neuronx-world): one entry per process in
NEURON_PJRT_PROCESSES_NUM_DEVICES, or NEURON_PJRT_WORLD_SIZE processes of one device each, or
NEURONCORE_NUM_DEVICES (a local count). The world size is not: as in torch-xla 2.9 it is 1 until
xm.set_replication names this process's devices (then every device of the world), and the first
answer is kept for the life of the process, as the real one caches it (docs/hardware.md#torch-xla).
"""

import os

_replication_devices = 0  # set by xm.set_replication (the real one keeps it in the C++ runtime)
_world_size = None  # runtime._WORLD_SIZE: the first answer of world_size(), kept


def _devices_per_process():
    devices = os.environ.get("NEURON_PJRT_PROCESSES_NUM_DEVICES")
    if devices:
        return [int(n) for n in devices.split(",")]
    if os.environ.get("NEURON_PJRT_WORLD_SIZE"):
        return [1] * int(os.environ["NEURON_PJRT_WORLD_SIZE"])
    return [1] * int(os.environ.get("NEURONCORE_NUM_DEVICES", "1"))


def _set_replication_devices(count):
    global _replication_devices
    _replication_devices = count


def world_size():
    global _world_size
    if _world_size is None:
        _world_size = 1 if _replication_devices == 0 else global_device_count()
    return _world_size


def global_device_count():
    """Every device of every process (the trainer's launches give each process one)."""
    return sum(_devices_per_process())


def addressable_device_count():
    return 1  # one NeuronCore per process, as trn-slurm's per-core and torchrun launches give


def global_ordinal():
    return int(os.environ.get("NEURON_PJRT_PROCESS_INDEX", "0"))


def local_ordinal():
    return int(os.environ.get("PJRT_LOCAL_PROCESS_RANK", "0"))


def local_process_count():
    return int(os.environ.get("PJRT_LOCAL_PROCESS_COUNT", "1"))


def process_index():
    return global_ordinal()


def process_count():
    return len(_devices_per_process())
