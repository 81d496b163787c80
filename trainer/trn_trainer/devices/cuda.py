"""CUDA specifics: NCCL, bf16 autocast, CUDA random state, known GPU peaks."""

import contextlib

import torch

from .base import Device
from .peak_flops import PEAK_BF16_FLOPS


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
