"""Finding and checking the HDF5 training shards before anything is written."""

import dataclasses
import glob
import os

import h5py
import numpy as np

from ..errors import DataError

KEYS = ("input_ids", "input_mask", "segment_ids", "masked_lm_positions", "masked_lm_ids",
        "next_sentence_labels")
DEFAULT_PATTERN = "*_training_*.hdf5"


@dataclasses.dataclass(frozen=True)
class ShardSet:
    paths: tuple
    lengths: tuple
    seq_len: int
    max_pred: int

    @property
    def total(self):
        return sum(self.lengths)


def find_shards(data_dir, pattern=DEFAULT_PATTERN):
    directory = os.path.abspath(data_dir)
    if not os.path.isdir(directory):
        raise DataError(f"--data {directory}: not a directory; give the folder holding the "
                        f"{pattern} shards (python3 -m trn_trainer prepare-data makes them)")
    paths = sorted(glob.glob(os.path.join(directory, pattern)))
    if not paths:
        present = sorted(os.listdir(directory))
        held = f"it holds {len(present)} entries" + (f", e.g. {', '.join(present[:3])}" if present else "")
        raise DataError(f"no training shards: no file matches the pattern {pattern!r} in the "
                        f"directory {directory} ({held}); point --data at the folder of NVIDIA-"
                        "format shards, change --pattern, or run python3 -m trn_trainer prepare-data")
    return paths


def _check_layout(path, f):
    """DataError unless every dataset's chunks (when chunked) have its shape's rank and no empty
    side: libhdf5 loops for minutes reading a dataset whose chunk dimensions contradict its shape
    (found by tests/fuzz/trainer/fuzz_bert_shards.py), so such a file is refused unread."""
    for key in KEYS:
        shape, chunks = f[key].shape or (), f[key].chunks
        if chunks is not None and (len(chunks) != len(shape) or min(chunks, default=1) < 1):
            raise DataError(f"shard {path}: {key}'s storage (chunks {chunks}) does not match its shape "
                            f"{shape}: the file is damaged; re-create it with prepare-data")


def _check_shard(path):
    try:
        with h5py.File(path, "r") as f:
            missing = [k for k in KEYS if k not in f]
            if missing:
                raise DataError(f"shard {path}: lacks the key(s) {', '.join(missing)}; a BERT shard "
                                f"holds {', '.join(KEYS)}; re-create it with prepare-data")
            _check_layout(path, f)
            # An empty dataset (h5py.Empty) has the shape None: as a scalar's, not [N, ...].
            shapes = {k: f[k].shape or () for k in KEYS}
            not_integers = [f"{k} ({f[k].dtype})" for k in KEYS if not np.issubdtype(f[k].dtype, np.integer)]
    except DataError:
        raise
    except Exception as e:  # h5py raises OSError for a truncated file, others for odd content
        raise DataError(f"shard {path}: cannot be read as HDF5 ({e}); re-create it or move it out "
                        "of the data folder") from None
    if not_integers:
        raise DataError(f"shard {path}: {', '.join(not_integers)} hold(s) no token ids (integers); "
                        "re-create it with prepare-data")
    n = shapes["input_ids"][0] if len(shapes["input_ids"]) == 2 else -1
    ok = (
        n > 0
        and shapes["input_mask"] == shapes["input_ids"]
        and shapes["segment_ids"] == shapes["input_ids"]
        and len(shapes["masked_lm_positions"]) == 2
        and shapes["masked_lm_positions"][0] == n
        and shapes["masked_lm_ids"] == shapes["masked_lm_positions"]
        and shapes["next_sentence_labels"] == (n,)
    )
    if not ok:
        raise DataError(f"shard {path}: inconsistent shapes {shapes}; expected input_ids, input_mask, "
                        "segment_ids [N, S], masked_lm_positions, masked_lm_ids [N, P], "
                        "next_sentence_labels [N] with N > 0")
    return n, shapes["input_ids"][1], shapes["masked_lm_positions"][1]


def open_shards(data_dir, pattern=DEFAULT_PATTERN):
    paths = find_shards(data_dir, pattern)
    lengths, seq_len, max_pred = [], None, None
    for path in paths:
        n, s, p = _check_shard(path)
        if seq_len is None:
            seq_len, max_pred = s, p
        elif (s, p) != (seq_len, max_pred):
            raise DataError(f"shard {path}: sequence length {s} / max predictions {p} differ from "
                            f"{paths[0]} ({seq_len} / {max_pred}); keep one phase's shards per folder")
        lengths.append(n)
    return ShardSet(tuple(paths), tuple(lengths), seq_len, max_pred)


def read_shard(path):
    """Whole shard into memory (the loader prefetches the next one in the background)."""
    try:
        with h5py.File(path, "r") as f:
            _check_layout(path, f)
            return {k: f[k][()] for k in KEYS}
    except DataError:
        raise
    except Exception as e:
        raise DataError(f"shard {path}: cannot be read as HDF5 ({e}); re-create it or move it out "
                        "of the data folder") from None
