"""pretrain-lm's record of each step: metrics.jsonl, TensorBoard and the console line.

Reading a step's loss or gradient norm on the host waits for the device. A device that defers
reads (XLA: docs/hardware.md#torch-xla) has them read for --log-every steps at once, once the
step's graph ran (Device.after_step), and always on the step before a checkpoint and the last;
the others read every step. The time since the last read is shared evenly among the steps read
together, as the BERT trainer's log does (tasks/pretrain_log.py).
"""

import json
import time


class LmStepLog:
    def __init__(self, args, device, seq_len, metrics, events, main):
        self.args, self.device, self.seq_len = args, device, seq_len
        self.metrics, self.events, self.main = metrics, events, main
        self.losses = []  # every step's loss as read, in order
        self.unread = []  # (step, loss, gradient norm, learning rate) not read yet
        self.last_time = time.perf_counter()

    def step(self, step, loss, norm, lr, read_now=False, extra=None):
        """Keep this step's values (device tensors) and, when `read_now` or the device reads
        every step, have them and those kept before read. Before the step's graph is cut.
        extra: more host values for the step's metrics row."""
        self.unread.append((step, loss.detach(), norm.detach(), lr, extra or {}))
        if read_now or not self.device.defers_reads:
            self.device.after_step(self._read, self.unread)
            self.unread = []

    def restart_clock(self):
        """After a checkpoint: its time is not a step's."""
        self.last_time = time.perf_counter()

    def _read(self, steps):
        now = time.perf_counter()
        seconds = (now - self.last_time) / len(steps)
        self.last_time = now
        tokens_per_s = self.args.global_batch * self.seq_len / seconds
        for step, loss, norm, lr, extra in steps:
            self.losses.append(loss.item())
            row = {"loss": self.losses[-1], "lr": lr, "grad_norm": norm.item(), "tokens_per_s": tokens_per_s,
                   **extra}
            if self.metrics is not None:
                self.metrics.write(json.dumps({"step": step, **row, "step_time_s": seconds}) + "\n")
                self.metrics.flush()
            if self.events is not None:
                self.events.step(step, row)
            if self.main and (step % self.args.log_every == 0 or step in (1, self.args.steps)):
                print(f"step {step}/{self.args.steps} | loss {self.losses[-1]:.4f} | lr {lr:.3e} | "
                      f"{tokens_per_s:,.0f} tokens/s", flush=True)
