"""At most a few processes per node read a checkpoint at once.

Every worker of a resumed run loads the same checkpoint (for BERT-Large 1+ GB with the optimizer
state); 32 or 64 of them at once on one node multiply the host memory and the file system reads.
Neuron's training scripts load in turns for the same reason. The turns need no process group
(the load happens before it exists): each worker takes one of a few node-local file locks,
chosen by its local rank, for the time of its load.
"""

import contextlib
import fcntl
import os
import tempfile

DEFAULT_SLOTS = 4


@contextlib.contextmanager
def load_slot(local_rank, slots=DEFAULT_SLOTS, lock_dir=None):
    """Holds one of `slots` node-local locks (by local rank) while the block runs."""
    lock_dir = lock_dir or os.environ.get("TMPDIR") or tempfile.gettempdir()
    slot = local_rank % max(slots, 1)
    path = os.path.join(lock_dir, f"trn_trainer-load-{os.getuid()}-{slot}.lock")
    with open(path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield slot
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
