"""Checkpoints written in the background (docs/architecture.md#checkpoints).

The training step pays only for a snapshot of the state into host memory: one set of host
buffers, made at the first save and reused by every later one (pinned when CUDA can use that).
One writer thread then persists it with checkpoint.save (temporary file, fsync, rename, prune).
At most one save is in flight: a save due while the previous one is still being written is
skipped and counted, never queued, so host memory stays at one copy of the state. A write that
fails (a full disk, say) is reported and the previous checkpoint stays the newest.
"""

import os
import statistics
import threading
import time

import torch


class HostSnapshot:
    """The host buffers the state is copied into, reused from save to save."""

    def __init__(self):
        self._buffers = {}
        self._pin = torch.cuda.is_available()

    @property
    def nbytes(self):
        return sum(b.numel() * b.element_size() for b in self._buffers.values())

    def copy(self, obj, path=()):
        """`obj` (tensors in dicts, lists and tuples) with every tensor copied into its buffer."""
        if torch.is_tensor(obj):
            tensor = obj.detach()
            buffer = self._buffers.get(path)
            if buffer is None or buffer.shape != tensor.shape or buffer.dtype != tensor.dtype:
                buffer = torch.empty(tensor.shape, dtype=tensor.dtype, device="cpu",
                                     pin_memory=self._pin)
                self._buffers[path] = buffer
            buffer.copy_(tensor)
            return buffer
        if isinstance(obj, dict):
            return {k: self.copy(v, path + (k,)) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return type(obj)(self.copy(v, path + (i,)) for i, v in enumerate(obj))
        return obj


def _lower_this_threads_priority():
    """Linux schedules threads one by one: the writer yields the CPU to the training threads."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    except (AttributeError, OSError):  # not Linux, or not allowed: it only competes more
        pass


class CheckpointWriter:
    """save(step, state) -> path persists a checkpoint; capture(to_host) -> state builds one
    with every tensor passed through to_host. In sync mode the write happens in the step."""

    def __init__(self, save, say, sync=False):
        self._save, self._say, self._sync = save, say, sync
        self._snapshot = HostSnapshot()
        self._thread = None
        self.stalls, self.writes = [], []
        self.skipped = 0
        self.failed = 0
        self.uploads_failed = 0  # counted by the save function (the object-store tier)

    def busy(self):
        return self._thread is not None and self._thread.is_alive()

    def submit(self, step, capture, must=False):
        """Snapshot and write the checkpoint of `step`; False when skipped because the previous
        write is still running (`must`: wait for it instead, as for the run's last step)."""
        if self.busy():
            if not must:
                self.skipped += 1
                self._say(f"checkpoint at step {step} skipped: the previous one is still being written")
                return False
            self._thread.join()
        start = time.perf_counter()
        if self._sync:
            self._write(step, capture(lambda obj: obj))
        else:
            state = capture(self._snapshot.copy)
            self._thread = threading.Thread(target=self._write, args=(step, state),
                                            name="trn-checkpoint-writer", daemon=True)
            self._thread.start()
        self.stalls.append(time.perf_counter() - start)
        return True

    def _write(self, step, state):
        if not self._sync:
            _lower_this_threads_priority()
        start = time.perf_counter()
        try:
            path = self._save(step, state)
        except Exception as e:  # noqa: BLE001 - any failure leaves the previous checkpoint newest
            self.failed += 1
            self._say(f"warning: checkpoint at step {step} not written ({type(e).__name__}: {e}); "
                      "the previous checkpoint stays the newest")
            return
        took = time.perf_counter() - start
        self.writes.append(took)
        self._say(f"checkpoint {path} ({took:.2f} s{'' if self._sync else ' in the background'})")

    def wait(self):
        """Block until the write in flight (if any) is done."""
        if self._thread is not None:
            self._thread.join()

    def report(self):
        """For results.json: what the step paid per save, the writes, and what was skipped."""
        def median(values):
            return statistics.median(values) if values else None
        return {"mode": "sync" if self._sync else "async", "saves": len(self.stalls),
                "stall_median_s": median(self.stalls), "write_median_s": median(self.writes),
                "skipped_in_flight": self.skipped, "failed": self.failed,
                "uploads_failed": self.uploads_failed,
                "host_buffer_bytes": self._snapshot.nbytes}
