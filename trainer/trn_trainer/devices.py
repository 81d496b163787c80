"""The thin device layer: everything that differs between CPU, CUDA and XLA (Trainium) lives here.

The training loop only calls the methods of `Device`. The torch-xla specifics are in
xla_device.py, imported only when XLA is selected, so a native-PyTorch Neuron backend can
replace that one file.
"""

import contextlib
import importlib.util
import os

import torch
import torch.distributed as dist

from .errors import EnvironmentSetupError, UsageError

# Dense bf16 peak FLOP/s per device (per process) used for MFU. Sources: vendor data sheets.
# Trainium1 chip 190 TFLOP/s over 2 NeuronCores; Trainium2 chip 667 TFLOP/s over 8 physical
# cores (2 per logical core with NEURON_LOGICAL_NC_CONFIG=2, the default); H100/H200 SXM 989.
PEAK_BF16_FLOPS = {
    "trn1": 95e12,
    "trn2-lnc1": 667e12 / 8,
    "trn2-lnc2": 667e12 / 4,
    "H100": 989e12,
    "H200": 989e12,
    "A100": 312e12,
}


class Device:
    """CPU by default; subclasses override what differs."""

    kind = "cpu"
    backend = "gloo"

    def __init__(self, dist_env, dtype):
        self.env = dist_env
        self.dtype = dtype  # "fp32" or "bf16"
        self.torch_device = torch.device("cpu")

    # -- description --------------------------------------------------------------------
    def describe(self):
        return f"{self.kind} ({self.torch_device}), {self.dtype}, backend {self.backend}"

    def peak_flops(self):
        """(peak FLOP/s per process, what it is) or (None, why not known)."""
        return None, "no peak FLOP/s known for CPU; pass --peak-tflops to report MFU"

    # -- distribution ----------------------------------------------------------------------
    def init_process_group(self):
        if not self.env.distributed:
            return
        dist.init_process_group(
            backend=self.backend,
            init_method="env://",  # torchrun 2.x hands workers its own store this way
            rank=self.env.rank,
            world_size=self.env.world_size,
        )

    def all_reduce_sum_(self, tensor):
        """In-place sum over all processes (called once per optimizer step by GradientReducer)."""
        dist.all_reduce(tensor, op=dist.ReduceOp.SUM)

    def barrier(self):
        if self.env.distributed and dist.is_initialized():
            dist.barrier()

    def shutdown(self):
        if dist.is_available() and dist.is_initialized():
            dist.destroy_process_group()

    # -- execution -------------------------------------------------------------------------
    def autocast(self):
        return contextlib.nullcontext()

    def step_end(self):
        """Called after each optimizer step (XLA cuts and launches its graph here)."""

    def after_step(self, fn, *args):
        """Run fn(*args) once the step's values are available (XLA defers, others run now)."""
        fn(*args)

    def synchronize(self):
        pass

    def manual_seed(self, seed):
        torch.manual_seed(seed)

    def rng_state(self):
        return {"torch": torch.get_rng_state()}

    def set_rng_state(self, state):
        if "torch" in state:
            torch.set_rng_state(state["torch"])

    def accumulate_dtype(self):
        """dtype of the running loss sums: float64 where the device has it cheaply."""
        return torch.float64


class CudaDevice(Device):
    kind = "cuda"
    backend = "nccl"

    def __init__(self, dist_env, dtype):
        super().__init__(dist_env, dtype)
        index = dist_env.local_rank % max(torch.cuda.device_count(), 1)
        torch.cuda.set_device(index)
        self.torch_device = torch.device("cuda", index)

    def describe(self):
        return f"cuda ({torch.cuda.get_device_name(self.torch_device)}), {self.dtype}, nccl"

    def peak_flops(self):
        name = torch.cuda.get_device_name(self.torch_device)
        for key, flops in PEAK_BF16_FLOPS.items():
            if key in name:
                return flops, f"{key} dense bf16 {flops / 1e12:.0f} TFLOP/s"
        return None, f"no peak FLOP/s known for {name}; pass --peak-tflops"

    def autocast(self):
        if self.dtype == "bf16":
            return torch.autocast(device_type="cuda", dtype=torch.bfloat16)
        return contextlib.nullcontext()

    def synchronize(self):
        torch.cuda.synchronize(self.torch_device)

    def manual_seed(self, seed):
        torch.manual_seed(seed)
        torch.cuda.manual_seed_all(seed)

    def rng_state(self):
        return {"torch": torch.get_rng_state(), "cuda": torch.cuda.get_rng_state(self.torch_device)}

    def set_rng_state(self, state):
        super().set_rng_state(state)
        if "cuda" in state:
            torch.cuda.set_rng_state(state["cuda"], self.torch_device)


def xla_available():
    if importlib.util.find_spec("torch_xla") is None:
        return False
    return bool(os.environ.get("PJRT_DEVICE")) or os.path.exists("/dev/neuron0")


def select_device(requested, dtype, dist_env):
    """requested: auto|cpu|cuda|xla; dtype: auto|fp32|bf16 (auto: bf16 on accelerators)."""
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
        from .xla_device import XlaDevice

        return XlaDevice(dist_env, dtype)
    raise UsageError(f"--device {requested!r}: choose auto, cpu, cuda or xla")
