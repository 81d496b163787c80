"""torch-xla (Trainium through torch-neuronx) specifics, isolated from the rest of the trainer."""

import os

import torch
import torch.distributed as dist

from . import env_names
from .device_base import Device
from .peak_flops import PEAK_BF16_FLOPS


def _neuron_arch():
    base = "/sys/devices/virtual/neuron_device/neuron0/info/architecture/instance_type"
    try:
        with open(base) as f:
            text = f.read().strip().lower()
    except OSError:
        return None
    if "trn2" in text:
        lnc = os.environ.get(env_names.NEURON_LOGICAL_NC_CONFIG, "2")
        return "trn2-lnc1" if lnc == "1" else "trn2-lnc2"
    if "trn1" in text:
        return "trn1"
    return None


class XlaDevice(Device):
    kind = "xla"
    backend = "xla"

    def __init__(self, dist_env, dtype):
        super().__init__(dist_env, dtype)
        if dtype == "bf16":
            # Must be set before torch_xla is imported: every fp32 tensor is stored as bf16 on the
            # device (what the Neuron BERT script does); master weights stay fp32 on the host.
            os.environ.setdefault("XLA_DOWNCAST_BF16", "1")
        import torch_xla.core.xla_model as xm

        self.xm = xm
        self.torch_device = xm.xla_device()

    def describe(self):
        return f"xla ({self.xm.xla_device_hw(self.torch_device)}), {self.dtype}, xla"

    def peak_flops(self):
        arch = _neuron_arch()
        if arch is None:
            return None, "unknown XLA device; pass --peak-tflops"
        flops = PEAK_BF16_FLOPS[arch]
        return flops, f"{arch} dense bf16 {flops / 1e12:.1f} TFLOP/s per NeuronCore"

    def init_process_group(self):
        if not self.env.distributed:
            return
        import torch_xla.distributed.xla_backend  # noqa: F401  registers the "xla" backend

        try:
            dist.init_process_group("xla", init_method="xla://")
        except (ValueError, RuntimeError):
            dist.init_process_group("xla")  # older torch-xla: env:// rendezvous

    def all_reduce_sum_(self, tensor):
        self.xm.all_reduce(self.xm.REDUCE_SUM, [tensor])

    def barrier(self):
        if self.env.distributed:
            self.xm.rendezvous("trn_trainer_barrier")

    def step_end(self):
        # xm.optimizer_step semantics: gradients already reduced, optimizer stepped; cut the graph.
        self.xm.mark_step()

    def after_step(self, fn, *args):
        self.xm.add_step_closure(fn, args)

    def synchronize(self):
        self.xm.wait_device_ops()

    def manual_seed(self, seed):
        torch.manual_seed(seed)
        self.xm.set_rng_state(seed)

    def rng_state(self):
        return {"torch": torch.get_rng_state(), "xla": self.xm.get_rng_state()}

    def set_rng_state(self, state):
        super().set_rng_state(state)
        if "xla" in state:
            self.xm.set_rng_state(state["xla"])

    def accumulate_dtype(self):
        return torch.float32
