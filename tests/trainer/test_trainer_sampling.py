import re

import h5py
import numpy as np
import pytest
import torch

from trn_trainer.data.sampling import GlobalOrder, StepLoader
from trn_trainer.data.bert_shards import open_shards
from trn_trainer.errors import DataError


def test_each_epoch_visits_every_sample_once():
    order = GlobalOrder([5, 3, 7], seed=1)
    for epoch in range(2):
        shards, rows = order.locate(np.arange(epoch * 15, (epoch + 1) * 15))
        pairs = sorted(zip(shards.tolist(), rows.tolist()))
        assert pairs == sorted((s, r) for s, n in enumerate([5, 3, 7]) for r in range(n))
    first = np.stack(order.locate(np.arange(15)))
    second = np.stack(order.locate(np.arange(15, 30)))
    assert not np.array_equal(first, second), "epochs are shuffled differently"
    again = GlobalOrder([5, 3, 7], seed=1).locate(np.arange(40))
    assert all((a == b).all() for a, b in zip(again, order.locate(np.arange(40))))


def _step_samples(shard_set, world, micro, accumulation, step_start):
    """(input_ids rows, sample seeds) of one global batch, in global order, over all ranks."""
    chunks = {}
    for rank in range(world):
        loader = StepLoader(shard_set, 3, micro, world, rank, accumulation, 10**6)
        micro_batches, tokens = loader.step(step_start)
        loader.close()
        for m, mb in enumerate(micro_batches):
            chunks[m * world + rank] = (mb["input_ids"], mb["sample_seeds"], mb["masked_lm_labels"], tokens)
    ordered = [chunks[c] for c in sorted(chunks)]
    ids = torch.cat([c[0] for c in ordered])
    seeds = torch.cat([c[1] for c in ordered])
    labels = torch.cat([c[2] for c in ordered])
    return ids, seeds, labels, {c[3] for c in ordered}


def test_global_batches_do_not_depend_on_world_size(corpus_dir):
    shard_set = open_shards(corpus_dir)
    assert len(shard_set.paths) == 2  # fewer shards than the 4 ranks below
    global_batch = 16
    for start in (0, 16 * 40, shard_set.total - 5):  # includes a batch that wraps the epoch
        reference = _step_samples(shard_set, 1, 2, 8, start)
        for world, micro, accumulation in ((2, 2, 4), (4, 2, 2), (4, 4, 1), (2, 8, 1)):
            assert micro * world * accumulation == global_batch
            got = _step_samples(shard_set, world, micro, accumulation, start)
            assert torch.equal(got[0], reference[0]) and torch.equal(got[1], reference[1])
            assert torch.equal(got[2], reference[2])
            assert got[3] == reference[3] and len(got[3]) == 1, "every rank sees the global token count"
        assert reference[0].shape == (global_batch, 128)
        assert (reference[2] >= 0).sum().item() == next(iter(reference[3]))


@pytest.mark.parametrize("input_ids, message", [
    (np.zeros((2, 4), "f4"), "input_ids (float32) hold(s) no token ids"),
    (h5py.Empty("i4"), "inconsistent shapes"),
])
def test_a_shard_without_token_ids_is_one_data_error(tmp_path, input_ids, message):
    with h5py.File(tmp_path / "x_training_0.hdf5", "w") as f:
        f["input_ids"] = input_ids
        for key, shape in (("input_mask", (2, 4)), ("segment_ids", (2, 4)), ("masked_lm_positions", (2, 1)),
                           ("masked_lm_ids", (2, 1)), ("next_sentence_labels", (2,))):
            f[key] = np.zeros(shape, "i4")
    with pytest.raises(DataError, match=re.escape(message)):
        open_shards(str(tmp_path))


def test_a_shard_whose_chunks_contradict_its_shape_is_refused_unread(tmp_path):
    """The fuzzer's file: segment_ids of shape (3,) stored in (3, 8) chunks. libhdf5 spins for
    minutes reading it; the shard is refused from its metadata, by open_shards and read_shard."""
    import shutil
    import signal
    from trn_trainer.data.bert_shards import read_shard
    from trainer_testlib import ROOT
    fuzz_input = f"{ROOT}/tests/fuzz/regressions/fuzz_bert_shards/chunks_of_another_rank_than_the_shape"
    shard = tmp_path / "fuzz_training_0.hdf5"
    with open(fuzz_input, "rb") as source, open(shard, "wb") as target:
        source.read(1)  # the harness's mode byte: the rest is the file
        shutil.copyfileobj(source, target)

    # libhdf5 spins in C, where no Python handler runs: a hang ends the process (SIGALRM's default).
    previous = signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.alarm(20)
    try:
        with pytest.raises(DataError, match=re.escape("segment_ids's storage (chunks (3, 8)) does not match "
                                                      "its shape (3,)")):
            open_shards(str(tmp_path))
        with pytest.raises(DataError, match="does not match its shape"):
            read_shard(str(shard))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
