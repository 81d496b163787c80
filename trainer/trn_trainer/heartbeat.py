"""Each rank's heartbeat for trn-run's watchdog (docs/recovery.md#heartbeats).

With $TRN_WATCH_DIR set (trn-run sets it for every training step), each rank keeps one file,
rank<R>.beat: a single JSON line of fixed size, rewritten in place (one pwrite, no rename) at
the start of every step, when it enters the step's gradient all-reduce, when the step is done
and when the process stops. It says where the rank is: the steps it completed, the phase
(compute, allreduce, done, exited, failed), since when, its compute time (from the step's start
to the all-reduce: what makes a straggler) and the median of it over the last window of steps.
A rank stopped mid-step (SIGSTOP, a hung device) keeps its last line, so the watchdog tells the
rank that never joined a collective from the ranks waiting in it. SIGUSR1 writes every thread's
Python stack to rank<R>.stack beside it (faulthandler), which trn-run asks for on a hang.
"""

import contextlib
import faulthandler
import json
import os
import signal
import socket
import statistics
import time

from .env_names import SLURMD_NODENAME, TRN_STRAGGLER_WINDOW, TRN_WATCH_DIR

LINE_BYTES = 512
DEFAULT_WINDOW = 10


def failure_text(error):
    """What a rank's heartbeat says it stopped on: the error's type and first line."""
    return f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"


class Heartbeat:
    def __init__(self, rank, env=None):
        env = os.environ if env is None else env
        self.directory = env.get(TRN_WATCH_DIR) or None
        self.rank = rank
        self.node = env.get(SLURMD_NODENAME) or socket.gethostname()
        try:
            self.window = max(1, int(env.get(TRN_STRAGGLER_WINDOW, DEFAULT_WINDOW)))
        except ValueError:
            self.window = DEFAULT_WINDOW
        self.step, self.phase, self.since = 0, "start", time.time()
        self.start_step = None  # the step it resumed from (its first step_done), for trn-run
        self._compute, self._window_index, self._window_median = [], 0, None
        self._step_started = None
        self._fd = self._stack_file = None
        if self.directory:
            os.makedirs(self.directory, exist_ok=True)
            self._fd = os.open(os.path.join(self.directory, f"rank{rank}.beat"),
                               os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            self._stack_file = open(os.path.join(self.directory, f"rank{rank}.stack"), "w")
            faulthandler.register(signal.SIGUSR1, file=self._stack_file, all_threads=True)
            self._write()

    def _write(self, error=None):
        if self._fd is None:
            return
        record = {"rank": self.rank, "node": self.node, "pid": os.getpid(), "step": self.step,
                  "phase": self.phase, "since": round(self.since, 3),
                  "compute_s": round(self._compute[-1], 6) if self._compute else None,
                  "window": self._window_index, "window_compute_s": self._window_median,
                  "start_step": self.start_step}
        if error:
            record["error"] = error[:240]
        line = json.dumps(record, separators=(",", ":")).encode()[:LINE_BYTES - 1]
        try:
            os.pwrite(self._fd, line.ljust(LINE_BYTES - 1) + b"\n", 0)
        except OSError:
            pass  # a full or gone watch folder costs the watchdog its view, never the run

    def _enter(self, phase):
        self.phase, self.since = phase, time.time()
        self._write()

    def step_started(self):
        self._step_started = time.perf_counter()
        self._enter("compute")

    def all_reduce_started(self):
        if self._step_started is not None:
            self._compute.append(time.perf_counter() - self._step_started)
            if len(self._compute) % self.window == 0:
                self._window_index += 1
                self._window_median = round(statistics.median(self._compute[-self.window:]), 6)
        self._enter("allreduce")

    def step_done(self, step):
        if self.start_step is None:
            self.start_step = step
        self.step = step
        self._enter("done")

    @contextlib.contextmanager
    def checkpointing(self):
        """Around a save the step waits for (a synchronous write, the previous save still in
        flight, the run's last one): trn-run's watchdog allows it the finish floor (600 s)
        rather than the hang deadline, so slow storage is not taken for a hang."""
        self._enter("checkpoint")
        try:
            yield
        finally:
            self._enter("done")

    def stopped(self, error=None):
        """The process ends: cleanly (error None) or with the error it stops on."""
        self.phase, self.since = ("failed" if error else "exited"), time.time()
        self._write(error)
        if self._fd is not None:
            faulthandler.unregister(signal.SIGUSR1)
            os.close(self._fd)
            self._stack_file.close()
            self._fd = None
