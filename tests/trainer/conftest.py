"""Fixtures: one process environment per test, and a small corpus from the Debian package
fortunes-min prepared once per session (BERT shards, and Llama samples)."""

import os

import pytest
import torch

from trainer_testlib import DIST_VARS, FORTUNES

# The tests run several training processes at once on a few cores (pytest-xdist workers, ranks of
# a multi-process test): PyTorch's default of one OpenMP thread per core each oversubscribes the
# CPUs, and OpenMP's spinning threads then make a step up to 28x slower (docs/hardware.md#cpu-threads).
# One thread per process, in this process and every child it starts.
os.environ["OMP_NUM_THREADS"] = "1"
torch.set_num_threads(1)


@pytest.fixture(autouse=True)
def _single_process_env(monkeypatch):
    for name in DIST_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def corpus_dir(tmp_path_factory):
    """Prepared shards: seq 128, max_pred 20, vocabulary built from the corpus, 2 training shards."""
    if not os.path.isdir(FORTUNES):
        pytest.fail(f"{FORTUNES} missing: install the Debian package fortunes-min")
    out = tmp_path_factory.mktemp("corpus")
    from trn_trainer.cli import main

    rc = main(["prepare-data", "--input", FORTUNES, "--output", str(out), "--dupe-factor", "1",
               "--num-shards", "2", "--seed", "7", "--name", "fortunes"])
    assert rc == 0
    return str(out)


@pytest.fixture(scope="session")
def lm_data(tmp_path_factory):
    """prepare-lm's packed samples: 32 tokens each, a 400-token SentencePiece model trained on the
    corpus, 2 training shards."""
    from trainer_testlib import run_cli

    out = tmp_path_factory.mktemp("lm_data")
    done = run_cli(["prepare-lm", "--input", FORTUNES, "--output", str(out), "--seq-len", "32",
                    "--vocab-size", "400", "--num-shards", "2"])
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="session")
def reference_run(corpus_dir, tmp_path_factory):
    """An uninterrupted 8-step run with checkpoints every 2 steps (shared by the resume tests),
    written in the step (sync): a background save still in flight when the next is due is
    skipped, so on a loaded machine an async reference would not always hold the same files."""
    from trainer_testlib import pretrain_args
    from trn_trainer.cli import main

    out = str(tmp_path_factory.mktemp("reference"))
    assert main(pretrain_args(corpus_dir, out, "--checkpoint-every", "2", "--checkpoint-mode", "sync",
                              steps=8)) == 0
    return out
