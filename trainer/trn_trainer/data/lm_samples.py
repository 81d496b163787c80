"""Packed LM samples (prepare_lm.py) in the world-size-invariant order of sampling.py: optimizer
step s takes stream positions [c, c + G); micro-step m of data-parallel rank r takes chunk
m * dp + r of them. The ranks of one tensor-parallel group read the same samples."""

import glob
import json
import os

import h5py
import numpy as np
import torch

from ..errors import DataError
from .sampling import GlobalOrder


class LmData:
    def __init__(self, folder, seed):
        self.paths = sorted(glob.glob(os.path.join(folder, "*_training_*.hdf5")))
        if not self.paths:
            raise DataError(f"--data {folder}: no *_training_*.hdf5 shards; make them with "
                            "python3 -m trn_trainer prepare-lm --input TEXT... --output DIR")
        self.shards = []
        for path in self.paths:
            try:
                with h5py.File(path, "r") as f:
                    self.shards.append(f["input_ids"][()])
            except (OSError, KeyError) as e:
                raise DataError(f"shard {path}: not a prepare-lm shard ({e}); re-create it with "
                                "prepare-lm") from None
        lengths = {s.shape[1] for s in self.shards}
        if len(lengths) != 1:
            raise DataError(f"--data {folder}: shards of different sequence lengths {sorted(lengths)}")
        self.seq_len = lengths.pop()
        self.order = GlobalOrder([len(s) for s in self.shards], seed)
        summary = os.path.join(folder, "prepare_lm.json")
        self.vocab_size = json.load(open(summary))["vocab_size"] if os.path.exists(summary) else None
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
