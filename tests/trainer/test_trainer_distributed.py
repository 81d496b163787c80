"""Multi-process runs through torch's own launcher (gloo on CPU)."""

import json
import os

import torch

from checkpoint_testlib import load as load_checkpoint
from trainer_testlib import pretrain_args, read_metrics, run_cli, run_ranks, torchrun
from trn_trainer.models.bert_config import model_config
from trn_trainer.models.choice import build_model
from trn_trainer.data.wordpiece import vocab_size_of


def _run(corpus_dir, out, world, micro, steps=4, global_batch=8, module="trn_trainer", extra=()):
    args = pretrain_args(corpus_dir, out, *extra, steps=steps, micro=micro, global_batch=global_batch)
    result = torchrun(world, args, module=module)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def test_strong_scaling_changes_nothing_but_speed(corpus_dir, tmp_path):
    """Same global batch of 8, dropout 0.1 (per-sample masks), AdamW, warm-up then decay:
    1 process x accumulation 4, 2 x 2, 4 x 1 (more processes than the 2 shards), and
    2 processes x micro-batch 4: every step's loss and the final parameters agree to 1e-5."""
    runs = {}
    for world, micro in ((1, 2), (2, 2), (4, 2), (2, 4)):
        out = str(tmp_path / f"w{world}_b{micro}")
        _run(corpus_dir, out, world, micro, extra=("--warmup", "2"))
        rows = read_metrics(out)
        assert [r["step"] for r in rows] == [1, 2, 3, 4]
        results = json.load(open(os.path.join(out, "results.json")))["results"]["parameters"]
        assert results["world_size"] == world and results["accumulation"] == 8 // (world * micro)
        runs[(world, micro)] = ([r["loss"] for r in rows],
                                load_checkpoint(out, 4)["model"])
    ref_losses, ref_params = runs[(1, 2)]
    assert ref_losses[-1] < ref_losses[0], "it trains"
    for key, (losses, params) in runs.items():
        assert max(abs(a - b) for a, b in zip(losses, ref_losses)) < 1e-5, (key, losses, ref_losses)
        assert params.keys() == ref_params.keys(), key
        worst = max((params[k] - ref_params[k]).abs().max().item() for k in ref_params)
        assert worst < 1e-5, (key, worst)
    # The agreement means something only if training moved the parameters well beyond 1e-5 from
    # where every run started: the model the trainer builds from the default seed 12345.
    torch.manual_seed(12345)
    config = model_config("tiny", vocab_size_of(os.path.join(corpus_dir, "vocab.txt")), 0.1)
    initial = build_model(config, "native", "sample").state_dict()
    assert initial.keys() == ref_params.keys()
    moved = max((ref_params[k] - initial[k]).abs().max().item() for k in ref_params)
    assert moved > 1e-3, f"4 steps moved the parameters by {moved:.2e} only"


def test_exactly_one_all_reduce_per_optimizer_step(corpus_dir, tmp_path):
    """Every torch.distributed collective is wrapped and logged in order with the model's
    forwards and the optimizer's steps: accumulation 3 gives forward x3, all_reduce, step. The
    checkpoints' coordination (agreeing on the step to resume from, gathering the shards'
    records) runs on groups of its own, outside the steps."""
    events_dir = tmp_path / "events"
    events_dir.mkdir()
    os.environ["TRN_EVENTS_DIR"] = str(events_dir)
    try:
        _run(corpus_dir, str(tmp_path / "out"), 2, 2, steps=3, global_batch=12, module="count_collectives")
    finally:
        del os.environ["TRN_EVENTS_DIR"]
    for rank in (0, 1):
        events = json.load(open(events_dir / f"rank{rank}.json"))
        assert events[0] == "all_gather_object@group"  # the resume step, before any forward
        assert events.count("all_gather_object@group") == 2  # and the final checkpoint's shards
        events = [e for e in events if not e.endswith("@group")]
        steps, current = [], []
        for event in events:
            current.append(event)
            if event == "optimizer_step":
                steps.append(current)
                current = []
        assert len(steps) == 3
        for step in steps:
            assert step == ["forward", "forward", "forward", "all_reduce", "optimizer_step"], step
        assert "all_reduce" not in current, f"no all-reduce after the last step: {current}"


def test_sharded_checkpoints_resume_at_another_world_size(corpus_dir, reference_run, tmp_path):
    """4 processes write a shard each (to a node-local tier, then the run directory); killed
    after step 5, the run resumes on 2 processes from their step-4 checkpoint with the losses of
    the uninterrupted 1-process reference (training does not depend on the world size); a new
    run then starts from its final weights."""
    out, local = str(tmp_path / "run"), str(tmp_path / "node-local")
    args = pretrain_args(corpus_dir, out, "--checkpoint-every", "2", "--checkpoint-mode", "sync",
                         "--checkpoint-local-dir", local, steps=8)
    killed = run_ranks(4, args, module="die_after_step", TRN_DIE_AFTER_STEP="5")
    assert killed.returncode != 0
    shards = ["ckpt_4.pt"] + [f"ckpt_4.shard{rank}.pt" for rank in (1, 2, 3)]
    for directory in (out, local):
        assert {"ckpt_4.json", *shards} <= set(os.listdir(directory))
    with open(os.path.join(out, "ckpt_4.json")) as f:
        manifest = json.load(f)
    assert manifest["world_size"] == 4 and [s["file"] for s in manifest["shards"]] == shards
    shard_bytes = [s["bytes"] for s in manifest["shards"]]
    assert max(shard_bytes) < 0.4 * sum(shard_bytes), shard_bytes  # each rank wrote about a quarter
    resumed = run_ranks(2, args)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"resumed from {out}/ckpt_4.pt (step 4, 32 samples consumed), shards read from the " \
        f"node-local tier {local}" in resumed.stdout
    got = {r["step"]: r["loss"] for r in read_metrics(out)}
    want = {r["step"]: r["loss"] for r in read_metrics(reference_run)}
    assert sorted(got) == list(range(1, 9)) and max(abs(got[s] - want[s]) for s in got) < 1e-5

    # A new run initialized from this one (phase 2 after phase 1): its weights, nothing else.
    second = str(tmp_path / "second")
    # A learning rate too small to move an fp32 weight: the step's checkpoint shows the start.
    init = run_cli(pretrain_args(corpus_dir, second, "--init-from", out, "--lr", "1e-30", steps=1))
    assert init.returncode == 0, init.stderr[-2000:]
    assert f"initialized from {out}/ckpt_8.pt (its model weights; a fresh optimizer and schedule, " \
        "step 0)" in init.stdout
    start, final = load_checkpoint(second, 1), load_checkpoint(out, 8)
    assert all(torch.equal(start["model"][k], final["model"][k]) for k in final["model"])
    assert start["step"] == 1 and start["consumed_samples"] == 8


def test_init_from_a_folder_without_a_checkpoint_is_a_clear_error(corpus_dir, tmp_path):
    for source, why in ((tmp_path / "missing", "not a folder"), (tmp_path, "holds no checkpoint")):
        result = run_cli(pretrain_args(corpus_dir, str(tmp_path / "out"), "--init-from", str(source)))
        assert result.returncode == 2 and f"--init-from {source}: {why}" in result.stderr
