"""AdamW, LAMB and the warm-up + linear/polynomial decay schedule."""

import torch

from ..errors import UsageError

# The Neuron phase-1 recipes (docs/hardware.md#bert-reference).
DEFAULT_LR = {"adamw": 4e-4, "lamb": 6e-3}


def parameter_groups(named_params, weight_decay):
    """No weight decay for biases and LayerNorm parameters (as the BERT recipes do)."""
    decay, no_decay = [], []
    for name, p in named_params:
        (no_decay if name.endswith("bias") or "LayerNorm" in name else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


class Lamb(torch.optim.Optimizer):
    """LAMB (You et al. 2019) with bias correction; trust ratio ||w|| / ||update||, 1 where
    either norm is 0. Written with plain tensor ops so XLA traces it without host syncs."""

    def __init__(self, params, lr=6e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.01):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                state["step"] += 1
                t = state["step"]
                m, v = state["exp_avg"], state["exp_avg_sq"]
                m.mul_(beta1).add_(p.grad, alpha=1 - beta1)
                v.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                update = (m / (1 - beta1**t)) / ((v / (1 - beta2**t)).sqrt() + group["eps"])
                if group["weight_decay"]:
                    update.add_(p, alpha=group["weight_decay"])
                w_norm, u_norm = p.norm(), update.norm()
                trust = torch.where((w_norm > 0) & (u_norm > 0), w_norm / u_norm, torch.ones_like(w_norm))
                p.add_(update * trust, alpha=-group["lr"])
        return None


def build_optimizer(name, named_params, lr, weight_decay=0.01):
    groups = parameter_groups(named_params, weight_decay)
    if name == "adamw":
        return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.999), eps=1e-6, weight_decay=weight_decay)
    if name == "lamb":
        return Lamb(groups, lr=lr, weight_decay=weight_decay)
    raise UsageError(f"--optimizer {name!r}: choose adamw or lamb")


class WarmupDecay:
    """lr for optimizer step s (1-based): linear warm-up over `warmup` steps, then
    (1 - progress) ** power down to (almost) 0 at the last step; power 1 = linear."""

    def __init__(self, base_lr, warmup, total, power=1.0):
        self.base_lr, self.warmup, self.total, self.power = base_lr, warmup, total, power

    def lr(self, step):
        i = step - 1
        if i < self.warmup:
            return self.base_lr * (i + 1) / self.warmup
        span = max(self.total - self.warmup, 1)
        return self.base_lr * max(0.0, 1.0 - (i - self.warmup) / span) ** self.power

    def apply(self, optimizer, step):
        lr = self.lr(step)
        for group in optimizer.param_groups:
            group["lr"] = lr
        return lr

    def state_dict(self):
        return dict(base_lr=self.base_lr, warmup=self.warmup, total=self.total, power=self.power)


def warmup_steps(value, total):
    """--warmup: a number of steps, or below 1 a fraction of --steps."""
    if value < 0:
        raise UsageError(f"--warmup {value}: must be >= 0 (steps, or a fraction of --steps below 1)")
    return int(round(value * total)) if value < 1 else int(value)
