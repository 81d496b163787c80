"""pretrain-lm on the devices (docs/llama.md#devices): on the torch-xla double (tests/doubles),
tensor parallel 2 as spank_trn starts it, in a world of 2, and tensor parallel 2 and 4 in a
world of 8 (several groups, ZeRO-1), gives the CPU run's losses with no host read in the middle
of a graph; --dtype bf16 trains a bf16 model with fp32 master weights, which the checkpoint
holds, close to the fp32 losses; bf16 on CPU is refused."""

import json

import pytest

from trainer_testlib import (graphs_of_each_step, read_metrics, run_cli, start_per_core,
                             train_on_xla_double, xla_double_env)
from trn_trainer.checkpoint import llama_state
from trn_trainer.checkpoint.tiers import Tiers
from trn_trainer.models.llama_config import llama_config

STEPS = 3


def lm_args(data, output, *extra):
    return ["pretrain-lm", "--data", str(data), "--output", str(output), "--model", "tiny",
            "--global-batch", "8", "--micro-batch", "2", "--steps", str(STEPS), "--lr", "1e-3", *extra]


@pytest.fixture(scope="module")
def cpu_losses(lm_data, tmp_path_factory):
    out = tmp_path_factory.mktemp("cpu")
    done = run_cli(lm_args(lm_data, out, "--device", "cpu"))
    assert done.returncode == 0, done.stderr[-2000:]
    return [m["loss"] for m in read_metrics(out)]


def test_tensor_parallel_on_xla_gives_the_cpu_losses(lm_data, cpu_losses, tmp_path):
    """With selective activation checkpointing: torch-xla's checkpoint recomputes each layer's
    core attention in the backward, behind an optimization barrier, and the losses stay the CPU
    run's (which keeps its activations)."""
    stats = tmp_path / "stats"
    stats.mkdir()
    out = tmp_path / "xla"
    results = start_per_core(2, lm_args(lm_data, out, "--device", "xla", "--dtype", "fp32",
                                        "--tensor-parallel", "2", "--log-every", "2",
                                        "--activation-checkpointing", "selective"),
                             lambda rank, **dist_vars: xla_double_env(stats, **dist_vars))
    for proc, stdout, stderr in results:
        assert proc.returncode == 0, stdout[-2000:] + stderr[-2000:]
    rows = read_metrics(out)
    losses = [m["loss"] for m in rows]
    assert len(losses) == STEPS and max(abs(a - b) for a, b in zip(losses, cpu_losses)) < 1e-4
    assert [m["step"] for m in rows] == [1, 2, 3] and all(m["step_time_s"] > 0 for m in rows), rows
    for ordinal in range(2):
        counts = json.load(open(stats / f"{ordinal}.json"))
        assert counts["mid_graph_syncs"] == 0, counts["sync_sites"]
        # A host read waits for the device: the step values are read after steps 2 (--log-every)
        # and 3 (the last, which checkpoints), once each step's graph ran - not after every step.
        assert counts["events"].count("closures") == 2, counts["events"]
        # 4 micro-steps and the optimizer step; after the first step no new graph.
        assert len(set(graphs_of_each_step(counts, STEPS, 4 + 1)[1])) == 3, counts["graph_sequence"]
        # One recompute per layer in every micro-step's backward.
        layers = llama_config("tiny", vocab_size=96).num_hidden_layers
        assert counts["events"].count("optimization_barrier") == STEPS * 4 * layers, counts["events"]


@pytest.mark.parametrize("tp", [2, 4])
def test_tensor_parallel_in_a_world_of_8_on_xla_gives_the_cpu_losses(lm_data, cpu_losses, tmp_path, tp):
    """8 per-core ranks: 8/tp tensor-parallel groups ([0, 1], [2, 3], ... at tp 2) and tp
    data-parallel ones ([0, 2, 4, 6], [1, 3, 5, 7]; ZeRO-1 over them): every
    collective stays within its group - a sum over the world or another group would change the
    losses - and every group has the mesh that torch-xla needs from new_group, which the double
    refuses when partial."""
    stats = tmp_path / "stats"
    stats.mkdir()
    out = tmp_path / "xla"
    results = start_per_core(8, lm_args(lm_data, out, "--device", "xla", "--dtype", "fp32",
                                        "--tensor-parallel", str(tp), "--zero1"),
                             lambda rank, **dist_vars: xla_double_env(stats, **dist_vars))
    for proc, stdout, stderr in results:
        assert proc.returncode == 0, stdout[-2000:] + stderr[-2000:]
    assert f"tp {tp} x dp {8 // tp}" in results[0][1], results[0][1]
    losses = [m["loss"] for m in read_metrics(out)]
    assert len(losses) == STEPS, losses
    assert max(abs(a - b) for a, b in zip(losses, cpu_losses)) < 1e-4, (losses, cpu_losses)
    accumulation, digests = 8 // (2 * (8 // tp)), set()
    for ordinal in range(8):
        counts = json.load(open(stats / f"{ordinal}.json"))
        assert counts["mid_graph_syncs"] == 0, counts["sync_sites"]
        runs = graphs_of_each_step(counts, STEPS, accumulation + 1)  # no new graph after step 1
        # The last step checkpoints (ZeRO-1's state included) without a graph of its own, and
        # the final barrier waits on the host: nothing runs after the steps' graphs.
        assert len(counts["graph_sequence"]) == STEPS * (accumulation + 1), counts["graph_sequence"]
        digests.add(tuple(counts["graph_digests"][graph] for graph in runs[1]))
        # ZeRO-1 a step: one reduce-scatter of the gradients and one all-gather of the values,
        # not an all-reduce and a broadcast per parameter.
        events = counts["events"]
        assert events.count("reduce_scatter") == STEPS and events.count("all_gather") == STEPS, events
    # Every rank traced the same graphs, replica groups included (a rank that knew only its own
    # group's would compile another), the optimizer step's too: ZeRO-1's part is the same size on
    # every rank and what differs (its masks and place) is data.
    assert len(digests) == 1, digests


def test_sequence_parallel_in_a_world_of_8_on_xla_gives_the_cpu_losses(lm_data, cpu_losses, tmp_path):
    """tp 2 with --sequence-parallel: every block's all-gather and reduce-scatter along the
    sequence stay within their tensor-parallel group (the double refuses a partial mesh), give
    the CPU losses, and every rank traces the same graphs, every step after the first."""
    stats = tmp_path / "stats"
    stats.mkdir()
    out = tmp_path / "xla"
    results = start_per_core(8, lm_args(lm_data, out, "--device", "xla", "--dtype", "fp32",
                                        "--tensor-parallel", "2", "--sequence-parallel"),
                             lambda rank, **dist_vars: xla_double_env(stats, **dist_vars))
    for proc, stdout, stderr in results:
        assert proc.returncode == 0, stdout[-2000:] + stderr[-2000:]
    losses = [m["loss"] for m in read_metrics(out)]
    assert max(abs(a - b) for a, b in zip(losses, cpu_losses)) < 1e-4, (losses, cpu_losses)
    accumulation, digests = 8 // (2 * 4), set()
    for ordinal in range(8):
        counts = json.load(open(stats / f"{ordinal}.json"))
        assert counts["mid_graph_syncs"] == 0, counts["sync_sites"]
        runs = graphs_of_each_step(counts, STEPS, accumulation + 1)
        digests.add(tuple(counts["graph_digests"][graph] for graph in runs[1]))
        assert counts["events"].count("reduce_scatter") > 0 and counts["events"].count("all_gather") > 0
    assert len(digests) == 1, digests


@pytest.mark.parametrize("tp, launch", [(1, "per-core"), (8, "per-core"), (2, "torchrun")])
def test_a_world_of_8_forms_on_xla_at_tp_1_2_and_8(lm_data, tmp_path, tp, launch):
    """8 ranks form one world on the double, started as spank_trn's per-core tasks or as
    torchrun's workers (whose world torch-xla's xla:// handler makes), at tp 1 (dp 8, ZeRO-1),
    tp 2 and tp 8 (one group): the losses are one CPU process's, and every rank traces the same
    graphs. tiny-mha has a key-value head per query head, so tp 8 splits it."""
    model = ("--model", "tiny-mha", "--micro-batch", "1", "--zero1")
    cpu = run_cli(lm_args(lm_data, tmp_path / "cpu", "--device", "cpu", *model))
    assert cpu.returncode == 0, cpu.stderr[-2000:]
    stats = tmp_path / "stats"
    stats.mkdir()
    out = tmp_path / "xla"
    args = lm_args(lm_data, out, "--device", "xla", "--dtype", "fp32", "--tensor-parallel", str(tp), *model)
    train_on_xla_double(8, args, stats, launch)
    cpu_losses = [m["loss"] for m in read_metrics(tmp_path / "cpu")]
    losses = [m["loss"] for m in read_metrics(out)]
    assert len(losses) == STEPS and max(abs(a - b) for a, b in zip(losses, cpu_losses)) < 1e-4, \
        (losses, cpu_losses)
    digests = set()
    for ordinal in range(8):
        counts = json.load(open(stats / f"{ordinal}.json"))
        assert counts["mid_graph_syncs"] == 0, counts["sync_sites"]
        accumulation = 8 // (8 // tp)
        runs = graphs_of_each_step(counts, STEPS, accumulation + 1)
        digests.add(tuple(counts["graph_digests"][graph] for graph in runs[1]))
    assert len(digests) == 1, digests


def test_bf16_trains_a_bf16_model_with_fp32_master_weights(lm_data, cpu_losses, tmp_path):
    import torch

    stats = tmp_path / "stats"
    stats.mkdir()
    out = tmp_path / "bf16"
    results = start_per_core(1, lm_args(lm_data, out, "--device", "xla", "--dtype", "bf16"),
                             lambda rank, **dist_vars: xla_double_env(stats, **dist_vars))
    proc, stdout, stderr = results[0]
    assert proc.returncode == 0, stdout[-2000:] + stderr[-2000:]
    assert "bf16" in stdout and json.load(open(stats / "0.json"))["stochastic_rounding"] == "1"
    losses = [m["loss"] for m in read_metrics(out)]
    assert max(abs(a - b) / b for a, b in zip(losses, cpu_losses)) < 0.02, (losses, cpu_losses)
    shards, _ = llama_state.model_shards(Tiers(str(out), keep=0), STEPS)
    weights = [v for v in shards[0].values() if v.is_floating_point()]
    assert weights and all(v.dtype == torch.float32 for v in weights)
    # fp32 copies keep updates a bf16 weight would round away: not every value is a bf16 one.
    assert any((v != v.to(torch.bfloat16).float()).any() for v in weights)


def test_bf16_on_cpu_is_refused(lm_data, tmp_path):
    done = run_cli(lm_args(lm_data, tmp_path / "out", "--device", "cpu", "--dtype", "bf16"))
    assert done.returncode == 2 and "--dtype bf16 on CPU: not supported" in done.stderr


def test_compile_is_refused_on_xla(lm_data, tmp_path):
    stats = tmp_path / "stats"
    stats.mkdir()
    args = lm_args(lm_data, tmp_path / "x", "--device", "xla", "--compile")
    [(proc, _, stderr)] = start_per_core(1, args, lambda rank, **dist: xla_double_env(stats, **dist))
    assert proc.returncode == 2 and "--compile on XLA" in stderr
