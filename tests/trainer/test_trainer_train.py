import hashlib
import json
import math
import os
import re
import statistics
import shutil
import subprocess

import pytest
import torch

from trainer_testlib import HELPERS, PYTHON, TRAINER, child_env, pretrain_args, read_metrics, run_cli
from trn_trainer.cli import main


def _losses(output_dir):
    return [r["loss"] for r in read_metrics(output_dir)]


def test_outputs_metrics_results_and_plot(corpus_dir, tmp_path, capsys):
    out = str(tmp_path / "run")
    args = pretrain_args(corpus_dir, out, "--optimizer", "lamb", "--peak-tflops", "1", steps=3)
    args.remove("--no-plot")
    assert main(args) == 0
    stdout = capsys.readouterr().out
    assert os.path.isdir(os.path.join(out, "tensorboard"))
    lines = [line for line in stdout.splitlines() if line.startswith("step ")]
    assert len(lines) == 3 and "step 3/3" in lines[-1]
    for part in ("loss", "lr", "seq/s", "ETA"):
        assert part in lines[-1]
    rows = read_metrics(out)
    assert [r["step"] for r in rows] == [1, 2, 3]
    for row in rows:
        for key in ("loss", "mlm_loss", "nsp_loss", "lr", "seq_per_s", "step_time_s", "time_s"):
            assert isinstance(row[key], float) and math.isfinite(row[key]), key
        assert abs(row["loss"] - row["mlm_loss"] - row["nsp_loss"]) < 1e-9
        # the step's phases, timed on the CPU: 4 micro-steps, the all-reduce and the optimizer
        assert 0 < 4 * row["micro_step_s"] + row["allreduce_s"] + row["optimizer_s"] <= row["step_time_s"]
    assert rows[0]["loss"] > 5  # about ln(vocab) + ln 2 at initialisation
    doc = json.load(open(os.path.join(out, "results.json")))
    params = doc["results"]["parameters"]
    assert params["model"] == "tiny" and params["world_size"] == 1 and params["optimizer"] == "lamb"
    assert (params["micro_batch"], params["accumulation"], params["global_batch"]) == (2, 4, 8)
    assert params["dtype"] == "fp32" and params["steps"] == 3 and "environment" in params
    metrics = {m["MetricName"]: m for m in doc["results"]["metrics"]}
    assert metrics["Final loss"]["MeasuredValue"] == rows[-1]["loss"]
    assert metrics["Average throughput"]["Units"] == "seq/s"
    assert metrics["Peak throughput"]["MeasuredValue"] >= metrics["Average throughput"]["MeasuredValue"]
    expected_mfu = 100 * metrics["Average throughput"]["MeasuredValue"] * params["flops_per_sequence"] / 1e12
    assert metrics["MFU"]["MeasuredValue"] == pytest.approx(expected_mfu)
    medians = doc["results"]["phase_medians"]  # what trn-run --calibrate reads
    timed = rows[1:]  # the first step of a run is left out, as for the throughput
    for phase in ("micro_step_s", "allreduce_s", "optimizer_s"):
        assert medians[phase] == pytest.approx(statistics.median(r[phase] for r in timed))
    with open(os.path.join(out, "metrics.png"), "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert sorted(n for n in os.listdir(out) if n.startswith("ckpt_")) == ["ckpt_3.json", "ckpt_3.pt"]


def test_plot_command(reference_run, tmp_path):
    png = tmp_path / "loss.png"
    result = run_cli(["plot", os.path.join(reference_run, "metrics.jsonl"), "-o", str(png)])
    assert result.returncode == 0, result.stderr
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert run_cli(["plot", str(tmp_path / "none.jsonl"), "-o", str(png)]).returncode == 3


def test_plot_sweep_command(tmp_path):
    sweep = tmp_path / "sweep.json"
    sweep.write_text(json.dumps({"profile": "p", "steps": 10, "rows": [
        {"nodes": 1, "step": {}, "efficiency": 1.0, "cost_on_demand_usd": 5.0, "cost_reserved_usd": 3.0},
        {"nodes": 3, "infeasible": "no whole accumulation"},
        {"nodes": 4, "step": {}, "efficiency": 0.8, "cost_on_demand_usd": 6.0, "cost_reserved_usd": 4.0}]}))
    png = tmp_path / "sweep.png"
    result = run_cli(["plot-sweep", "--input", str(sweep), "--output", str(png)])
    assert result.returncode == 0, result.stderr
    assert png.read_bytes()[:4] == b"\x89PNG"
    sweep.write_text(json.dumps({"rows": [{"nodes": 3, "infeasible": "x"}]}))
    result = run_cli(["plot-sweep", "--input", str(sweep), "--output", str(png)])
    assert result.returncode == 3 and "no node count of the sweep can run" in result.stderr


def test_extract_graphs_only_runs_the_steps_it_is_told_and_writes_nothing(
        corpus_dir, tmp_path, monkeypatch, capsys):
    """The compile phase passes the profile's compile_steps as --steps; the trainer adds no cap."""
    monkeypatch.setenv("NEURON_EXTRACT_GRAPHS_ONLY", "1")
    out = tmp_path / "compile"
    assert main(pretrain_args(corpus_dir, str(out), "--checkpoint-every", "1", steps=7)) == 0
    stdout = capsys.readouterr().out
    assert [line.split()[1] for line in stdout.splitlines() if line.startswith("step ")] == \
        [f"{step}/7" for step in range(1, 8)]
    assert not out.exists()


def test_kill_and_resume_gives_the_same_losses(corpus_dir, reference_run, tmp_path, capsys):
    out = str(tmp_path / "killed")
    # Checkpoints written in the step (sync), so both are committed when step 5 dies; a kill with
    # a save in flight is test_trainer_checkpoint_s3's (die_during_save).
    cmd = [PYTHON, "-m", "die_after_step"] + pretrain_args(corpus_dir, out, "--checkpoint-every", "2",
                                                           "--checkpoint-mode", "sync", steps=8)
    killed = subprocess.run(cmd, env=child_env(TRN_DIE_AFTER_STEP="5"), capture_output=True, text=True,
                            timeout=300)
    assert killed.returncode == -9, killed.stderr
    names = {n for n in os.listdir(out) if n != "tensorboard" and ".tmp-" not in n}
    assert names == {"ckpt_2.json", "ckpt_2.pt", "ckpt_4.json", "ckpt_4.pt", "metrics.jsonl"}
    assert len(read_metrics(out)) == 5
    assert main(pretrain_args(corpus_dir, out, "--checkpoint-every", "2", steps=8)) == 0
    assert "resumed from" in capsys.readouterr().out
    got, want = _losses(out), _losses(reference_run)
    assert len(got) == 8
    assert max(abs(a - b) for a, b in zip(got, want)) < 1e-6
    final = torch.load(os.path.join(out, "ckpt_8.pt"))["model"]
    ref = torch.load(os.path.join(reference_run, "ckpt_8.pt"))["model"]
    assert max((final[k] - ref[k]).abs().max().item() for k in ref) < 1e-6


def test_truncated_newest_checkpoint_falls_back_to_the_previous(corpus_dir, reference_run, tmp_path, capsys):
    out = str(tmp_path / "truncated")
    shutil.copytree(reference_run, out)
    checkpoints = sorted(n for n in os.listdir(out) if n.startswith("ckpt_") and n.endswith(".pt"))
    assert checkpoints == ["ckpt_4.pt", "ckpt_6.pt", "ckpt_8.pt"]
    newest = os.path.join(out, "ckpt_8.pt")
    size = os.path.getsize(newest)
    with open(newest, "r+b") as f:
        f.truncate(size // 2)
    assert main(pretrain_args(corpus_dir, out, "--checkpoint-every", "2", steps=8)) == 0
    stdout = capsys.readouterr().out
    assert "warning: skipping checkpoint" in stdout and "ckpt_8.pt" in stdout
    assert "resumed from " + os.path.join(out, "ckpt_6.pt") in stdout
    assert [line.split()[1] for line in stdout.splitlines() if line.startswith("step ")] == ["7/8", "8/8"]
    assert max(abs(a - b) for a, b in zip(_losses(out), _losses(reference_run))) < 1e-6
    assert torch.load(newest)["step"] == 8  # rewritten whole


@pytest.mark.parametrize("tiers, at", [("shared", "shard"), ("shared", "manifest"),
                                       ("local", "shard"), ("local", "copy"), ("local", "manifest")])
def test_killed_while_saving_resumes_from_the_previous_checkpoint(corpus_dir, reference_run, tmp_path,
                                                                  capsys, tiers, at):
    """SIGKILL while checkpoint 4 is written - its shard half written to the first tier (the
    node-local one when there is one), half copied from there to the run directory, or whole
    everywhere without its manifest: the run resumes from checkpoint 2 and ends with the
    reference's losses; the killed writer's temporary files go with later saves."""
    out, local = str(tmp_path / "run"), str(tmp_path / "node-local")
    # Written in the step (sync): a background save still in flight would skip checkpoint 4.
    extra = ("--checkpoint-every", "2", "--checkpoint-mode", "sync", "--snapshot-every", "0") + \
        (("--checkpoint-local-dir", local) if tiers == "local" else ())
    cmd = [PYTHON, "-m", "die_during_save"] + pretrain_args(corpus_dir, out, *extra, steps=8)
    killed = subprocess.run(cmd, env=child_env(TRN_DIE_DURING_SAVE="4", TRN_DIE_AT=at),
                            capture_output=True, text=True, timeout=300)
    assert killed.returncode == -9, killed.stderr
    names = set(os.listdir(out))
    assert {"ckpt_2.pt", "ckpt_2.json"} <= names and "ckpt_4.json" not in names
    assert ("ckpt_4.pt" in names) == (at == "manifest")
    if tiers == "local":
        local_names = set(os.listdir(local))
        assert {"ckpt_2.pt", "ckpt_2.json"} <= local_names and "ckpt_4.json" not in local_names
    assert main(pretrain_args(corpus_dir, out, *extra, steps=8)) == 0
    stdout = capsys.readouterr().out
    assert "resumed from " + os.path.join(out, "ckpt_2.pt") in stdout
    assert max(abs(a - b) for a, b in zip(_losses(out), _losses(reference_run))) < 1e-6
    for directory in (out, local) if tiers == "local" else (out,):
        assert not [n for n in os.listdir(directory) if ".tmp-" in n], os.listdir(directory)


def test_a_save_cut_off_before_its_manifest_trains_from_step_0(corpus_dir, reference_run, tmp_path, capsys):
    """Issue 27.1: a node lost while checkpoint 4 was written leaves two ranks' shares and no
    manifest. The trainer reads neither (rank 0's share is not a whole state: it crashed in
    load_state_dict), says so and trains from step 0 to the uninterrupted run's losses."""
    from trn_trainer.checkpoint.shards import share_of

    out = tmp_path / "cut_off"
    out.mkdir()
    state = torch.load(os.path.join(reference_run, "ckpt_4.pt"))
    torch.save(share_of(state, 0, 2), str(out / "ckpt_4.pt"))
    torch.save(share_of(state, 1, 2), str(out / "ckpt_4.shard1.pt"))
    assert main(pretrain_args(corpus_dir, str(out), "--checkpoint-every", "2", steps=8)) == 0
    stdout = capsys.readouterr().out
    assert "step(s) 4 in" in stdout and "training from step 0" in stdout and "resumed from" not in stdout
    assert [line.split()[1] for line in stdout.splitlines() if line.startswith("step ")][0] == "1/8"
    assert max(abs(a - b) for a, b in zip(_losses(str(out)), _losses(reference_run))) < 1e-6


# ---- bad input: one clear error each, non-zero exit, nothing overwritten ----------------------

def _snapshot(directory):
    result = {}
    for root, _, files in os.walk(directory):
        for name in files:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                result[os.path.relpath(path, directory)] = hashlib.sha256(f.read()).hexdigest()
    return result


@pytest.fixture
def finished_output(reference_run, tmp_path):
    out = str(tmp_path / "finished")
    shutil.copytree(reference_run, out)
    return out


def _expect_error(args, code, *needles, **env):
    result = run_cli(args, **env)
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    errors = [line for line in result.stderr.splitlines() if line.startswith("trn_trainer: error:")]
    assert len(errors) == 1 and "Traceback" not in result.stderr, result.stderr
    for needle in needles:
        assert needle in errors[0], errors[0]
    return errors[0]


def test_no_shards_lists_pattern_and_directory(tmp_path, finished_output):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("x")
    before = _snapshot(finished_output)
    _expect_error(pretrain_args(str(empty), finished_output, steps=10), 3, "*_training_*.hdf5", str(empty))
    assert _snapshot(finished_output) == before


def test_corrupt_hdf5_is_named(corpus_dir, tmp_path, finished_output):
    data = tmp_path / "data"
    shutil.copytree(corpus_dir, data)
    bad = data / "fortunes_training_1.hdf5"
    bad.write_bytes(bad.read_bytes()[:1000])
    before = _snapshot(finished_output)
    _expect_error(pretrain_args(str(data), finished_output, steps=10), 3, str(bad))
    assert _snapshot(finished_output) == before


def test_checkpoint_of_another_model_config(corpus_dir, finished_output):
    before = _snapshot(finished_output)
    args = pretrain_args(corpus_dir, finished_output, steps=10)
    args[args.index("--model") + 1] = "mini"
    _expect_error(args, 4, "ckpt_8.pt", "hidden_size")
    assert _snapshot(finished_output) == before


def test_accumulation_that_does_not_divide(corpus_dir, finished_output):
    before = _snapshot(finished_output)
    _expect_error(pretrain_args(corpus_dir, finished_output, steps=10, micro=3, global_batch=8), 2,
                  "--global-batch 8", "--micro-batch 3")
    assert _snapshot(finished_output) == before


def test_model_impl_hf_without_transformers_is_a_clear_error(corpus_dir, tmp_path):
    out = tmp_path / "hf"
    hidden = os.path.join(HELPERS, "without_transformers")  # a Python where it cannot be imported
    _expect_error(pretrain_args(corpus_dir, str(out), "--model-impl", "hf"), 2,
                  "--model-impl hf: transformers cannot be imported (No module named 'transformers')",
                  PYTHONPATH=os.pathsep.join([hidden, TRAINER, HELPERS]))
    assert not out.exists()


@pytest.mark.parametrize("bad", [b'{"step": 3, "lo', b"[3]", b"\xff\xfe", b"[" * 3000])
def test_metrics_rows_end_at_the_first_line_that_is_no_json_object(tmp_path, bad):
    from trn_trainer.metrics import read_rows
    path = tmp_path / "metrics.jsonl"
    path.write_bytes(b'{"step": 1}\n\n{"step": 2}\n' + bad + b'\n{"step": 4}\n')
    assert read_rows(str(path)) == [{"step": 1}, {"step": 2}]


@pytest.mark.parametrize("content, message", [
    (b"[1]", "not a sweep (an object with a list of rows)"),
    (b'{"rows": [1]}', "not a sweep (an object with a list of rows)"),
    (b"\xff", "cannot read the sweep ('utf-8' codec can't decode"),
    (b'{"rows": [{"nodes": 2, "step": {}, "efficiency": "1"}]}', "the row of nodes 2 lacks a number"),
])
def test_a_sweep_json_trn_run_did_not_write_is_one_data_error(tmp_path, content, message):
    from trn_trainer.errors import DataError
    from trn_trainer.tasks.plot_sweep import read_sweep
    path = tmp_path / "sweep.json"
    path.write_bytes(content)
    with pytest.raises(DataError, match=re.escape(message)):
        read_sweep(str(path))
