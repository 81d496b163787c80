"""The native path's device (devices/native.py): the accelerator torch.accelerator names, else the
CPU, and one clear line for a `--device neuron` TorchNeuron cannot serve."""

import os

import pytest
import torch
import torch.distributed as dist

import trainer_testlib  # noqa: F401  (puts the trainer on sys.path)
from trn_trainer.devices.choice import select_device
from trn_trainer.environment import read_dist_env
from trn_trainer.errors import UsageError

FIXTURES = os.path.join(trainer_testlib.ROOT, "tests", "fixtures")


def test_native_auto_is_the_accelerator_torch_names_else_the_cpu_with_gloo():
    """Without an accelerator: the CPU, gloo, fp32 and inductor. With one (as torch.accelerator
    names it): its first device, its backend (TorchNeuron's own, nccl on CUDA), bf16, and
    TorchNeuron's compile backend on neuron, inductor elsewhere."""
    device = select_device("auto", "auto", read_dist_env({}), native=True)
    described = (device.kind, str(device.torch_device), device.backend, device.dtype)
    accelerator = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else None
    if accelerator is None:
        assert described == ("cpu", "cpu", "gloo", "fp32")
        assert device.compile_backend() == "inductor"
    else:
        kind = accelerator.type
        backend = {"neuron": "neuron", "cuda": "nccl"}.get(kind) or dist.get_default_backend_for_device(kind)
        assert described == (kind, f"{kind}:0", backend, "bf16")
        assert device.compile_backend() == ("neuron" if kind == "neuron" else "inductor")


@pytest.mark.parametrize("requested, native, problem", [
    ("neuron", False, "add --native"),
    ("neuron", True, "TorchNeuron is not installed here"),
    ("xla", True, "drop --native"),
])
def test_a_device_the_native_path_cannot_serve_is_one_line(requested, native, problem, monkeypatch):
    monkeypatch.setenv("TRN_FSROOT", os.path.join(FIXTURES, "trn2.48xlarge"))
    with pytest.raises(UsageError, match=problem) as raised:
        select_device(requested, "auto", read_dist_env({}), native=native)
    assert "\n" not in str(raised.value)


def test_neuron_on_trn1_names_the_chip_and_the_xla_path(monkeypatch):
    monkeypatch.setenv("TRN_FSROOT", os.path.join(FIXTURES, "trn1.32xlarge"))
    with pytest.raises(UsageError, match=r"Trainium1 \(trn1\).*--device xla"):
        select_device("neuron", "auto", read_dist_env({}), native=True)
