"""Bad input that used to slip through: each is one clear `trn_trainer: error:` line with its
documented exit status (errors.py), never a traceback, and nothing is written."""

import math
import os
import re
import shutil

import pytest
import torch

from trainer_testlib import PYTHON, TRAINER, child_env, pretrain_args, read_metrics
from trn_trainer.cli import main
from trn_trainer.errors import (EXIT_DATA, EXIT_DIVERGED, EXIT_ENVIRONMENT, EXIT_USAGE, DataError,
                                DivergedError)


def _one_error(capsys, args, code, *needles):
    rc = main(args)
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("trn_trainer: error:")]
    assert (rc, len(errors)) == (code, 1) and "Traceback" not in err, (rc, err)
    for needle in needles:
        assert needle in errors[0], errors[0]
    return errors[0]


@pytest.mark.parametrize("option, value", [
    ("--lr", "nan"), ("--lr", "inf"), ("--seed", "-1"), ("--seed", str(2**63)),
    ("--weight-decay", "-1"), ("--weight-decay", "nan"), ("--warmup", "nan"), ("--warmup", "inf"),
    ("--poly-power", "nan"), ("--grad-clip", "nan"), ("--grad-clip", "-1"),
    ("--peak-tflops", "nan"), ("--peak-tflops", "-1"),
])
def test_a_number_out_of_range_is_one_clear_error(corpus_dir, tmp_path, capsys, option, value):
    out = tmp_path / "run"
    _one_error(capsys, pretrain_args(corpus_dir, str(out), option, value, steps=2), EXIT_USAGE,
               f"{option} {value}")
    assert not out.exists()


def test_a_binary_vocabulary_is_named(corpus_dir, tmp_path, capsys):
    data = tmp_path / "data"
    shutil.copytree(corpus_dir, data)
    (data / "vocab.txt").write_bytes(bytes(range(128, 256)) * 8)
    out = tmp_path / "run"
    _one_error(capsys, pretrain_args(str(data), str(out), steps=2), EXIT_DATA,
               str(data / "vocab.txt"), "UTF-8")
    assert not out.exists()


@pytest.mark.parametrize("below", ["", "run"])
def test_output_naming_a_file_is_one_clear_error(corpus_dir, tmp_path, capsys, below):
    a_file = tmp_path / "results.txt"
    a_file.write_text("keep me")
    output = os.path.join(str(a_file), below) if below else str(a_file)
    _one_error(capsys, pretrain_args(corpus_dir, output, steps=2), EXIT_USAGE, "--output", str(a_file))
    assert a_file.read_text() == "keep me"


@pytest.mark.parametrize("shim", ["raise ImportError('libtorch_cpu.so: cannot open shared object file')",
                                  "import sys; sys.modules['torch'] = None; import torch"])
def test_torch_that_cannot_be_imported_is_one_clear_error(corpus_dir, tmp_path, shim):
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text(shim + "\n")
    env = child_env(PYTHONPATH=str(tmp_path) + os.pathsep + TRAINER)
    import subprocess

    result = subprocess.run([PYTHON, "-m", "trn_trainer"] + pretrain_args(corpus_dir, str(tmp_path / "o")),
                            env=env, capture_output=True, text=True, timeout=120)
    errors = [line for line in result.stderr.splitlines() if line.startswith("trn_trainer: error:")]
    assert result.returncode == EXIT_ENVIRONMENT and len(errors) == 1, result.stderr
    assert "Traceback" not in result.stderr and "torch" in errors[0], result.stderr


def test_a_blown_up_update_is_never_checkpointed_and_the_advice_holds(corpus_dir, tmp_path, capsys):
    """Issue 33.6: at --lr 1e9 the first update leaves finite weights near 1e9 whose loss turns
    non-finite a step later. Their checkpoint was kept, and the advice to lower --lr and run
    again resumed from it and diverged again. Now the run stops before saving them, says that a
    rerun starts from step 0, and that rerun at a sane --lr trains."""
    out = str(tmp_path / "diverged")
    error = _one_error(capsys, pretrain_args(corpus_dir, out, "--lr", "1e9", "--checkpoint-every", "1",
                                             steps=6), EXIT_DIVERGED, "blew the weights up", "--lr")
    assert "step 1:" in error and "starts from step 0" in error, error
    assert not [n for n in os.listdir(out) if n.startswith("ckpt_")], os.listdir(out)
    assert not os.path.exists(os.path.join(out, "results.json"))
    assert main(pretrain_args(corpus_dir, out, "--lr", "1e-4", "--checkpoint-every", "1", steps=3)) == 0
    rows = read_metrics(out)
    assert [r["step"] for r in rows][-3:] == [1, 2, 3] and all(math.isfinite(r["loss"]) for r in rows[-3:])


def test_a_run_that_diverges_later_names_the_checkpoint_a_rerun_resumes_from(corpus_dir, tmp_path, capsys):
    out = str(tmp_path / "later")
    assert main(pretrain_args(corpus_dir, out, "--checkpoint-every", "2", steps=2)) == 0
    capsys.readouterr()
    error = _one_error(capsys, pretrain_args(corpus_dir, out, "--lr", "1e9", "--checkpoint-every", "2",
                                             steps=6), EXIT_DIVERGED, "--lr")
    assert re.search(r"error: step [345]: ", error), error
    assert "resumes from the newest checkpoint, step 2" in error, error
    checkpoints = sorted(n for n in os.listdir(out) if n.startswith("ckpt_") and n.endswith(".json"))
    assert checkpoints == ["ckpt_2.json"]


def test_non_finite_or_blown_up_weights_are_never_checkpointed():
    from trn_trainer.training.divergence import check_weights, weights_health

    def hint():
        return "hint"

    good = [torch.ones(3), torch.zeros(2, 2)]
    check_weights(4, weights_health(good), 1e-3, hint)
    with pytest.raises(DivergedError, match="step 5: the weights are no longer finite"):
        check_weights(5, weights_health(good + [torch.tensor([1.0, math.inf])]), 1e-3, hint)
    with pytest.raises(DivergedError, match="step 6: a weight reached 3e.08"):
        check_weights(6, weights_health(good + [torch.tensor([1.0, -3e8])]), 1e9, hint)


@pytest.mark.parametrize("command", ["prepare-data", "prepare-lm"])
def test_a_shard_name_that_leaves_the_output_folder_is_refused(tmp_path, capsys, command):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("one sentence here. another one there.\n" * 50)
    out = tmp_path / "data"
    _one_error(capsys, [command, "--input", str(corpus), "--output", str(out), "--name", "../escaped"],
               EXIT_USAGE, "--name '../escaped'", "plain name")
    assert not list(tmp_path.glob("escaped*")) and not out.exists()


@pytest.mark.parametrize("extra, needles", [
    (["--tensor-parallel", "0"], ["--tensor-parallel 0: give a degree of at least 1"]),
    (["--lr", "nan"], ["--lr nan: must be a finite number above 0"]),
    (["--global-batch", "0"], ["--global-batch 0: must be at least 1"]),
    # A model this machine cannot hold is refused from its size, before anything is allocated
    # (70b grew to 24 GB before the kernel killed it).
    (["--model", "70b", "--vocab-size", "32000"], ["--model 70b on CPU", "GiB of this machine's memory"]),
])
def test_pretrain_lm_settings_out_of_range_are_one_clear_error(lm_data, tmp_path, capsys, extra, needles):
    out = tmp_path / "run"
    args = ["pretrain-lm", "--data", str(lm_data), "--output", str(out), "--model", "tiny",
            "--global-batch", "8", "--micro-batch", "2", "--steps", "2", "--device", "cpu", *extra]
    _one_error(capsys, args, EXIT_USAGE, *needles)


def test_a_config_claiming_a_billion_layers_is_refused_before_anything_is_built(tmp_path, capsys):
    folder = tmp_path / "hf"
    folder.mkdir()
    (folder / "config.json").write_text(
        '{"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": 256, '
        '"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 1000000000, '
        '"num_attention_heads": 8, "num_key_value_heads": 4, "max_position_embeddings": 512}')
    args = ["convert", "split", "--input", str(folder), "--tensor-parallel", "2",
            "--output", str(tmp_path / "out")]
    _one_error(capsys, args, EXIT_DATA, "config.json: num_hidden_layers 1000000000 is not a Llama's")


def test_prepare_data_settings_out_of_range_are_one_clear_error(tmp_path, capsys):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("one sentence here. another one there.\n" * 50)
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    base = ["prepare-data", "--input", str(corpus)]
    _one_error(capsys, [*base, "--output", str(tmp_path / "d1"), "--masked-lm-prob", "2"], EXIT_USAGE,
               "--masked-lm-prob 2.0: must be above 0 and below 1")
    _one_error(capsys, [*base, "--output", str(tmp_path / "d2"), "--vocab-size", "0"], EXIT_USAGE,
               "--vocab-size 0: must be from 16")
    for command in ("prepare-data", "prepare-lm"):
        _one_error(capsys, [command, "--input", str(corpus), "--output", str(a_file)], EXIT_USAGE,
                   f"--output {a_file}: is a file, not a folder")


def test_pretrain_settings_that_cannot_run_are_one_clear_error(corpus_dir, tmp_path, capsys):
    out = str(tmp_path / "run")
    _one_error(capsys, pretrain_args(corpus_dir, out, "--global-batch", "0", steps=2), EXIT_USAGE,
               "--global-batch 0: must be at least 1")


def test_a_data_folder_without_vocab_txt_is_said(corpus_dir, tmp_path, capsys):
    data = tmp_path / "data"
    shutil.copytree(corpus_dir, data)
    (data / "vocab.txt").unlink()
    main(pretrain_args(str(data), str(tmp_path / "run"), "--model", "tiny", steps=1))
    assert f"warning: {data} has no vocab.txt" in capsys.readouterr().out


def test_a_label_of_thousands_of_digits_is_a_name(tmp_path):
    from trn_trainer.data.finetune_examples import read_examples
    path = tmp_path / "train.csv"
    path.write_text("text,label\nhello there,1\nbye now," + "9" * 5000 + "\n")
    labels = sorted(e.label for e in read_examples(str(path), "--train"))
    assert labels == ["1", "9" * 5000]


@pytest.mark.parametrize("line, problem", [
    ("[" * 3000, "nested too deeply"),
    ('{"text": "bye", "label": ' + "9" * 5000 + "}", "Exceeds the limit (4300 digits)"),
])
def test_a_json_line_python_cannot_hold_is_a_data_error_naming_the_line(tmp_path, line, problem):
    from trn_trainer.data.finetune_examples import read_examples
    path = tmp_path / "train.jsonl"
    path.write_text('{"text": "hello", "label": 1}\n' + line + "\n")
    with pytest.raises(DataError, match="train.jsonl line 2: not JSON this reader takes") as error:
        read_examples(str(path), "--train")
    assert problem in str(error.value)
