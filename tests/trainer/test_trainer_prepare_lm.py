"""prepare-lm: a corpus becomes packed causal-LM samples (docs/llama.md#data) with a SentencePiece
tokenizer trained from it or the user's own; bad input is one clear error with the trainer's exit
status for it (2 usage, 3 data: errors.py)."""

import json
import os
import re

import h5py
import numpy as np
import pytest
import sentencepiece as spm

from trainer_testlib import FORTUNES
from trn_trainer.cli import main

SEQ = 64


def prepare(output, *extra):
    return main(["prepare-lm", "--input", FORTUNES, "--output", str(output), "--seq-len", str(SEQ),
                 "--vocab-size", "400", *extra])


@pytest.fixture(scope="module")
def lm_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("lm")
    assert prepare(out) == 0
    return out


def samples(folder, pattern="training"):
    names = sorted(n for n in os.listdir(folder) if pattern in n and n.endswith(".hdf5"))
    arrays = []
    for name in names:
        with h5py.File(os.path.join(folder, name), "r") as f:
            assert list(f) == ["input_ids"] and f["input_ids"].dtype == np.int32
            arrays.append(f["input_ids"][()])
    return np.concatenate(arrays)


def test_documents_are_packed_into_full_samples_separated_by_eos(lm_dir):
    summary = json.load(open(os.path.join(lm_dir, "prepare_lm.json")))
    train, test = samples(lm_dir), samples(lm_dir, "test")
    assert train.shape == (summary["training_samples"], SEQ) and test.shape[1] == SEQ
    assert summary["tokens"] // SEQ == len(train) + len(test)  # only the last partial sample dropped
    tokenizer = spm.SentencePieceProcessor(model_file=os.path.join(lm_dir, "tokenizer.model"))
    assert tokenizer.vocab_size() == summary["vocab_size"] == 400
    assert (tokenizer.bos_id(), tokenizer.eos_id()) == (1, 2)  # Llama's special tokens
    stream = np.concatenate([train.ravel(), test.ravel()])
    assert train.max() < 400 and train.min() >= 0
    # Every document ends with EOS: the stream holds one per document it covers.
    assert 0 < (stream == 2).sum() <= summary["documents"]
    first_document = tokenizer.decode(stream[:np.argmax(stream == 2)].tolist())
    with open(os.path.join(FORTUNES, "fortunes"), encoding="utf-8") as f:
        assert " ".join(f.read().split("\n%\n")[0].split()).startswith(first_document[:40])


def test_the_same_corpus_gives_the_same_tokenizer_and_samples(lm_dir, tmp_path):
    assert prepare(tmp_path) == 0
    with open(os.path.join(lm_dir, "tokenizer.model"), "rb") as a:
        with open(tmp_path / "tokenizer.model", "rb") as b:
            assert a.read() == b.read()
    assert np.array_equal(samples(lm_dir), samples(tmp_path))


def test_a_users_tokenizer_is_used_and_kept(lm_dir, tmp_path):
    assert prepare(tmp_path, "--tokenizer", os.path.join(lm_dir, "tokenizer.model"), "--num-shards", "3") == 0
    assert np.array_equal(samples(lm_dir), samples(tmp_path))
    summary = json.load(open(tmp_path / "prepare_lm.json"))
    assert summary["tokenizer"] == os.path.join(lm_dir, "tokenizer.model") and len(summary["shards"]) == 4


@pytest.mark.parametrize("extra, status, message", [
    (["--seq-len", "8"], 2, "--seq-len 8: must be between 16 and 32768"),
    (["--vocab-size", "10"], 2, "--vocab-size 10: must be between 64 and 256000"),
    (["--tokenizer", "/none/tokenizer.model"], 2, "--tokenizer /none/tokenizer.model: no such file"),
    (["--tokenizer", os.path.join(FORTUNES, "fortunes")], 2, "not a SentencePiece model"),
    (["--num-shards", "100000"], 3, "fewer than --num-shards 100000"),
])
def test_bad_input_is_one_error_naming_it(tmp_path, capsys, extra, status, message):
    out = tmp_path / "out"
    assert main(["prepare-lm", "--input", FORTUNES, "--output", str(out), "--vocab-size", "400",
                 "--seq-len", str(SEQ), *extra]) == status
    assert message in capsys.readouterr().err


def test_shards_already_there_are_kept_unless_forced(lm_dir, capsys):
    assert prepare(lm_dir) == 2
    err = capsys.readouterr().err
    assert "already holds" in err and "--force" in err
    assert prepare(lm_dir, "--force") == 0


@pytest.mark.parametrize("summary, ids, message", [
    ('{"vocab_size": "64"}', None, "prepare_lm.json: vocab_size '64' is not a whole number >= 1"),
    ("[" * 3000, None, "prepare_lm.json: cannot be read (nested too deeply)"),
    (None, np.zeros((2, 3), "f4"), "input_ids is a float32 of shape (2, 3), not token ids"),
    (None, np.zeros(4, "i4"), "input_ids is a int32 of shape (4,), not token ids"),
    (None, -np.ones((2, 3), "i4"), "holds the token id -1"),
])
def test_lm_data_prepare_lm_did_not_write_is_one_data_error(tmp_path, summary, ids, message):
    from trn_trainer.data.lm_samples import LmData
    from trn_trainer.errors import DataError
    with h5py.File(tmp_path / "x_training_0.hdf5", "w") as f:
        f.create_dataset("input_ids", data=np.arange(6, dtype="i4").reshape(2, 3) if ids is None else ids)
    if summary is not None:
        (tmp_path / "prepare_lm.json").write_text(summary)
    with pytest.raises(DataError, match=re.escape(message)):
        LmData(str(tmp_path), 1)
