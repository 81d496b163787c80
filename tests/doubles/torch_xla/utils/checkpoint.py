"""torch_xla.utils.checkpoint (TEST DOUBLE of
https://github.com/pytorch/xla/blob/v2.9.0/torch_xla/utils/checkpoint.py).

As the real one: checkpoint(function, *args, use_reentrant=True, preserve_rng_state=True) runs
`function` without keeping its activations (a reentrant autograd Function: the tensor inputs are
saved, the outputs computed under no_grad) and runs it again in the backward, after an
optimization barrier over its inputs (xm.optimization_barrier_: without it the compiler would
merge the recompute with the forward); use_reentrant=False and any other keyword are a
ValueError; a backward with no output requiring grad is a RuntimeError. The barrier is traced
into the pending graph and listed in the events ("optimization_barrier"), so tests see each
recompute on the device.
"""

import torch

from .._state import STATE


class _Checkpoint(torch.autograd.Function):
    @staticmethod
    def forward(ctx, function, preserve_rng_state, *args):
        ctx.function, ctx.preserve = function, preserve_rng_state
        if preserve_rng_state:
            ctx.cpu_state = torch.get_rng_state()
        ctx.inputs = [None if torch.is_tensor(a) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if torch.is_tensor(a)]
        ctx.save_for_backward(*[a for a in args if torch.is_tensor(a)])
        with torch.no_grad():
            return function(*args)

    @staticmethod
    def backward(ctx, *grads):
        inputs = list(ctx.inputs)
        for i, tensor in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = tensor
        STATE.events.append("optimization_barrier")
        STATE.trace("optimization_barrier", inputs)
        with torch.random.fork_rng(devices=[], enabled=ctx.preserve):
            if ctx.preserve:
                torch.set_rng_state(ctx.cpu_state)
            detached = [a.detach().requires_grad_(a.requires_grad) if torch.is_tensor(a) else a
                        for a in inputs]
            with torch.enable_grad():
                outputs = ctx.function(*detached)
        outputs = (outputs,) if torch.is_tensor(outputs) else outputs
        pairs = [(o, g) for o, g in zip(outputs, grads) if torch.is_tensor(o) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        torch.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(a.grad if torch.is_tensor(a) else None for a in detached)


def checkpoint(function, *args, use_reentrant=True, **kwargs):
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if not use_reentrant:
        raise ValueError("XLA currently does not support use_reentrant==False")
    return _Checkpoint.apply(function, preserve, *args)
