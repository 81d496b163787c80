"""What a checkpoint holds: the state captured from a running trainer and put back on resume.
(checkpoint.py owns the files: names, atomic writes, pruning and loading.)"""

import torch


def _to_cpu(obj):
    if torch.is_tensor(obj):
        return obj.detach().cpu()
    if isinstance(obj, dict):
        return {k: _to_cpu(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_cpu(v) for v in obj)
    return obj


def capture(run, args, config, global_batch, to_host=None):
    """The checkpoint of `run` (a TrainingRun) after its latest step, on the host: every tensor
    goes through `to_host` (a copy into reused host buffers for background writes; on CPU the
    live tensors themselves for a write made at once); None: a plain copy to the CPU."""
    return (to_host or _to_cpu)({
        "step": run.step, "consumed_samples": run.consumed,
        "model": dict(run.model_state()),
        "optimizer": run.optimizer.state_dict(),
        "scheduler": run.schedule.state_dict(), "rng": run.device.rng_state(),
        "model_config": config.to_dict(), "model_name": args.model,
        "optimizer_name": args.optimizer, "global_batch": global_batch,
        "seed": args.seed,
    })


def restore(run, state):
    """Put a loaded checkpoint back into `run`: weights, optimizer, position and random state."""
    run.load_model_state(state["model"])
    run.optimizer.load_state_dict(state["optimizer"])
    run.step, run.consumed = int(state["step"]), int(state["consumed_samples"])
    if "rng" in state:
        run.device.set_rng_state(state["rng"])
