"""Sequence parallelism in pretrain-lm (parallel/tensor_parallel.py, docs/llama.md#memory): the
residual stream and the norms split along the sequence between blocks change no value - the
same loss and gradients at tp 2, the same losses through training at tp 2 and at tp 2 x dp 2
with ZeRO-1 - provided the norms' gradients are summed over the group; and a sequence that does
not split is one error."""

import torch

from trainer_testlib import FORTUNES, read_metrics, run_cli, run_ranks


def _gradients(tmp_path, **env):
    done = run_ranks(2, [], module="sequence_parallel_grads", OUT=str(tmp_path), **env)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return [torch.load(tmp_path / f"rank{r}.pt") for r in range(2)]


def _worst(ranks):
    """The largest difference between the gradients with and without sequence parallelism."""
    return max((rank[True]["grads"][n] - rank[False]["grads"][n]).abs().max().item()
               for rank in ranks for n in rank[False]["grads"])


def test_the_loss_and_every_gradient_are_those_without_sequence_parallelism(tmp_path):
    ranks = _gradients(tmp_path)
    for rank in ranks:
        assert abs(rank[True]["loss"] - rank[False]["loss"]) < 1e-6, rank
    assert _worst(ranks) < 1e-6


def test_the_norms_gradients_need_the_sum_over_the_group(tmp_path):
    # Each rank's norm weights saw only its half of the sequence: without the sum they are wrong.
    assert _worst(_gradients(tmp_path, TRN_TEST_KEEP_NORM_GRADIENTS="1")) > 1e-4


def _train(nproc, data, output, *extra):
    args = ["pretrain-lm", "--data", str(data), "--output", str(output), "--model", "tiny",
            "--global-batch", "8", "--steps", "4", "--lr", "1e-3", *extra]
    done = run_ranks(nproc, args, timeout=240)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return [m["loss"] for m in read_metrics(output)]


def test_training_with_sequence_parallelism_gives_the_same_losses(lm_data, tmp_path):
    for name, nproc, extra in (("tp2", 2, ["--tensor-parallel", "2"]),
                               ("tp2dp2_zero1", 4, ["--tensor-parallel", "2", "--zero1"])):
        without = _train(nproc, lm_data, tmp_path / name, *extra)
        with_sp = _train(nproc, lm_data, tmp_path / (name + "_sp"), *extra, "--sequence-parallel")
        assert max(abs(a - b) for a, b in zip(without, with_sp)) < 1e-5, (name, without, with_sp)


def test_a_sequence_that_does_not_split_is_one_error(tmp_path):
    data = tmp_path / "odd"
    done = run_cli(["prepare-lm", "--input", FORTUNES, "--output", str(data), "--seq-len", "31",
                    "--vocab-size", "400", "--num-shards", "2"])
    assert done.returncode == 0, done.stderr[-2000:]
    done = run_ranks(2, ["pretrain-lm", "--data", str(data), "--output", str(tmp_path / "out"), "--model",
                         "tiny", "--global-batch", "8", "--steps", "1", "--tensor-parallel", "2",
                         "--sequence-parallel"], timeout=240)
    assert done.returncode == 2, (done.stdout + done.stderr)[-2000:]
    assert "--sequence-parallel: the sequence length 31" in done.stderr
    assert "prepare-lm --seq-len" in done.stderr
