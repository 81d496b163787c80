"""fp32 master weights for a model kept in bf16 on the device (Neuron's bf16 recipe).

The model computes in bf16; the optimizer updates fp32 copies of its parameters and keeps its
state (moments) in fp32, then writes the result back into the bf16 parameters. Small updates
that bf16 would round away accumulate in the copies. Checkpoints hold the fp32 copies.
"""

import torch


class MasterWeights:
    def __init__(self, named_params):
        self.names = [name for name, _ in named_params]
        self.model_params = [p for _, p in named_params]
        self.master = [p.detach().float().clone().requires_grad_(True) for p in self.model_params]

    def named(self):
        """(name, fp32 copy) pairs, for building the optimizer over the copies."""
        return list(zip(self.names, self.master))

    def step(self, optimizer, grads=None):
        """The optimizer step on the fp32 copies with the step's (reduced) gradients: `grads`, one
        per parameter (fp32 sums), else the model's own."""
        if getattr(optimizer, "takes_param_grads", True):  # ZeRO-1 reads the model's itself
            grads = grads if grads is not None else [p.grad for p in self.model_params]
            for g, m in zip(grads, self.master):
                m.grad = None if g is None else g.float()
        optimizer.step()
        with torch.no_grad():
            for p, m in zip(self.model_params, self.master):
                p.copy_(m)

    def state_dict(self, model):
        """The model's state with its parameters in fp32 (the copies)."""
        copies = {id(p): m.detach() for p, m in zip(self.model_params, self.master)}
        # keep_vars: the parameters themselves, so that a tied weight (listed under two names,
        # one parameter) gets its copy under both.
        return {name: copies.get(id(value), value.detach())
                for name, value in model.state_dict(keep_vars=True).items()}

    def load(self, state):
        """Copies and model from a checkpoint's fp32 weights."""
        with torch.no_grad():
            for name, p, m in zip(self.names, self.model_params, self.master):
                m.copy_(state[name])
                p.copy_(state[name])


class TrainedWeights:
    """A model on its device and what its optimizer steps: the parameters themselves, or for a
    bf16 model (XLA) the fp32 master copies, which checkpoints and saved models then hold."""

    def __init__(self, model):
        self.model = model
        named = list(model.named_parameters())
        self.params = [p for _, p in named]
        self.master = MasterWeights(named) if self.params[0].dtype == torch.bfloat16 else None
        self.stepped = self.master.named() if self.master else named  # build the optimizer over these

    def state(self):
        """The weights to save: fp32 (the master copies of a bf16 model)."""
        return self.master.state_dict(self.model) if self.master else self.model.state_dict()

    def load(self, state):
        self.model.load_state_dict(state)
        if self.master:
            self.master.load(state)

    def optimizer_step(self, optimizer, grads=None):
        """grads: the step's gradients when they are not the parameters' own (fp32 sums of a bf16
        model's, training/fp32_gradients.py)."""
        if self.master:
            self.master.step(optimizer, grads)
        else:
            optimizer.step()
