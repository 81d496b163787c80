"""Stop a run whose loss or weights are no longer finite: carrying on only burns the allocation,
and a checkpoint of NaN weights would replace the last good one that a resume needs.

Every rank sees the same reduced loss, gradient norm and weights, so every rank stops at the same
step with the same one-line error (trn-run's failure diagnosis reads that as a user error)."""

import math

import torch

from ..errors import DivergedError

_ADVICE = ("lower --lr (or lengthen --warmup) and run again: it resumes from the newest checkpoint "
           "in --output, all of them from earlier, finite steps")


def check_step(step, loss, grad_norm, lr):
    """loss and grad_norm (None when not clipping): host floats the step log has already read,
    so this adds no device synchronisation."""
    if not math.isfinite(loss):
        problem = f"the loss is {loss}"
    elif grad_norm is not None and not math.isfinite(grad_norm):
        problem = f"the gradient norm is {grad_norm}"
    else:
        return
    raise DivergedError(f"step {step}: {problem}, not finite, at learning rate {lr:.3g}: training "
                        f"diverged and stops without saving this step; {_ADVICE}")


def weights_finite(params):
    """Whether every weight is finite, as a device tensor: computed in the step's own graph and
    read after it ran (check_weights), so the check costs no graph of its own on XLA."""
    return torch.stack([torch.isfinite(p.detach()).all() for p in params]).all()


def check_weights(step, finite):
    """Before a checkpoint: the weights after `step` must all be finite (one host read of
    `finite`, from weights_finite)."""
    if not bool(finite):
        raise DivergedError(f"step {step}: the weights are no longer finite, at a finite loss: "
                            f"training diverged and stops without saving this step; {_ADVICE}")
