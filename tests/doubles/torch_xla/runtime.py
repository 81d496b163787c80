"""torch_xla.runtime (TEST DOUBLE): the world as the Neuron PJRT plugin reads it from the
environment (docs/hardware.md#torch-neuronx-world)."""

import os


def world_size():
    devices = os.environ.get("NEURON_PJRT_PROCESSES_NUM_DEVICES")
    if devices:
        return sum(int(n) for n in devices.split(","))
    if os.environ.get("NEURON_PJRT_WORLD_SIZE"):
        return int(os.environ["NEURON_PJRT_WORLD_SIZE"])
    return int(os.environ.get("NEURONCORE_NUM_DEVICES", "1"))


def global_ordinal():
    return int(os.environ.get("NEURON_PJRT_PROCESS_INDEX", "0"))


def local_ordinal():
    return int(os.environ.get("PJRT_LOCAL_PROCESS_RANK", "0"))


def local_process_count():
    return int(os.environ.get("PJRT_LOCAL_PROCESS_COUNT", "1"))
