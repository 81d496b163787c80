"""Stop a run whose loss or weights are no longer sane: carrying on only burns the allocation,
and a checkpoint of blown-up weights would become the newest one, which every rerun resumes
from and diverges again.

A checkpoint's weights are judged before it is saved: finite, and no weight beyond
SANE_WEIGHT_LIMIT. An update at a learning rate orders of magnitude too high leaves finite
weights far beyond it (at --lr 1e9 one AdamW step moves every weight by about 1e9) whose loss
only turns non-finite a step later; no trained transformer's weights come near it.

Every rank sees the same reduced loss, gradient norm and weights, so every rank stops at the same
step with the same one-line error (trn-run's failure diagnosis reads that as a user error)."""

import math

import torch

from ..errors import DivergedError

SANE_WEIGHT_LIMIT = 1e4


def _advice(resume_hint):
    return f"lower --lr (or lengthen --warmup) and run again with the same --output: {resume_hint()}"


def check_step(step, loss, grad_norm, lr, resume_hint):
    """loss and grad_norm (None when not clipping): host floats the step log has already read,
    so this adds no device synchronisation. resume_hint() says where a rerun starts."""
    if not math.isfinite(loss):
        problem = f"the loss is {loss}"
    elif grad_norm is not None and not math.isfinite(grad_norm):
        problem = f"the gradient norm is {grad_norm}"
    else:
        return
    raise DivergedError(f"step {step}: {problem}, not finite, at learning rate {lr:.3g}: training "
                        f"diverged and stops without saving this step; {_advice(resume_hint)}")


def weights_health(params):
    """[whether every weight is finite, the largest |weight|] as one device tensor: computed in
    the step's own graph and read after it ran (check_weights), so the check costs no graph of
    its own on XLA."""
    finite = torch.stack([torch.isfinite(p.detach()).all() for p in params]).all()
    largest = torch.stack([p.detach().abs().max().float() for p in params]).max()
    return torch.stack([finite.to(largest.dtype), largest])


def check_weights(step, health, lr, resume_hint):
    """Before a checkpoint: the weights after `step` must be finite and within
    SANE_WEIGHT_LIMIT (one host read of `health`, from weights_health)."""
    finite, largest = (float(v) for v in health.float().cpu())
    if not finite:
        problem = "the weights are no longer finite, at a finite loss"
    elif largest > SANE_WEIGHT_LIMIT:
        problem = (f"a weight reached {largest:.3g}, beyond any trained model's ({SANE_WEIGHT_LIMIT:g}): "
                   f"the update at learning rate {lr:.3g} blew the weights up")
    else:
        return
    raise DivergedError(f"step {step}: {problem}: training diverged and stops without saving "
                        f"this step; {_advice(resume_hint)}")
