"""Exactly one all-reduce per optimizer step.

Gradients accumulate locally over the micro-steps (no communication there). After the last
micro-step every gradient and the step's loss sums are packed into one flat buffer, summed over
all processes with a single collective, and unpacked. The loss is already normalised by the
global batch, so a sum (not a mean) gives the global gradient.
"""

import torch


class GradientReducer:
    def __init__(self, device, params):
        self.device = device
        self.params = list(params)
        self.calls = 0  # collectives issued; tests compare it with the optimizer steps taken

    def reduce(self, scalars):
        """Sum gradients over processes in place; return the summed scalars (1-D tensor)."""
        local = torch.stack([s.reshape(()) for s in scalars])
        if not self.device.env.distributed:
            return local
        grads = []
        for p in self.params:
            if p.grad is None:  # keep the buffer layout the same on every process
                p.grad = torch.zeros_like(p)
            grads.append(p.grad.reshape(-1))
        dtype = grads[0].dtype
        flat = torch.cat(grads + [local.to(dtype)])
        self.device.all_reduce_sum_(flat)
        self.calls += 1
        offset = 0
        for p in self.params:
            n = p.numel()
            p.grad.copy_(flat[offset:offset + n].view_as(p.grad))
            offset += n
        return flat[offset:].to(local.dtype)
