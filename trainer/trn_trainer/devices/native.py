"""The native PyTorch device of the `--native` path: whatever `torch.accelerator` names (TorchNeuron's
`neuron` on trn2/trn3, `cuda`), else the CPU (docs/hardware.md#torchneuron).

TorchNeuron registers `neuron` through PyTorch's PrivateUse1 mechanism and is loaded with torch,
so nothing here imports it: the device, its process-group backend, bf16 autocast and
torch.compile's backend all follow from the device type. This module is the only place of the
native path that knows a name of Neuron's; `--device xla` (trn1, torch-xla) is xla.py's.
"""

import contextlib
import os

import torch
import torch.distributed as dist

from ..env_names import TRN_FSROOT
from ..errors import UsageError
from .base import Device

NEURON = "neuron"
# TorchNeuron's process-group backend is named after its device (torch-distributed guide); other
# devices take PyTorch's default for them (gloo on CPU, nccl on CUDA).
_BACKEND_FOR_DEVICE = {NEURON: "neuron"}
# torch.compile's backend per device: TorchNeuron's on Trainium, PyTorch's default elsewhere.
_COMPILE_BACKEND_FOR_DEVICE = {NEURON: "neuron"}
# PyTorch's settings that mark shapes dynamic whatever torch.compile's dynamic=False says.
_FORCE_DYNAMIC_ENV = ("TORCH_COMPILE_DYNAMIC_SOURCES", "TORCH_COMPILE_DYNAMIC_VALUES",
                      "TORCH_COMPILE_UNBACKED_SOURCES")
# What the Neuron driver reports a Trainium1 device as (sysfs info/architecture/device_name).
_TRAINIUM1 = "Trainium1"


def accelerator_type():
    """The device type torch.accelerator names ("neuron", "cuda", ...), else None (CPU only)."""
    accelerator = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else None
    return accelerator.type if accelerator is not None else None


def _neuron_device_name(root):
    """The first Neuron device's chip name as the driver reports it; None: no Neuron device."""
    path = os.path.join(root, "sys/devices/virtual/neuron_device/neuron0/info/architecture/device_name")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return None


def check_static_shapes():
    """torch.compile(dynamic=False) keeps every shape static except where these settings of
    PyTorch's (torch/compiler/config.py) mark sources or values dynamic, overriding dynamic=False:
    refused, as each would make a graph TorchNeuron cannot compile."""
    forced = [name for name in _FORCE_DYNAMIC_ENV if os.environ.get(name)]
    if forced:
        setting = f"{forced[0]}={os.environ[forced[0]]}"
        raise UsageError(f"--compile: {setting} makes torch.compile's shapes dynamic, which the native "
                         "path compiles static (a graph per shape on Trainium); unset it")


def check_neuron_requested():
    """`--device neuron` needs TorchNeuron, which runs on Trainium2 and Trainium3 only."""
    chip = _neuron_device_name(os.environ.get(TRN_FSROOT) or "/")
    if chip == _TRAINIUM1:
        raise UsageError("--device neuron: this node's Neuron devices are Trainium1 (trn1), which "
                         "TorchNeuron does not support; use --device xla (torch-xla, Neuron 2.29 or "
                         "older) on trn1, or run on trn2/trn3")
    if accelerator_type() != NEURON:
        raise UsageError("--device neuron: TorchNeuron is not installed here (torch.accelerator names "
                         f"{accelerator_type() or 'no accelerator'}); install torch-neuronx 2.13.3 for "
                         "PyTorch 2.13 (docs/hardware.md#torchneuron) or choose --device auto")


class NativeDevice(Device):
    """A native PyTorch device: `requested` is "neuron", "cuda", "cpu" or "auto" (the accelerator
    torch.accelerator names, else the CPU)."""

    def __init__(self, dist_env, dtype, requested="auto"):
        super().__init__(dist_env, dtype)
        if requested == NEURON:
            check_neuron_requested()
        kind = accelerator_type() if requested == "auto" else requested
        self.kind = kind or "cpu"
        if self.kind == "cpu":
            self.torch_device = torch.device("cpu")
        else:
            index = dist_env.local_rank % max(torch.accelerator.device_count(), 1)
            torch.accelerator.set_device_index(index)
            self.torch_device = torch.device(self.kind, index)
        self.backend = _BACKEND_FOR_DEVICE.get(self.kind) or dist.get_default_backend_for_device(self.kind)
        if dtype == "auto":  # bf16 on accelerators
            self.dtype = "fp32" if self.kind == "cpu" else "bf16"

    def describe(self):
        return f"{self.kind} ({self.torch_device}, native), {self.dtype}, backend {self.backend}"

    def autocast(self):
        """bf16 compute under autocast; the parameters (the optimizer's master weights) stay fp32."""
        if self.dtype == "bf16":
            return torch.autocast(device_type=self.kind, dtype=torch.bfloat16)
        return contextlib.nullcontext()

    def compile_backend(self):
        """torch.compile's backend for this device ("inductor", PyTorch's default, elsewhere)."""
        return _COMPILE_BACKEND_FOR_DEVICE.get(self.kind, "inductor")

    def compile_in_place(self, module):
        """module.compile (its names and parameters unchanged, as checkpoints and FSDP2 need them)
        with compile_backend() and static shapes: TorchNeuron has no dynamic=True and compiles each
        new shape once, so the trainer keeps micro-batch and sequence length fixed."""
        check_static_shapes()
        module.compile(backend=self.compile_backend(), dynamic=False)

    def init_process_group(self):
        """Always a process group: the native path's DeviceMesh needs one, a world of one included
        (a store of its own, with no address to rendezvous at)."""
        if self.env.distributed:
            super().init_process_group()
        else:
            dist.init_process_group(backend=self.backend, store=dist.HashStore(), rank=0, world_size=1)

    def synchronize(self):
        if self.kind != "cpu":
            torch.accelerator.synchronize(self.torch_device)

    def manual_seed(self, seed):
        torch.manual_seed(seed)  # seeds every device's generator too
