import json
import os

import h5py
import numpy as np
import pytest

from trainer_testlib import FORTUNES
from trn_trainer.cli import main
from trn_trainer.data.prepare import KEYS_AND_DTYPES
from trn_trainer.data.wordpiece import WordPieceTokenizer, basic_tokenize, load_vocab


def _load(path):
    with h5py.File(path, "r") as f:
        return {k: f[k][()] for k in f}, {k: f[k].dtype for k in f}


def test_shards_have_the_nvidia_keys_shapes_and_dtypes(corpus_dir):
    names = sorted(os.listdir(corpus_dir))
    assert "fortunes_training_0.hdf5" in names and "fortunes_training_1.hdf5" in names
    assert "fortunes_test_0.hdf5" in names and "vocab.txt" in names
    for name in names:
        if not name.endswith(".hdf5"):
            continue
        arrays, dtypes = _load(os.path.join(corpus_dir, name))
        assert set(arrays) == {k for k, _ in KEYS_AND_DTYPES}
        for key, dtype in KEYS_AND_DTYPES:
            assert dtypes[key] == np.dtype(dtype), (name, key)
        n = arrays["input_ids"].shape[0]
        assert n > 0
        shapes = {arrays[key].shape for key in ("input_ids", "input_mask", "segment_ids")}
        assert shapes == {(n, 128)}
        assert arrays["masked_lm_positions"].shape == arrays["masked_lm_ids"].shape == (n, 20)
        assert arrays["next_sentence_labels"].shape == (n,)


def test_sequences_are_well_formed_and_masking_rates_hold(corpus_dir):
    vocab = load_vocab(os.path.join(corpus_dir, "vocab.txt"))
    cls, sep, mask, pad = vocab["[CLS]"], vocab["[SEP]"], vocab["[MASK]"], vocab["[PAD]"]
    arrays, _ = _load(os.path.join(corpus_dir, "fortunes_training_0.hdf5"))
    ids, inmask, seg = arrays["input_ids"], arrays["input_mask"], arrays["segment_ids"]
    pos, labels, nsp = arrays["masked_lm_positions"], arrays["masked_lm_ids"], arrays["next_sentence_labels"]
    lengths = inmask.sum(axis=1)
    assert (ids[:, 0] == cls).all()
    n_masked = n_mask_token = n_kept = n_random = 0
    n_tokens = 0
    for i in range(len(ids)):
        length = lengths[i]
        assert (inmask[i, :length] == 1).all() and (inmask[i, length:] == 0).all()
        assert (ids[i, length:] == pad).all()
        assert (ids[i, :length] == sep).sum() == 2 and ids[i, length - 1] == sep
        first_sep = int(np.argmax(ids[i] == sep))
        assert (seg[i, :first_sep + 1] == 0).all() and (seg[i, first_sep + 1:length] == 1).all()
        valid = pos[i] != 0
        k = int(valid.sum())
        assert valid[:k].all() and not valid[k:].any(), "padding only at the end"
        assert (labels[i, k:] == 0).all()
        p = pos[i, :k]
        assert (np.diff(p) > 0).all() and (p < length).all()
        assert k == min(20, max(1, int(round(length * 0.15))))
        for position, label in zip(p, labels[i, :k]):
            assert label not in (cls, sep, pad)
            if ids[i, position] == mask:
                n_mask_token += 1
            elif ids[i, position] == label:
                n_kept += 1
            else:
                n_random += 1
        n_masked += k
        n_tokens += length - 3
    # 15% of the tokens (round to nearest, at most 20), split 80/10/10.
    assert abs(n_masked / n_tokens - 0.15) < 0.02
    assert abs(n_mask_token / n_masked - 0.8) < 0.03
    assert abs(n_kept / n_masked - 0.1) < 0.03
    assert abs(n_random / n_masked - 0.1) < 0.03
    assert set(np.unique(nsp)) == {0, 1}


def test_wordpiece_is_greedy_longest_match():
    vocab = {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "un", "##aff",
                                         "##able", "runn", "##ing", ",", "want", "##want", "##ed"])}
    tok = WordPieceTokenizer(vocab)
    assert tok.tokenize("UNwant\u00e9d,running") == ["un", "##want", "##ed", ",", "runn", "##ing"]
    assert tok.tokenize("unaffable") == ["un", "##aff", "##able"]
    assert tok.tokenize("xyz") == ["[UNK]"]
    assert basic_tokenize("Hello, WORLD!") == ["hello", ",", "world", "!"]


def test_a_standard_bert_vocab_file_works(tmp_path, corpus_dir):
    # Standard layout: [PAD]=0, [unused0..98], [UNK]=100, [CLS]=101, [SEP]=102, [MASK]=103, ...
    built = [t for t in load_vocab(os.path.join(corpus_dir, "vocab.txt")) if not t.startswith("[")]
    standard = ["[PAD]"] + [f"[unused{i}]" for i in range(99)] + ["[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    standard += built
    vocab_file = tmp_path / "vocab.txt"
    vocab_file.write_text("\n".join(standard) + "\n", encoding="utf-8")
    out = tmp_path / "shards"
    rc = main(["prepare-data", "--input", os.path.join(FORTUNES, "riddles"), "--output", str(out),
               "--vocab", str(vocab_file), "--dupe-factor", "1", "--num-shards", "1", "--name", "std"])
    assert rc == 0
    assert (out / "vocab.txt").read_text(encoding="utf-8") == vocab_file.read_text(encoding="utf-8")
    summary = json.loads((out / "prepare_data.json").read_text())
    assert summary["vocab_size"] == len(standard)
    arrays, _ = _load(out / "std_training_0.hdf5")
    ids = arrays["input_ids"]
    assert (ids[:, 0] == 101).all()  # [CLS]
    assert ((ids == 102).sum(axis=1) == 2).all()  # two [SEP]
    assert (ids == 103).any()  # [MASK]
    assert ids.max() < len(standard)
    assert not np.isin(ids, np.arange(1, 100)).any(), "[unusedN] never appear"


def test_prepare_data_refuses_to_overwrite_shards(tmp_path):
    out = tmp_path / "shards"
    args = ["prepare-data", "--input", os.path.join(FORTUNES, "riddles"), "--output", str(out),
            "--dupe-factor", "1", "--num-shards", "1"]
    assert main(args) == 0
    before = (out / "corpus_training_0.hdf5").read_bytes()
    assert main(args + ["--seed", "99"]) == 2
    assert (out / "corpus_training_0.hdf5").read_bytes() == before
    assert main(args + ["--seed", "99", "--force"]) == 0
    assert (out / "corpus_training_0.hdf5").read_bytes() != before


@pytest.mark.parametrize("bad", [["--input", "/nonexistent/corpus"], ["--seq-len", "1024"]])
def test_prepare_data_bad_input_is_one_clear_error(tmp_path, capsys, bad):
    args = ["prepare-data", "--input", os.path.join(FORTUNES, "riddles"), "--output", str(tmp_path / "o")]
    rc = main(args + bad)
    err = capsys.readouterr().err
    assert rc in (2, 3) and err.count("error:") == 1
    assert not (tmp_path / "o").exists()
