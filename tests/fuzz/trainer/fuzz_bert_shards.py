"""Fuzzes the BERT shard readers (trn_trainer/data/bert_shards.py): open_shards, which checks a
shard's metadata (keys, shapes) before training, and read_shard, which loads it, on an HDF5 file
from the fuzz bytes (raw, or built with fuzzed dtypes, shapes and kinds: hdf5_builder.py).

Contract: every problem is a DataError naming the shard (pretrain prints it as one line; the
loader's read_shard may find a corrupt chunk open_shards did not read); a shard open_shards
accepts reads back with the shapes it reported and integer tokens, since sampling.StepLoader
takes it as such.

Usage: PYTHONPATH=trainer python fuzz_bert_shards.py [libFuzzer flags] [corpus...]"""

import os
import sys

import atheris
import numpy as np

import harness_common
import hdf5_builder

with atheris.instrument_imports(include=["trn_trainer"]):
    from trn_trainer.data import bert_shards
    from trn_trainer.errors import DataError

WORK = harness_common.scratch()
SHARD = os.path.join(WORK, "fuzz_training_0.hdf5")


def check(path):
    try:
        shard_set = bert_shards.open_shards(WORK)
    except DataError:
        shard_set = None
    try:
        arrays = bert_shards.read_shard(path)
    except DataError:
        return
    if shard_set is None:
        return
    n, s, p = shard_set.lengths[0], shard_set.seq_len, shard_set.max_pred
    expected = {"input_ids": (n, s), "input_mask": (n, s), "segment_ids": (n, s),
                "masked_lm_positions": (n, p), "masked_lm_ids": (n, p), "next_sentence_labels": (n,)}
    for key, shape in expected.items():
        assert arrays[key].shape == shape, (key, arrays[key].shape, shape)
        assert np.issubdtype(arrays[key].dtype, np.integer), (key, arrays[key].dtype)


def TestOneInput(data):
    if not data:
        return
    with harness_common.NoLeak():
        if data[0] & 1:
            harness_common.write(SHARD, data[1:])
            if hdf5_builder.crashes_libhdf5(lambda: hdf5_builder.small(SHARD) and check(SHARD)):
                return
        else:
            try:
                hdf5_builder.build(SHARD, atheris.FuzzedDataProvider(data[1:]), bert_shards.KEYS)
            except (ValueError, TypeError, OSError):
                return  # h5py refused to write this combination: nothing to read
        if hdf5_builder.small(SHARD):
            check(SHARD)


def main():
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
