"""Exactly one all-reduce per optimizer step.

Gradients accumulate locally over the micro-steps (no communication there). After the last
micro-step every gradient and the step's loss sums are summed over all processes together: one
flat buffer and one collective on CPU and CUDA, the gradient list in place on XLA (the device
decides, `Device.all_reduce_gradients_`). The loss is already normalised by the
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
            grads.append(p.grad)
        self.calls += 1
        return self.device.all_reduce_gradients_(grads, local)
