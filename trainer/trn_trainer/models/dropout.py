"""Dropout whose mask depends only on (run seed, global sample, dropout site, element).

The mask of a sample is therefore the same whichever process, micro-batch or position in the
micro-batch the sample lands in: strong scaling does not change the math. The random bits come
from an integer hash computed with ordinary tensor ops, so it runs unchanged on CPU, CUDA and
XLA (no generator state to carry between devices or checkpoints).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

_M32 = 0xFFFFFFFF


def hash32(x):
    """A 32-bit integer mix. In int64 the products stay below 2**59; where a backend computes in
    int32 (Neuron lowers int64 to int32) they wrap, and masking each shift to 16 bits makes the
    low 32 bits, and so the masks, come out the same either way."""
    x = ((((x >> 16) & 0xFFFF) ^ x) * 0x45D9F3B) & _M32
    x = ((((x >> 16) & 0xFFFF) ^ x) * 0x45D9F3B) & _M32
    return ((x >> 16) & 0xFFFF) ^ x


def sample_seeds(run_seed, positions):
    """One 31-bit seed per global stream position (int64 tensor in, int64 tensor out)."""
    p = torch.as_tensor(positions, dtype=torch.int64)
    hi = hash32((p >> 32) ^ (run_seed & _M32))
    return hash32((p & _M32) ^ hash32(hi + 0x3C6EF372)) & 0x7FFFFFFF


class DropoutContext:
    """Shared by every dropout site of one model; the model sets the seeds per forward."""

    def __init__(self, mode="sample"):
        self.mode = mode  # "sample": per-sample hash masks; "device": framework RNG (faster)
        self.seeds = None
        self.next_site = 0
        self._counters = {}

    def new_site(self):
        self.next_site += 1
        return self.next_site

    def counters(self, n, device):
        key = (n, str(device))
        if key not in self._counters:
            self._counters[key] = torch.arange(n, dtype=torch.int64, device=device)
        return self._counters[key]


class SampleDropout(nn.Module):
    def __init__(self, p, context):
        super().__init__()
        self.p = float(p)
        self.context = context
        self.site = context.new_site()
        # The site's hash as a buffer, not a Python constant: torch.compile then makes one graph
        # for every encoder layer (a buffer is an input) instead of one per site (a constant is
        # guarded on). Not persistent: a state_dict stays Hugging Face's.
        site_hash = hash32(torch.tensor(self.site, dtype=torch.int64))
        self.register_buffer("site_hash", site_hash, persistent=False)

    def forward(self, x):
        if not self.training or self.p <= 0.0:
            return x
        ctx = self.context
        if ctx.mode == "device" or ctx.seeds is None:
            return F.dropout(x, self.p, True)
        return x * self.keep_scale(x)

    def keep_scale(self, x):
        """0 or 1/(1-p) per element. 16 random bits per element, two elements per hash."""
        batch = x.shape[0]
        per_sample = x[0].numel()
        half = (per_sample + 1) // 2
        counters = self.context.counters(half, x.device)
        seeds = self.context.seeds.to(x.device).view(batch, 1)
        base1 = hash32(seeds ^ self.site_hash.to(x.device))
        base2 = hash32(base1 + 0x9E3779B)
        bits = hash32(hash32(counters.view(1, half) + base1) ^ base2)
        rand16 = torch.cat((bits & 0xFFFF, (bits >> 16) & 0xFFFF), dim=1)[:, :per_sample]
        threshold = int(round(self.p * 65536))
        keep = rand16 >= threshold
        scale = 1.0 / (1.0 - self.p)
        return (keep.to(x.dtype) * scale).view_as(x)
