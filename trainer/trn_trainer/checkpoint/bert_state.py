"""What a checkpoint holds: the state captured from a running trainer and put back on resume.
(shards.py splits it among the ranks; files.py owns the files.)"""


def capture(run, args, config, global_batch):
    """The checkpoint of `run` (a TrainingRun) after its latest step, with its live tensors
    (nothing is copied here: the writer copies what this rank writes; the native path's sharded
    tensors are gathered whole, on every rank, which all call this together)."""
    return {
        "step": run.step, "consumed_samples": run.consumed,
        "model": dict(run.model_state()),
        "optimizer": run.optimizer_state(),
        "scheduler": run.schedule.state_dict(), "rng": run.device.rng_state(),
        "model_config": config.to_dict(), "model_name": args.model,
        "optimizer_name": args.optimizer, "global_batch": global_batch,
        "seed": args.seed,
    }


def restore(run, state):
    """Put a loaded checkpoint back into `run`: weights, optimizer, position and random state."""
    run.load_model_state(state["model"])
    run.load_optimizer_state(state["optimizer"])
    run.step, run.consumed = int(state["step"]), int(state["consumed_samples"])
    if "rng" in state:
        run.device.set_rng_state(state["rng"])
