"""Fuzzes the LM data reader (trn_trainer/data/lm_samples.py): LmData on a folder holding a
prepare-lm shard from the fuzz bytes (raw HDF5 bytes, or built with fuzzed dtypes and shapes:
hdf5_builder.py), alone or twice (two shards), and the prepare_lm.json summary it reads the
vocabulary size from; then the first steps' micro-batches.

Contract: every problem is a DataError naming the file (pretrain-lm does not catch others); data
LmData accepts has a whole-number max_token and vocab_size (None or >= 1), since pretrain-lm
compares them, and gives micro-batches of [micro_batch, seq_len] tokens.

Usage: PYTHONPATH=trainer python fuzz_lm_samples.py [libFuzzer flags] [corpus...]"""

import os
import shutil
import sys

import atheris
import torch  # noqa: F401 - imported before the instrumented ones: only trn_trainer is instrumented

import harness_common
import hdf5_builder

with atheris.instrument_imports(include=["trn_trainer"]):
    from trn_trainer.data.lm_samples import LmData
    from trn_trainer.errors import DataError

WORK = harness_common.scratch()
SHARD = os.path.join(WORK, "fuzz_training_0.hdf5")
SECOND = os.path.join(WORK, "fuzz_training_1.hdf5")
SUMMARY = os.path.join(WORK, "prepare_lm.json")


def TestOneInput(data):
    """data: a mode byte (bit 0: write the summary, bit 1: raw shard bytes, else built, bit 2:
    the shard twice), the summary's length in one byte, the summary, the shard."""
    if len(data) < 2:
        return
    mode, end = data[0], 2 + data[1]
    if mode & 1:
        harness_common.write(SUMMARY, data[2:end])
    elif os.path.exists(SUMMARY):
        os.remove(SUMMARY)
    if mode & 2:
        harness_common.write(SHARD, data[end:])
    else:
        try:
            hdf5_builder.build(SHARD, atheris.FuzzedDataProvider(data[end:]), ("input_ids",))
        except (ValueError, TypeError, OSError):
            return  # h5py refused to write this combination: nothing to read
    if mode & 4:
        shutil.copyfile(SHARD, SECOND)
    elif os.path.exists(SECOND):
        os.remove(SECOND)
    if mode & 2 and hdf5_builder.crashes_libhdf5(lambda: hdf5_builder.small(SHARD) and LmData(WORK, seed=1)):
        return
    if not hdf5_builder.small(SHARD):
        return
    with harness_common.NoLeak():
        try:
            lm = LmData(WORK, seed=1)
        except DataError:
            return
        assert type(lm.max_token) is int
        assert lm.vocab_size is None or (type(lm.vocab_size) is int and lm.vocab_size >= 1), lm.vocab_size
        batches = lm.micro_batches(0, 2, 1, 1, 0) + lm.micro_batches(5, 2, 1, 2, 1)
        assert all(tuple(b.shape) == (1, lm.seq_len) for b in batches)


def main():
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
