"""`Device`: the CPU device and the interface every device implements.

The training loop only calls the methods of `Device`; CUDA (cuda.py), XLA (xla.py) and the
native path's device (native.py) override what differs. Each imports this module and nothing
imports them back, so there is no import cycle.
"""

import contextlib

import torch
import torch.distributed as dist


class Device:
    """CPU by default; subclasses override what differs."""

    kind = "cpu"
    backend = "gloo"
    defers_reads = False  # reads step values every step (XLA: every --log-every steps)
    # A checkpoint's copy into host memory may run while the next step's forward and backward
    # passes read the weights (XLA: copied at once, after the step's graph ran).
    snapshot_overlaps = True

    def __init__(self, dist_env, dtype):
        self.env = dist_env
        self.dtype = dtype  # "fp32" or "bf16"
        self.torch_device = torch.device("cpu")

    # -- description --------------------------------------------------------------------
    def describe(self):
        return f"{self.kind} ({self.torch_device}), {self.dtype}, backend {self.backend}"

    def peak_flops(self):
        """(peak FLOP/s per process, what it is) or (None, why not known)."""
        return None, "no peak FLOP/s known for CPU; pass --peak-tflops to report MFU"

    # -- distribution ----------------------------------------------------------------------
    def init_process_group(self):
        if not self.env.distributed:
            return
        dist.init_process_group(
            backend=self.backend,
            init_method="env://",  # torchrun 2.x hands workers its own store this way
            rank=self.env.rank,
            world_size=self.env.world_size,
        )

    def all_reduce_sum_(self, tensor):
        """In-place sum over all processes."""
        dist.all_reduce(tensor, op=dist.ReduceOp.SUM)

    def all_reduce_gradients_(self, grads, scalars):
        """Sum the gradients (in place) and the 1-D tensor `scalars` over all processes, once
        per optimizer step; returns the summed scalars. Here: one flat buffer, one collective."""
        dtype = grads[0].dtype
        flat = torch.cat([g.reshape(-1) for g in grads] + [scalars.to(dtype)])
        self.all_reduce_sum_(flat)
        offset = 0
        for g in grads:
            n = g.numel()
            g.copy_(flat[offset:offset + n].view_as(g))
            offset += n
        return flat[offset:].to(scalars.dtype)

    def group_options(self, mesh):
        """new_group's pg_options for one group of `mesh` (every group of its kind, as lists of
        global ranks); None: the backend needs none."""
        return None

    def checkpoint(self, function, *args):
        """function(*args), its activations not kept for the backward but computed again there
        (activation checkpointing)."""
        import torch.utils.checkpoint

        return torch.utils.checkpoint.checkpoint(function, *args, use_reentrant=False)

    def tensor_parallel_mesh(self, world_size, tp_size):
        """The tensor-parallel groups (lists of global ranks) where the device's links need an
        order other than consecutive ranks; None: consecutive (lm_groups)."""
        return None

    def barrier(self):
        if self.env.distributed and dist.is_initialized():
            dist.barrier()

    def shutdown(self):
        if dist.is_available() and dist.is_initialized():
            dist.destroy_process_group()

    # -- execution -------------------------------------------------------------------------
    def prepare_model(self, model):
        """The model on this device, in the dtype it computes in (CUDA: fp32 under autocast)."""
        return model.to(self.torch_device)

    def autocast(self):
        return contextlib.nullcontext()

    def micro_batches(self, batches):
        """The step's micro-batches on the device, one at a time. (XLA: MpDeviceLoader, which
        uploads in the background and cuts the graph between micro-steps.)"""
        for batch in batches:
            yield {k: v.to(self.torch_device, non_blocking=True) for k, v in batch.items()}

    def step_end(self):
        """Called after each optimizer step (XLA cuts and launches its graph here)."""

    def after_step(self, fn, *args):
        """Run fn(*args) once the step's values are available (XLA defers, others run now)."""
        fn(*args)

    def synchronize(self):
        pass

    def manual_seed(self, seed):
        torch.manual_seed(seed)

    def rng_state(self):
        return {"torch": torch.get_rng_state()}

    def set_rng_state(self, state):
        if "torch" in state:
            torch.set_rng_state(state["torch"])

    def accumulate_dtype(self):
        """dtype of the running loss sums: float64 where the device has it cheaply."""
        return torch.float64
