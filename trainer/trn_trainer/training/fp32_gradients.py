"""A step's gradients summed over its micro-steps in fp32 when the model is bf16 (Neuron's recipe;
neuronx-distributed accumulates in fp32 with ZeRO-1): autograd alone would add each micro-step's
bf16 gradient into a bf16 one, and over tens of micro-steps (64 for llama2_7b on 4 nodes) a sum in
bf16 - 8 bits of mantissa - rounds away what the later ones add. After each backward the bf16
gradients are added into fp32 sums and dropped, so every micro-step runs the same graph; the
sums are the step's gradients. An fp32 model's own gradients are already fp32: they are used as
they are.
"""

import torch


class StepGradients:
    def __init__(self, params):
        self.params = list(params)
        self.fp32_sums = self.params[0].dtype == torch.bfloat16
        self.sums = None

    @torch.no_grad()
    def micro_step_done(self):
        """After a micro-step's backward: its gradients into the sums (bf16 model)."""
        if not self.fp32_sums:
            return
        if self.sums is None:
            self.sums = [p.grad.float() for p in self.params]
        else:
            for total, p in zip(self.sums, self.params):
                total.add_(p.grad)
        for p in self.params:
            p.grad = None

    def gradients(self):
        """The step's gradients, one per parameter in order: the fp32 sums, or the parameters'
        own (fp32) gradients."""
        return self.sums if self.fp32_sums else [p.grad for p in self.params]

    def step_done(self):
        """The next step sums anew (the parameters' own gradients the caller zeroes)."""
        self.sums = None
