"""HDF5 files made from fuzz input for the shard harnesses: random bytes rarely form HDF5, so
besides the raw bytes a harness also builds a valid file whose datasets have fuzzed dtypes,
shapes, kinds (group, link, empty) and attributes.

The trainer reads a shard whole into memory by design (sampling.ShardCache, LmData): a few
changed bytes of a chunked file declare gigabytes of fill values, a large shard rather than a
finding, so a harness leaves files declaring more than MAX_DECLARED bytes unread.

Some malformed files crash libhdf5 itself (a segmentation fault inside H5Oopen, from h5py's
File[...]): no check in the trainer can turn that into an error, so a harness first runs its
reader on raw bytes in a forked child (crashes_libhdf5) and leaves such inputs out."""

import os
import signal
import sys

import h5py
import numpy as np

DTYPES = ("i1", "u1", "i2", "i4", "i8", "u8", "f4", "f8", "?", "S4", "c8",
          [("a", "i4"), ("b", "f4")])


MAX_DECLARED = 64 << 20


def small(path):
    """Whether the datasets of the HDF5 file `path` declare at most MAX_DECLARED bytes in all. An
    object h5py cannot open is left out of the sum (the reader under test fails on it itself),
    but never hides a large dataset beside it: read_shard would read that one whole."""
    total = 0
    try:
        with h5py.File(path, "r") as f:
            for key in f:
                try:
                    item = f[key]
                    shape = getattr(item, "shape", None) or ()
                    total += int(np.prod(shape, dtype=object)) * item.dtype.itemsize
                except Exception:  # noqa: BLE001 - unreadable or no dataset: nothing to read
                    continue
    except Exception:  # noqa: BLE001 - unreadable: the reader under test says so itself
        pass
    return total <= MAX_DECLARED


_FATAL = (signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT, signal.SIGFPE, signal.SIGILL)
_crashes = 0


def crashes_libhdf5(read):
    """Whether read() dies of a signal (libhdf5 crashing) in a forked child; said once a run."""
    global _crashes
    pid = os.fork()
    if pid == 0:
        for sig in _FATAL:  # libFuzzer's handlers would report the child's death as the crash
            signal.signal(sig, signal.SIG_DFL)
        try:
            read()
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    if not os.WIFSIGNALED(status):
        return False
    _crashes += 1
    if _crashes == 1:
        print(f"hdf5_builder: libhdf5 died of signal {os.WTERMSIG(status)} on an input; such inputs are "
              "skipped", file=sys.stderr)
    return True


def build(path, fdp, keys):
    """An HDF5 file at `path` holding, per key of `keys` the fuzz input does not leave out, a
    dataset (or another kind of object) of fuzzed dtype and shape."""
    with h5py.File(path, "w") as f:
        for key in keys + ("extra",):
            kind = fdp.ConsumeIntInRange(0, 7)
            if kind == 0:
                continue  # missing
            if kind == 1:
                f.create_group(key).attrs["x"] = fdp.ConsumeInt(4)
            elif kind == 2:
                f[key] = h5py.SoftLink("/nowhere")
            elif kind == 3:
                f.create_dataset(key, data=h5py.Empty("i4"))
            else:
                dtype = np.dtype(fdp.PickValueInList(DTYPES))
                shape = tuple(fdp.ConsumeIntInRange(0, 5) for _ in range(fdp.ConsumeIntInRange(0, 3)))
                raw = fdp.ConsumeBytes(int(np.prod(shape)) * dtype.itemsize)
                raw += bytes(int(np.prod(shape)) * dtype.itemsize - len(raw))
                data = np.frombuffer(raw, dtype=dtype).reshape(shape)
                options = {"compression": "gzip"} if kind == 5 and shape and all(shape) else {}
                dataset = f.create_dataset(key, data=data, **options)
                if kind == 6:
                    dataset.attrs["note"] = fdp.ConsumeUnicodeNoSurrogates(8)
