"""pretrain-lm (docs/llama.md#training): the same global batch gives the same losses for
tensor parallel 1, 2 and 4 and data parallel 1, 2 and 4, with and without ZeRO-1 (real gloo
processes started by torchrun); bad input is one clear error."""

import json

import pytest

from trainer_testlib import FORTUNES, read_metrics, run_cli, torchrun


@pytest.fixture(scope="module")
def lm_data(tmp_path_factory):
    out = tmp_path_factory.mktemp("lm_data")
    done = run_cli(["prepare-lm", "--input", FORTUNES, "--output", str(out), "--seq-len", "32",
                    "--vocab-size", "400", "--num-shards", "2"])
    assert done.returncode == 0, done.stderr
    return out


def train(nproc, data, output, *extra):
    args = ["pretrain-lm", "--data", str(data), "--output", str(output), "--model", "tiny",
            "--global-batch", "8", "--steps", "4", "--lr", "1e-3", *extra]
    done = torchrun(nproc, args, timeout=240) if nproc > 1 else run_cli(args, timeout=240)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return [m["loss"] for m in read_metrics(output)]


def test_every_tensor_and_data_parallel_split_gives_the_same_losses(lm_data, tmp_path):
    base = train(1, lm_data, tmp_path / "tp1dp1")
    assert len(base) == 4 and base[-1] < base[0]
    splits = {"tp2dp1": (2, ["--tensor-parallel", "2"]), "tp1dp2": (2, []),
              "tp4dp1": (4, ["--tensor-parallel", "4"]),
              "tp2dp2_zero1": (4, ["--tensor-parallel", "2", "--zero1"])}
    for name, (nproc, extra) in splits.items():
        losses = train(nproc, lm_data, tmp_path / name, *extra)
        worst = max(abs(a - b) for a, b in zip(base, losses))
        assert worst < 1e-4, (name, base, losses)
    results = json.load(open(tmp_path / "tp2dp2_zero1" / "results.json"))["results"]
    assert results["parameters"]["zero1"] and results["parameters"]["data_parallel"] == 2
    assert [m["MetricName"] for m in results["metrics"]][0] == "Final loss"


@pytest.mark.parametrize("nproc, extra, message", [
    (2, ["--tensor-parallel", "3"], "--tensor-parallel 3 does not divide the world of 2 processes"),
    (1, ["--micro-batch", "3"], "--global-batch 8 is not a whole number of micro-batches 3"),
    (1, ["--model", "huge"], "--model 'huge': unknown Llama size"),
    (1, ["--pipeline-parallel", "2"], "--pipeline-parallel 2: the bundled trainer has no pipeline schedule"),
])
def test_bad_input_is_one_error(lm_data, tmp_path, nproc, extra, message):
    args = ["pretrain-lm", "--data", str(lm_data), "--output", str(tmp_path), "--global-batch", "8",
            "--steps", "1", *extra]
    done = torchrun(nproc, args, timeout=120) if nproc > 1 else run_cli(args, timeout=120)
    assert done.returncode != 0 and message in done.stdout + done.stderr


def test_no_shards_names_prepare_lm(tmp_path):
    done = run_cli(["pretrain-lm", "--data", str(tmp_path), "--output", str(tmp_path / "o"),
                    "--global-batch", "8", "--steps", "1"])
    assert done.returncode == 3 and "prepare-lm --input" in done.stderr  # a data error
