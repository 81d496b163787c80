"""Packed LM samples (prepare_lm.py) in the world-size-invariant order of sampling.py: optimizer
step s takes stream positions [c, c + G); micro-step m of data-parallel rank r takes chunk
m * dp + r of them. The ranks of one tensor-parallel group read the same samples."""

import glob
import os

import h5py
import numpy as np
import torch

from ..errors import DataError
from ..outside_files import json_loads
from .sampling import GlobalOrder


def _read_shard(path):
    """The [samples, seq_len] token ids of a prepare-lm shard, or a DataError naming it."""
    try:
        with h5py.File(path, "r") as f:
            ids = f["input_ids"][()]
    except Exception as e:  # h5py raises OSError, KeyError, ValueError... for a file it cannot read
        raise DataError(f"shard {path}: not a prepare-lm shard ({e}); re-create it with prepare-lm") from None
    if (not isinstance(ids, np.ndarray) or ids.ndim != 2 or not ids.size
            or not np.issubdtype(ids.dtype, np.integer)):
        raise DataError(f"shard {path}: input_ids is a {getattr(ids, 'dtype', type(ids).__name__)} of shape "
                        f"{getattr(ids, 'shape', None)}, not token ids [samples, seq_len]; re-create it with "
                        "prepare-lm")
    if ids.min() < 0:
        raise DataError(f"shard {path}: holds the token id {ids.min()}; re-create it with prepare-lm")
    return ids


def _vocab_size(path):
    """The vocab_size of prepare-lm's summary `path`, None when there is none."""
    if not os.path.exists(path):
        return None
    try:
        with open(path, "rb") as f:
            summary = json_loads(f.read())
    except (OSError, ValueError) as e:
        raise DataError(f"{path}: cannot be read ({e}); re-create the data with prepare-lm") from None
    vocab_size = summary.get("vocab_size") if isinstance(summary, dict) else None
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1:
        raise DataError(f"{path}: vocab_size {vocab_size!r} is not a whole number >= 1; re-create the data "
                        "with prepare-lm")
    return vocab_size


class LmData:
    def __init__(self, folder, seed):
        self.paths = sorted(glob.glob(os.path.join(folder, "*_training_*.hdf5")))
        if not self.paths:
            raise DataError(f"--data {folder}: no *_training_*.hdf5 shards; make them with "
                            "python3 -m trn_trainer prepare-lm --input TEXT... --output DIR")
        self.shards = [_read_shard(path) for path in self.paths]
        lengths = {s.shape[1] for s in self.shards}
        if len(lengths) != 1:
            raise DataError(f"--data {folder}: shards of different sequence lengths {sorted(lengths)}")
        self.seq_len = lengths.pop()
        self.order = GlobalOrder([len(s) for s in self.shards], seed)
        self.vocab_size = _vocab_size(os.path.join(folder, "prepare_lm.json"))
        self.max_token = max(int(s.max()) for s in self.shards)

    def micro_batches(self, consumed, global_batch, micro_batch, dp_size, dp_rank):
        """The data-parallel rank's micro-batches [micro_batch, seq_len] of the step starting at
        stream position `consumed`."""
        accumulation = global_batch // (micro_batch * dp_size)
        batches = []
        for m in range(accumulation):
            start = consumed + (m * dp_size + dp_rank) * micro_batch
            shards, rows = self.order.locate(np.arange(start, start + micro_batch))
            batch = np.stack([self.shards[s][r] for s, r in zip(shards, rows)])
            batches.append(torch.from_numpy(batch.astype(np.int64)))
        return batches
