"""Every training run writes TensorBoard event files under OUTPUT/tensorboard: the scalars read back
with TensorBoard's own reader equal the run's metrics.jsonl, and each save's stall and each resume
are there."""

import os

import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from trainer_testlib import pretrain_args, read_metrics, run_cli


def scalars(output):
    """{tag: {step: value}} of a run's event files, as TensorBoard reads them."""
    events = EventAccumulator(os.path.join(output, "tensorboard"), size_guidance={"scalars": 0})
    events.Reload()
    return {tag: {e.step: e.value for e in events.Scalars(tag)} for tag in events.Tags()["scalars"]}


def test_bert_events_hold_each_step_the_saves_and_the_resume(corpus_dir, tmp_path):
    out = tmp_path / "run"
    first = run_cli(pretrain_args(corpus_dir, str(out), "--checkpoint-every", "2", "--checkpoint-mode",
                                  "sync", steps=4))
    assert first.returncode == 0, first.stderr[-2000:]
    # The same run continued to step 6 (as after a requeue): it resumes from checkpoint 4.
    second = run_cli(pretrain_args(corpus_dir, str(out), "--checkpoint-every", "2", "--checkpoint-mode",
                                   "sync", steps=6))
    assert second.returncode == 0, second.stderr[-2000:]
    got, rows = scalars(out), read_metrics(out)
    assert [r["step"] for r in rows] == [1, 2, 3, 4, 5, 6]
    for name in ("loss", "mlm_loss", "nsp_loss", "lr", "seq_per_s", "grad_norm"):
        assert got[f"train/{name}"] == pytest.approx({r["step"]: r[name] for r in rows}, rel=1e-6), name
    assert sorted(got["checkpoint/stall_s"]) == [2, 4, 6] and min(got["checkpoint/stall_s"].values()) > 0
    assert got["recovery/resumed_from_step"] == {5: 4}


def test_llama_events_hold_each_step_the_saves_and_the_resume(lm_data, tmp_path):
    out = tmp_path / "lm"
    args = ["pretrain-lm", "--data", str(lm_data), "--output", str(out), "--model", "tiny", "--global-batch",
            "4", "--lr", "1e-3", "--checkpoint-every", "2", "--checkpoint-mode", "sync", "--log-every", "1"]
    assert run_cli(args + ["--steps", "3"]).returncode == 0
    # The run continued to step 5 resumes from the checkpoint of its last step, 3.
    again = run_cli(args + ["--steps", "5"])
    assert again.returncode == 0, again.stderr[-2000:]
    got, rows = scalars(out), read_metrics(out)
    assert [r["step"] for r in rows] == [1, 2, 3, 4, 5]
    for name in ("loss", "lr", "grad_norm", "tokens_per_s"):
        assert got[f"train/{name}"] == pytest.approx({r["step"]: r[name] for r in rows}, rel=1e-6), name
    assert sorted(got["checkpoint/stall_s"]) == [2, 3, 4, 5]
    assert got["recovery/resumed_from_step"] == {4: 3}


def test_no_tensorboard_writes_none(lm_data, tmp_path):
    out = tmp_path / "quiet"
    done = run_cli(["pretrain-lm", "--data", str(lm_data), "--output", str(out), "--model", "tiny",
                    "--global-batch", "4", "--steps", "1", "--no-tensorboard"])
    assert done.returncode == 0, done.stderr[-2000:]
    assert read_metrics(out) and not (out / "tensorboard").exists()
