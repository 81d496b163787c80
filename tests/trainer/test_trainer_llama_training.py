"""pretrain-lm (docs/llama.md#training): the same global batch gives the same losses for
tensor parallel 1, 2 and 4 and data parallel 1, 2 and 4, with and without ZeRO-1 (real gloo
processes started by torchrun); a run stopped between checkpoints resumes to the same losses,
ZeRO-1's sharded optimizer state included; bad input is one clear error."""

import glob
import json
import os
import shutil

import pytest

from trainer_testlib import read_metrics, run_cli, run_ranks
from trn_trainer.checkpoint import files, llama_legacy


def train(nproc, data, output, *extra, steps=4):
    args = ["pretrain-lm", "--data", str(data), "--output", str(output), "--model", "tiny",
            "--global-batch", "8", "--steps", str(steps), "--lr", "1e-3", *extra]
    done = run_ranks(nproc, args, timeout=240) if nproc > 1 else run_cli(args, timeout=240)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return [m["loss"] for m in read_metrics(output)]


def test_every_tensor_and_data_parallel_split_gives_the_same_losses(lm_data, tmp_path):
    base = train(1, lm_data, tmp_path / "tp1dp1")
    assert len(base) == 4 and base[-1] < base[0]
    splits = {"tp4dp1": (4, ["--tensor-parallel", "4"]), "tp1dp4": (4, []),
              "tp2dp2_zero1": (4, ["--tensor-parallel", "2", "--zero1"])}
    for name, (nproc, extra) in splits.items():
        losses = train(nproc, lm_data, tmp_path / name, *extra)
        worst = max(abs(a - b) for a, b in zip(base, losses))
        assert worst < 1e-4, (name, base, losses)
    results = json.load(open(tmp_path / "tp2dp2_zero1" / "results.json"))["results"]
    assert results["parameters"]["zero1"] and results["parameters"]["data_parallel"] == 2
    assert [m["MetricName"] for m in results["metrics"]][0] == "Final loss"


def test_a_run_stopped_between_checkpoints_resumes_to_the_same_losses_at_any_layout(lm_data, tmp_path):
    """Through the checkpoint engine: a shard per rank (the world's 4), in the node-local tier
    and the run directory; a shard missing from the run directory is read from the node-local
    tier on resume. Through DCP, a tensor parallel 2 x data parallel 2 ZeRO-1 checkpoint resumes
    at tp 1 x dp 2 (ZeRO-1 partitioned anew) and at tp 2 x dp 1 with the losses of a run that
    trained at that layout from the start."""
    run, local = tmp_path / "run", tmp_path / "local"
    extra = ["--tensor-parallel", "2", "--zero1", "--checkpoint-every", "3", "--checkpoint-local-dir",
             str(local)]
    whole = train(4, lm_data, run, *extra, steps=6)
    shards = ["ckpt_{0}.json", "ckpt_{0}.pt"] + [f"ckpt_{{0}}.shard{r}.pt" for r in (1, 2, 3)]
    for tier in (run, local):
        assert sorted(os.path.basename(p) for p in glob.glob(str(tier / "ckpt_*"))) == sorted(
            name.format(step) for step in (3, 6) for name in shards)
    checkpoints = json.load(open(run / "results.json"))["results"]["checkpoints"]
    assert checkpoints["mode"] == "async" and checkpoints["tiers"] == ["node-local", "shared"]
    assert checkpoints["saves"] == 2 and checkpoints["failed"] == 0
    for path in glob.glob(str(run / "ckpt_6*")) + glob.glob(str(local / "ckpt_6*")):
        os.remove(path)  # as if the run had died after step 5
    at_step_3 = tmp_path / "at_step_3"
    shutil.copytree(run, at_step_3)
    os.remove(run / "ckpt_3.shard3.pt")  # rank 3's chunks: only on the node now
    resumed = train(4, lm_data, run, *extra, steps=6)
    assert len(resumed) == 6 and max(abs(a - b) for a, b in zip(whole, resumed)) < 1e-5, (whole, resumed)

    for name, layout in {"tp1dp2_zero1": ["--zero1"], "tp2dp1": ["--tensor-parallel", "2"]}.items():
        there = train(2, lm_data, tmp_path / f"{name}_from_start", *layout, steps=6)
        shutil.copytree(at_step_3, tmp_path / name, ignore=shutil.ignore_patterns("metrics.jsonl"))
        continued = train(2, lm_data, tmp_path / name, *layout, steps=6)
        assert len(continued) == 3, (name, continued)  # steps 4 to 6, after the resume
        worst = max(abs(a - b) for a, b in zip(there[3:], continued))
        assert worst < 1e-5, (name, there[3:], continued)


def test_a_checkpoint_from_before_resharding_names_both_degrees(lm_data, tmp_path):
    """A checkpoint of trn_trainer before DCP (one head per tensor-parallel rank) is read at its own
    tensor-parallel degree only: at another, one error naming both."""
    run = tmp_path / "run"
    head = {"step": 3, "consumed_samples": 24, "model_config": {}, "optimizer_name": "adamw",
            "model": {}, "optimizer": {},
            llama_legacy.RUN: {"model": "tiny", "tensor_parallel": 2, "data_parallel": 1, "zero1": False}}
    os.makedirs(run)
    files.commit_manifest(str(run), files.make_manifest(3, [files.write_shard(str(run), 3, 0, head)]))
    done = run_ranks(2, ["pretrain-lm", "--data", str(lm_data), "--output", str(run), "--model", "tiny",
                         "--global-batch", "8", "--steps", "8"], timeout=120)
    assert done.returncode == 4, (done.stdout + done.stderr)[-2000:]  # the ranks' bad-input status
    assert "written with tensor parallel 2, this run has 1" in done.stdout + done.stderr
    assert "resume with --tensor-parallel 2" in done.stdout + done.stderr
    assert "skipping checkpoint" not in done.stdout + done.stderr  # a run that cannot use it stops


def test_a_checkpoint_of_other_settings_is_one_error_naming_the_setting(lm_data, tmp_path):
    """Resharding changes the layout, never the run: another global batch stops the resume."""
    run = tmp_path / "run"
    train(1, lm_data, run, "--checkpoint-every", "2", steps=2)
    done = run_cli(["pretrain-lm", "--data", str(lm_data), "--output", str(run), "--model", "tiny",
                    "--global-batch", "16", "--steps", "4"])
    assert done.returncode == 4, done.stderr[-2000:]
    assert "checkpoint 2 has global_batch 8, this run 16: resume with the same settings" in done.stderr
    assert "Traceback" not in done.stderr


def test_graph_extraction_neither_resumes_nor_writes(lm_data, tmp_path):
    """Under trn-run's compile phase (NEURON_EXTRACT_GRAPHS_ONLY, --steps its compile_steps) the
    run directory is the training's: what is there is not resumed, and nothing is added."""
    run = tmp_path / "run"
    train(1, lm_data, run, "--checkpoint-every", "2", steps=2)
    before = {p.name: p.stat().st_mtime_ns for p in run.iterdir()}
    args = ["pretrain-lm", "--data", str(lm_data), "--output", str(run), "--model", "tiny",
            "--global-batch", "8", "--steps", "3", "--log-every", "1"]
    done = run_cli(args, NEURON_EXTRACT_GRAPHS_ONLY="1")
    assert done.returncode == 0, done.stderr[-2000:]
    assert [line.split()[1] for line in done.stdout.splitlines() if line.startswith("step ")] == \
        ["1/3", "2/3", "3/3"], done.stdout
    assert "resumed" not in done.stdout
    assert {p.name: p.stat().st_mtime_ns for p in run.iterdir()} == before


@pytest.mark.parametrize("nproc, extra, message", [
    (2, ["--tensor-parallel", "3"], "--tensor-parallel 3 does not divide the world of 2 processes"),
    (1, ["--micro-batch", "3"], "--global-batch 8 is not a whole number of micro-batches 3"),
    (1, ["--model", "huge"], "--model 'huge': unknown Llama size"),
    (1, ["--pipeline-parallel", "2"], "--pipeline-parallel 2: the bundled trainer has no pipeline schedule"),
])
def test_bad_input_is_one_error(lm_data, tmp_path, nproc, extra, message):
    args = ["pretrain-lm", "--data", str(lm_data), "--output", str(tmp_path), "--global-batch", "8",
            "--steps", "1", *extra]
    done = run_ranks(nproc, args, timeout=120) if nproc > 1 else run_cli(args, timeout=120)
    assert done.returncode != 0 and message in done.stdout + done.stderr


def test_no_shards_names_prepare_lm(tmp_path):
    done = run_cli(["pretrain-lm", "--data", str(tmp_path), "--output", str(tmp_path / "o"),
                    "--global-batch", "8", "--steps", "1"])
    assert done.returncode == 3 and "prepare-lm --input" in done.stderr  # a data error
