"""Device selection: which of CPU, CUDA, XLA (trn1) and native Neuron (trn2/trn3) a run uses, and
with which dtype.

Everything that differs between them lives behind `Device` (base.py). The torch-xla specifics
are in xla.py, imported only when XLA is selected; the native path (`--native`, FSDP2 and
DTensor) takes its device from torch.accelerator in native.py, the one place that names Neuron's.
"""

import importlib.util
import os

import torch

from ..errors import EnvironmentSetupError, UsageError
from .base import Device
from .cuda import CudaDevice
from .native import NativeDevice


def xla_available():
    if importlib.util.find_spec("torch_xla") is None:
        return False
    return bool(os.environ.get("PJRT_DEVICE")) or os.path.exists("/dev/neuron0")


def select_device(requested, dtype, dist_env, native=False):
    """requested: auto|cpu|cuda|xla|neuron; dtype: auto|fp32|bf16 (auto: bf16 on accelerators).
    native: the native path's device (`--native`; `--device neuron` is native only)."""
    if requested == "neuron" and not native:
        raise UsageError("--device neuron: the neuron device (TorchNeuron) serves the native path only; "
                         "add --native")
    if native:
        if requested == "xla":
            raise UsageError("--native with --device xla: the native path runs on torch.accelerator's "
                             "device (neuron, cuda) or the CPU; drop --native for trn1's torch-xla path")
        device = NativeDevice(dist_env, dtype, requested)
        if device.kind == "cpu" and device.dtype != "fp32":
            raise UsageError("--dtype bf16 on CPU: not supported; use --dtype fp32 on CPU")
        return device
    if requested == "auto":
        if xla_available():
            requested = "xla"
        elif torch.cuda.is_available():
            requested = "cuda"
        else:
            requested = "cpu"
    if dtype == "auto":
        dtype = "fp32" if requested == "cpu" else "bf16"
    if requested == "cpu":
        if dtype != "fp32":
            raise UsageError("--dtype bf16 on CPU: not supported; use --dtype fp32 on CPU")
        return Device(dist_env, dtype)
    if requested == "cuda":
        if not torch.cuda.is_available():
            raise EnvironmentSetupError("--device cuda: no CUDA device is visible to torch")
        return CudaDevice(dist_env, dtype)
    if requested == "xla":
        if importlib.util.find_spec("torch_xla") is None:
            raise EnvironmentSetupError("--device xla: torch_xla (torch-neuronx) is not importable")
        from .xla import XlaDevice

        return XlaDevice(dist_env, dtype)
    raise UsageError(f"--device {requested!r}: choose auto, cpu, cuda, xla or neuron")
