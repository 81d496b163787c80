"""The per-step record: one metrics.jsonl row (and TensorBoard scalars) per optimizer step, the
progress line every --log-every steps, and the step clock that times them."""

import math
import os
import time

from ..metrics import PHASES, MetricsFile, progress_line
from ..tensorboard_events import run_events

RECENT_STEPS_FOR_ETA = 20
TENSORBOARD_SCALARS = ("loss", "mlm_loss", "nsp_loss", "lr", "seq_per_s", "grad_norm")


class StepLog:
    def __init__(self, args, first_step, last_step, global_batch, started, write_files, say):
        """write_files: the process that writes metrics (rank 0, not extracting graphs);
        first_step: the step the run starts after (a resume appends to the files)."""
        self.log_every = args.log_every
        self.last_step = last_step
        self.global_batch = global_batch
        self.started = started
        self.say = say
        self.metrics = self.tensorboard = None
        if write_files:
            os.makedirs(args.output, exist_ok=True)
            self.metrics = MetricsFile(os.path.join(args.output, "metrics.jsonl"), first_step)
            self.tensorboard = run_events(args, first_step)
        self.step_times = []
        self.last_time = None

    def restart_clock(self):
        """The next step's time counts from now (step times leave checkpoint writes out)."""
        self.last_time = time.perf_counter()

    def record_many(self, steps):
        """Write and show the rows of the steps (step, sums, grad_norm, lr, timing, first) read
        at once - one step, or a few on a device that reads every --log-every steps - the time
        since the last record shared evenly among them. Returns each step's (loss, gradient norm
        or None) as read."""
        now = time.perf_counter()
        step_s = (now - self.last_time) / len(steps)
        self.last_time = now
        return [self._record(*entry, step_s) for entry in steps]

    def _record(self, step, sums, grad_norm, lr, timing, first, step_s):
        mlm, nsp = (float(v) for v in sums.detach().cpu().tolist())
        row = {
            "step": step, "loss": mlm + nsp, "mlm_loss": mlm, "nsp_loss": nsp, "lr": lr,
            "seq_per_s": self.global_batch / step_s, "step_time_s": step_s, "data_time_s": timing["data_s"],
            "sequences": self.global_batch, "time_s": time.time() - self.started,
            "grad_norm": None if grad_norm is None else float(grad_norm),
        }
        for phase in PHASES:
            if phase in timing:
                row[phase] = timing[phase]
        if first:
            row["first_of_run"] = True
        read = (row["loss"], row["grad_norm"])
        for key, value in row.items():  # metrics.jsonl stays strict JSON: null, never NaN
            if isinstance(value, float) and not math.isfinite(value):
                row[key] = None
        self.step_times.append(step_s)
        if self.metrics is not None:
            self.metrics.write(row)
        if self.tensorboard is not None:
            self.tensorboard.step(step, {key: row[key] for key in TENSORBOARD_SCALARS})
        if step % self.log_every == 0 or step == self.last_step or first:
            recent = self.step_times[-RECENT_STEPS_FOR_ETA:]
            eta = (self.last_step - step) * sum(recent) / len(recent)
            if row["loss"] is None:
                self.say(f"step {step}/{self.last_step} | loss is not finite | lr {lr:.3e}")
            else:
                self.say(progress_line(row, self.last_step, eta))
        return read

    def checkpoint_saved(self, step, stall_s):
        """What the step paid for a checkpoint save (the writer's stall), as a TensorBoard scalar."""
        if self.tensorboard is not None:
            self.tensorboard.checkpoint_stall(step, stall_s)

    def close(self):
        if self.metrics is not None:
            self.metrics.close()
        if self.tensorboard is not None:
            self.tensorboard.close()
