"""TensorBoard event files of a training run, under its output folder's tensorboard/ (rank 0
writes them; `tensorboard --logdir OUTPUT/tensorboard` shows them). Scalars, by tag:

- train/*: each optimizer step's loss (and its parts), learning rate, throughput and gradient norm,
  the numbers metrics.jsonl holds for the same step;
- checkpoint/stall_s: what the step paid for each checkpoint save (the rest is written behind it);
- recovery/resumed_from_step: at the first step of a run that resumed, the step it resumed from
  (one point per recovery: a requeue, a spare node, a rerun).

A resumed run purges the events after the step it resumed from, as metrics.jsonl drops its rows."""

import math
import os

from .errors import EnvironmentSetupError


def run_events(args, resume_step):
    """The events of the run in args.output (resumed after `resume_step`, 0: a new run); None under
    --no-tensorboard."""
    if args.no_tensorboard:
        return None
    return TensorBoardEvents(os.path.join(args.output, "tensorboard"), resume_step)


class TensorBoardEvents:
    def __init__(self, directory, resume_step):
        try:
            from torch.utils.tensorboard import SummaryWriter
        except ImportError as e:
            raise EnvironmentSetupError(
                f"TensorBoard event files need the tensorboard package ({e}): install it into this "
                "Python (requirements.txt; scripts/bootstrap makes the project's environment) or pass "
                "--no-tensorboard") from None
        self.writer = SummaryWriter(log_dir=directory, purge_step=resume_step + 1 if resume_step else None)
        self.resume_step = resume_step

    def step(self, step, values):
        """values: {name: number or None} of one optimizer step, written as train/NAME."""
        if self.resume_step and step == self.resume_step + 1:
            self.writer.add_scalar("recovery/resumed_from_step", self.resume_step, step)
        for name, value in values.items():
            if isinstance(value, (int, float)) and math.isfinite(value):
                self.writer.add_scalar(f"train/{name}", value, step)

    def checkpoint_stall(self, step, seconds):
        self.writer.add_scalar("checkpoint/stall_s", seconds, step)

    def close(self):
        # flush() raises what the writer thread stopped on (a full file system); close() would
        # drop it, and the run would end with its events cut short, silently.
        try:
            self.writer.flush()
        finally:
            self.writer.close()
