"""BERT pre-training on the native path (`pretrain --native`): PyTorch's FSDP2 or DDP reduce the
gradients (parallel/native_data_parallel.py), on the CPU with gloo here.

Every run is compared with the own path's uninterrupted one-process run (the `reference_run`
fixture: 8 steps, global batch 8, AdamW, warm-up then decay, dropout 0.1). Dropout stays on: the
default --dropout-rng sample draws each sample's masks from its global index, so they do not
depend on the world size or the accumulation."""

import json
import os
import shutil

import pytest
import torch

from checkpoint_testlib import load as load_checkpoint
from trainer_testlib import pretrain_args, read_metrics, run_cli, run_ranks
from trn_trainer.cli import main
from trn_trainer.data.wordpiece import vocab_size_of
from trn_trainer.models.bert_config import model_config
from trn_trainer.models.choice import build_model

TOLERANCE = 1e-5  # fp32, the gradients summed in another order
# The gradient norm is one fp32 reduction over ~1e6 elements, made in another order by FSDP2's
# shards: on identical gradients (compared in float64) the own path's norm and FSDP2's at dp 4
# were 3.5e-5 and 8e-6 relative off the float64 norm. An averaged gradient would be 2x or 4x off.
NORM_TOLERANCE = 1e-4


def _args(corpus_dir, out, *extra):
    """The reference run's arguments (conftest.reference_run), and `extra`."""
    return pretrain_args(corpus_dir, out, "--checkpoint-every", "2", "--checkpoint-mode", "sync",
                         *extra, steps=8)


def _losses(out, key="loss"):
    return {r["step"]: r[key] for r in read_metrics(out)}


def _mark_rows(out):
    """Marks the rows of `out`'s metrics.jsonl as written before the run about to resume there."""
    rows = read_metrics(out)
    with open(os.path.join(out, "metrics.jsonl"), "w") as f:
        f.writelines(json.dumps(dict(r, before_resume=True)) + "\n" for r in rows)


def _assert_resumed_after_step_4(out):
    """The resumed run kept the rows of steps 1 to 4 and wrote those of steps 5 to 8 itself: it
    trained from the step-4 checkpoint (one that started over would have rewritten them all)."""
    rows = read_metrics(out)
    kept = [r["step"] for r in rows if r.get("before_resume")]
    written = [r["step"] for r in rows if not r.get("before_resume")]
    assert (kept, written) == ([1, 2, 3, 4], [5, 6, 7, 8]), (kept, written)


def _assert_same_training(out, reference_run, corpus_dir):
    """Every step's loss and gradient norm, and the final weights and AdamW moments of the
    reference, within 1e-5. (The norm tells summed gradients from averaged ones, which AdamW's
    update, normalised by the moments, and the clip to norm 1 can hide from the losses.)"""
    got, want = _losses(out), _losses(reference_run)
    assert sorted(got) == list(range(1, 9)), sorted(got)
    worst_step = max(abs(got[s] - want[s]) for s in want)
    norms, reference_norms = _losses(out, "grad_norm"), _losses(reference_run, "grad_norm")
    worst_norm = max(abs(norms[s] - reference_norms[s]) / reference_norms[s] for s in want)
    assert worst_norm < NORM_TOLERANCE, (norms, reference_norms)
    final, reference = load_checkpoint(out, 8), load_checkpoint(reference_run, 8)
    weights, reference_weights = final["model"], reference["model"]
    assert weights.keys() == reference_weights.keys()
    worst_weight = max((weights[k] - reference_weights[k]).abs().max().item() for k in reference_weights)
    moments, reference_moments = final["optimizer"]["state"], reference["optimizer"]["state"]
    assert moments.keys() == reference_moments.keys()
    worst_moment = max((moments[i][name] - reference_moments[i][name]).abs().max().item()
                       for i in reference_moments for name in ("exp_avg", "exp_avg_sq"))
    assert max(worst_step, worst_weight, worst_moment) < TOLERANCE, (worst_step, worst_weight, worst_moment)
    # The agreement means something only if training moved the weights well beyond it from where
    # every run started: the model the trainer builds from the default seed 12345.
    torch.manual_seed(12345)
    config = model_config("tiny", vocab_size_of(os.path.join(corpus_dir, "vocab.txt")), 0.1)
    start = build_model(config, "native", "sample").state_dict()
    assert max((reference_weights[k] - start[k]).abs().max().item() for k in start) > 1e-3


@pytest.mark.parametrize("mode, world, micro", [("fsdp", 4, 1), ("ddp", 2, 2)])
def test_native_data_parallel_gives_the_losses_of_one_process(mode, world, micro, corpus_dir, reference_run,
                                                              tmp_path):
    """FSDP2 at dp 4 (micro-batch 1) and DDP at dp 2 (micro-batch 2), both with accumulation 2:
    the losses, weights and optimizer state of the one-process run. The checkpoint they write is
    the own path's layout: whole tensors under the same names, the optimizer keyed by index."""
    out = str(tmp_path / mode)
    done = run_ranks(world, _args(corpus_dir, out, "--native", "--data-parallel", mode, "--micro-batch",
                                  str(micro)))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert f"native {mode.upper()} over dp {world}, world {world}, micro-batch {micro} x accumulation 2" \
        in done.stdout
    with open(os.path.join(out, "results.json")) as f:
        described = json.load(f)["results"]["parameters"]["device"]
    assert described.endswith(f"native {mode.upper()} over dp {world}"), described
    _assert_same_training(out, reference_run, corpus_dir)


def test_native_checkpoints_resume_at_another_size_and_on_the_own_path(corpus_dir, reference_run, tmp_path):
    """FSDP2 at dp 4 killed after step 5 resumes from its step-4 checkpoint on DDP at dp 2, and a
    copy of it on the own path in one process; the own path's checkpoint resumes on FSDP2 at
    dp 2: each keeps the metrics of steps 1 to 4, trains steps 5 to 8 and ends with the
    reference's losses, weights and moments."""
    out = str(tmp_path / "fsdp4")
    killed = run_ranks(4, _args(corpus_dir, out, "--native", "--micro-batch", "1"), module="die_after_step",
                       TRN_DIE_AFTER_STEP="5")
    assert killed.returncode != 0
    _mark_rows(out)
    own = str(tmp_path / "own")
    shutil.copytree(out, own)

    resumed = run_ranks(2, _args(corpus_dir, out, "--native", "--data-parallel", "ddp"))
    assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr[-3000:]
    assert f"resumed from {out}/ckpt_4.pt (step 4, 32 samples consumed)" in resumed.stdout
    _assert_resumed_after_step_4(out)
    _assert_same_training(out, reference_run, corpus_dir)

    assert main(_args(corpus_dir, own)) == 0
    _assert_resumed_after_step_4(own)
    _assert_same_training(own, reference_run, corpus_dir)

    from_own = str(tmp_path / "from_own")
    shutil.copytree(reference_run, from_own)
    for name in os.listdir(from_own):
        if name.startswith(("ckpt_6", "ckpt_8")):
            os.remove(os.path.join(from_own, name))
    _mark_rows(from_own)
    resumed = run_ranks(2, _args(corpus_dir, from_own, "--native", "--micro-batch", "1"))
    assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr[-3000:]
    assert f"resumed from {from_own}/ckpt_4.pt (step 4, 32 samples consumed)" in resumed.stdout
    _assert_resumed_after_step_4(from_own)
    _assert_same_training(from_own, reference_run, corpus_dir)


def test_lamb_over_fsdp2_shards_steps_as_over_whole_parameters(corpus_dir, tmp_path):
    """LAMB's trust ratio is a ratio of whole-parameter norms: over FSDP2's shards (DTensors) at
    dp 2 it gives the one-process run's losses and final weights."""
    native, own = str(tmp_path / "native"), str(tmp_path / "own")
    done = run_ranks(2, pretrain_args(corpus_dir, native, "--native", "--optimizer", "lamb", steps=3))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert main(pretrain_args(corpus_dir, own, "--optimizer", "lamb", steps=3)) == 0
    got, want = _losses(native), _losses(own)
    assert sorted(got) == [1, 2, 3] and max(abs(got[s] - want[s]) for s in want) < TOLERANCE, (got, want)
    weights, reference_weights = load_checkpoint(native, 3)["model"], load_checkpoint(own, 3)["model"]
    assert max((weights[k] - reference_weights[k]).abs().max().item() for k in reference_weights) < TOLERANCE


def test_compiled_encoder_layers_share_one_graph_and_compute_as_eager():
    """--compile at one process: 4 encoder layers compiled in place make at most 2 graphs between
    them (the second once the dropout's counter cache is filled), not one per layer (each dropout
    site's number would be a constant Dynamo guards on), and forward and backward, per-sample
    dropout on, give the eager model's loss and gradients."""
    import copy
    import dataclasses

    import torch._dynamo
    from torch._dynamo.utils import counters

    from trn_trainer.devices.choice import select_device
    from trn_trainer.environment import read_dist_env
    from trn_trainer.models.dropout import sample_seeds
    from trn_trainer.parallel.native_data_parallel import NativeDataParallel
    from trainer_testlib import bert_inputs

    torch.manual_seed(3)
    config = dataclasses.replace(model_config("tiny", 200, 0.1), num_hidden_layers=4)
    eager = build_model(config, "native", "sample")
    compiled = copy.deepcopy(eager)
    device = select_device("cpu", "fp32", read_dist_env({}), native=True)
    torch._dynamo.reset()
    counters.clear()
    NativeDataParallel(compiled, device, "fsdp", compile_layers=True)
    ids, segments, mask, positions = bert_inputs(config)
    for step in range(2):
        seeds = sample_seeds(7, range(3 * step, 3 * step + 3))
        losses = []
        for model in (eager, compiled):
            model.zero_grad()
            mlm, nsp = model(ids, segments, mask, positions, seeds)
            loss = mlm.float().pow(2).mean() + nsp.float().pow(2).mean()
            loss.backward()
            losses.append(loss.item())
        assert abs(losses[0] - losses[1]) < TOLERANCE, losses
        worst = max((a.grad - b.grad).abs().max().item()
                    for a, b in zip(eager.parameters(), compiled.parameters()))
        assert worst < TOLERANCE, worst
    assert 1 <= counters["stats"]["unique_graphs"] <= 2, dict(counters["stats"])


def test_compiled_encoder_layers_under_fsdp2_train_as_eager(corpus_dir, tmp_path):
    """--compile with FSDP2 at dp 2 (each layer compiled, then sharded): the one-process eager
    run's losses."""
    native, own = str(tmp_path / "native"), str(tmp_path / "own")
    done = run_ranks(2, pretrain_args(corpus_dir, native, "--native", "--compile", steps=2), timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert main(pretrain_args(corpus_dir, own, steps=2)) == 0
    got, want = _losses(native), _losses(own)
    assert sorted(got) == [1, 2] and max(abs(got[s] - want[s]) for s in want) < TOLERANCE, (got, want)


@pytest.mark.parametrize("mode", ["fsdp", "ddp"])
def test_bf16_computes_in_bf16_over_fp32_master_weights_and_gradients(mode):
    """--dtype bf16 (here on the CPU, in a process group of one, which --native would not wrap):
    the encoder layers compute in bf16 - FSDP2 through its MixedPrecisionPolicy, DDP under the
    device's autocast - while the parameters the optimizer steps and their gradients stay fp32."""
    import types

    import torch.distributed as dist

    from trn_trainer.devices.native import NativeDevice
    from trn_trainer.parallel.native_data_parallel import NativeDataParallel
    from trainer_testlib import bert_inputs

    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        env = types.SimpleNamespace(distributed=True, world_size=1, local_rank=0)
        device = NativeDevice(env, "bf16", "cpu")
        config = model_config("tiny", 200, 0.0)
        model = build_model(config, "native", "sample")
        wrapped = NativeDataParallel(model, device, mode)
        seen = []  # the dtype of a layer's feed-forward output (autocast keeps LayerNorm's input fp32)
        model.bert.encoder.layer[0].intermediate.register_forward_hook(
            lambda module, inputs, output: seen.append(output.dtype))
        with wrapped.micro_step(last=True), wrapped.autocast():
            mlm, nsp = wrapped.model(*bert_inputs(config))
        (mlm.float().logsumexp(-1).mean() + nsp.float().logsumexp(-1).mean()).backward()
        assert seen == [torch.bfloat16], seen
        assert all(p.dtype == torch.float32 and p.grad.dtype == torch.float32 for p in model.parameters())
    finally:
        dist.destroy_process_group()


@pytest.mark.parametrize("mode, reductions", [("fsdp", ["reduce_scatter_single"] * 3),
                                              ("ddp", ["all_reduce"])])
def test_gradients_are_reduced_in_the_last_micro_step_only(mode, reductions, corpus_dir, tmp_path):
    """Accumulation 3 at dp 2, every torch.distributed collective recorded in order with the
    forwards and optimizer steps: the micro-steps before the last reduce nothing (FSDP2 still
    all-gathers the layers' weights); after the last forward, FSDP2 reduce-scatters once per
    sharded module (the 2 encoder layers and the root) and DDP all-reduces its gradient buckets
    (through the sum hook: dist.all_reduce); then one all-reduce of the step's loss sums."""
    events_dir = tmp_path / "events"
    events_dir.mkdir()
    args = pretrain_args(corpus_dir, str(tmp_path / "out"), "--native", "--data-parallel", mode,
                         steps=2, global_batch=12)
    done = run_ranks(2, args, module="count_collectives", TRN_EVENTS_DIR=str(events_dir))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    for rank in (0, 1):
        events = [e for e in json.load(open(events_dir / f"rank{rank}.json"))
                  if not e.endswith("@group") and e != "all_gather_single"]
        steps = []
        while "optimizer_step" in events:
            end = events.index("optimizer_step")
            steps.append(events[:end])
            events = events[end + 1:]
        assert len(steps) == 2, steps
        for step in steps:
            assert step[:3] == ["forward"] * 3, step  # nothing reduced before the last micro-step
            after = step[3:]
            assert after[-1] == "all_reduce", step  # the loss sums
            if mode == "fsdp":
                assert after[:-1] == reductions, step
            else:  # DDP's buckets: one, or more once it rebuilt them after the first step
                assert after[:-1] and set(after[:-1]) == set(reductions), step


def test_hugging_face_model_on_the_native_path_is_one_line(corpus_dir, tmp_path):
    done = run_cli(pretrain_args(corpus_dir, str(tmp_path / "out"), "--native", "--model-impl", "hf"))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "--model-impl hf with --native:" in lines[0], lines
    assert "use --model-impl native" in lines[0]


@pytest.mark.parametrize("option", [["--data-parallel", "ddp"], ["--compile"]])
def test_a_native_option_without_native_is_one_line(option, corpus_dir, tmp_path):
    done = run_cli(pretrain_args(corpus_dir, str(tmp_path / "out"), *option))
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"trn_trainer: error: {' '.join(option)}: an option of the native path (PyTorch's FSDP2 or DDP, "
        "torch.compile); add --native, or drop it for the own path, which all-reduces the gradients itself"]
    assert not os.path.exists(tmp_path / "out")


def test_device_neuron_is_the_native_path(corpus_dir, tmp_path):
    """--device neuron alone takes the native path, as for pretrain-lm: here, without TorchNeuron,
    that is the native device's one line, not a request to add --native."""
    done = run_cli(pretrain_args(corpus_dir, str(tmp_path / "out"), "--device", "neuron"))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "--device neuron: TorchNeuron is not installed here" in lines[0], lines


def test_one_native_process_trains_unwrapped_like_the_own_path(corpus_dir, tmp_path, capsys, monkeypatch):
    """One process: nothing to reduce, the model stays unwrapped, and it trains as the own path."""
    from torch.distributed.fsdp import FSDPModule
    from torch.nn.parallel import DistributedDataParallel

    from trn_trainer.parallel import native_data_parallel

    made = []

    class Recorded(native_data_parallel.NativeDataParallel):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(native_data_parallel, "NativeDataParallel", Recorded)
    native, own = str(tmp_path / "native"), str(tmp_path / "own")
    assert main(pretrain_args(corpus_dir, native, "--native", steps=2)) == 0
    assert "native, one process (nothing to reduce)" in capsys.readouterr().out
    assert len(made) == 1, made
    model = made[0].model
    assert model is made[0].inner and not isinstance(model, DistributedDataParallel), type(model)
    assert not [m for m in model.modules() if isinstance(m, FSDPModule)], type(model)
    assert main(pretrain_args(corpus_dir, own, steps=2)) == 0
    assert _losses(native) == _losses(own) and len(_losses(own)) == 2
