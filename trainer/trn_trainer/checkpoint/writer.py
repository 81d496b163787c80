"""Checkpoints written in the background (docs/checkpoints.md#async).

The training step pays only for a snapshot of this rank's share of the state into host memory:
one set of host buffers, made at the first save and reused by every later one (pinned when CUDA
can use that). Where the device allows it (CPU, CUDA) even the copy overlaps the next step's
forward and backward passes, which only read the weights: the step waits for it (fence) only
before the optimizer changes them. On XLA the copy is made at once, after the step's graph ran.
One writer thread then persists the share (tiers.py). At most one save is in flight: a
save due while any rank still writes the previous one is skipped on every rank and counted,
never queued, so host memory stays at one copy of the share. A failed write is reported and the
previous checkpoint stays the newest.
"""

import os
import statistics
import threading
import time

import torch

from .tensor_tree import map_tensors


class HostSnapshot:
    """The host buffers the state is copied into, reused from save to save (by position in the
    state's fixed traversal order)."""

    def __init__(self):
        self._buffers = []
        self._pin = torch.cuda.is_available()

    @property
    def nbytes(self):
        return sum(b.numel() * b.element_size() for b in self._buffers)

    def copy(self, obj):
        """`obj` (tensors in dicts, lists and tuples) with every tensor copied into its buffer."""
        position = iter(range(1 << 62))

        def into_buffer(tensor):
            i = next(position)
            tensor = tensor.detach()
            if i == len(self._buffers):
                self._buffers.append(None)
            buffer = self._buffers[i]
            if buffer is None or buffer.shape != tensor.shape or buffer.dtype != tensor.dtype:
                buffer = torch.empty(tensor.shape, dtype=tensor.dtype, device="cpu",
                                     pin_memory=self._pin)
                self._buffers[i] = buffer
            buffer.copy_(tensor)
            return buffer

        return map_tensors(obj, into_buffer)


def _on_host(tensor):
    return tensor if tensor.device.type == "cpu" else tensor.detach().cpu()


def _lower_this_threads_priority():
    """Linux schedules threads one by one: the writer yields the CPU to the training threads."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    except (AttributeError, OSError):  # not Linux, or not allowed: it only competes more
        pass


class CheckpointWriter:
    """submit(step, capture) saves a checkpoint: capture() returns this rank's share with live
    tensors, persist(step, share) writes it to every tier and returns its path. `group` makes
    the skip decision common to all ranks. mode: "sync" (written in the step) or "async"
    (written in the background); overlap: the async copy runs while the next step computes.
    what: "checkpoint", or "snapshot" for the peer snapshots' own writer (peers.py),
    whose saves are counted, not announced, never wait for the checkpoints' writes, and are
    written at normal priority: the next snapshot waits for this one (submit with must)."""

    def __init__(self, persist, say, group, mode="async", overlap=False, what="checkpoint"):
        self._persist, self._say, self._group, self._mode = persist, say, group, mode
        self.what = what
        self._overlap = overlap and mode == "async"
        self._snapshot = HostSnapshot()
        self._thread = None
        self._copied = threading.Event()
        self._copied.set()
        self.stalls, self.writes = [], []
        self.skipped = 0
        self.failed = 0
        self.failed_steps = []

    def busy(self):
        return self._thread is not None and self._thread.is_alive()

    def submit(self, step, capture, must=False):
        """Snapshot and write the checkpoint of `step`; False when skipped because a rank still
        writes the previous one (`must`: wait for it instead, as for the run's last step; the
        wait counts as this save's stall)."""
        start = time.perf_counter()
        if must:
            self.wait()
        elif self._group.any_rank(self.busy()):
            self.skipped += 1
            self._say(f"checkpoint at step {step} skipped: the previous one is still being written")
            return False
        if self._mode == "sync":
            self._write(step, map_tensors(capture(), _on_host))
        else:
            live = capture()
            if self._overlap:
                self._copied.clear()
            else:
                live = self._snapshot.copy(live)
            self._thread = threading.Thread(target=self._copy_and_write, args=(step, live),
                                            name="trn-checkpoint-writer", daemon=True)
            self._thread.start()
        self.stalls.append(time.perf_counter() - start)
        return True

    def fence(self):
        """Called before the weights change (the optimizer step): waits for an overlapped copy
        still running; the wait counts as that save's stall."""
        if not self._copied.is_set():
            start = time.perf_counter()
            self._copied.wait()
            self.stalls[-1] += time.perf_counter() - start

    def _copy_and_write(self, step, share):
        if not self._copied.is_set():
            try:
                share = self._snapshot.copy(share)
            except Exception as e:  # noqa: BLE001 - persist reports it, with every rank
                share = e
            finally:
                self._copied.set()
        if self.what == "checkpoint":
            _lower_this_threads_priority()
        self._write(step, share)

    def _write(self, step, share):
        start = time.perf_counter()
        try:
            path = self._persist(step, share)
        except Exception as e:  # noqa: BLE001 - any failure leaves the previous checkpoint newest
            self.failed += 1
            self.failed_steps.append(step)
            self._say(f"warning: {self.what} at step {step} not written ({type(e).__name__}: {e}); "
                      f"the previous {self.what} stays the newest")
            return
        took = time.perf_counter() - start
        self.writes.append(took)
        if self.what == "checkpoint":
            where = "" if self._mode == "sync" else " in the background"
            self._say(f"checkpoint {path} ({took:.2f} s{where})")

    def wait(self):
        """Block until the save in flight (if any) is written."""
        if self._thread is not None:
            self._thread.join()

    def report(self):
        """For results.json: what the step paid per save, the writes, and what was skipped."""
        def median(values):
            return statistics.median(values) if values else None
        return {"mode": self._mode, "snapshot_overlaps_step": self._overlap, "saves": len(self.stalls),
                "stall_median_s": median(self.stalls), "write_median_s": median(self.writes),
                "skipped_in_flight": self.skipped, "failed": self.failed,
                "host_buffer_bytes": self._snapshot.nbytes}
