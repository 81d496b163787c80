"""The trainer's XLA path on the torch-xla double (tests/doubles/torch_xla): one graph cut per
micro-step plus one per optimizer step, the same three graphs every step after the first (nothing
new to compile), one bucketed all-reduce call per step, no host read in the middle of a graph,
the same losses as the CPU path, and the PJRT world checked."""

import json
import os
import subprocess

import pytest

from trainer_testlib import (PYTHON, graphs_of_each_step, pretrain_args, read_metrics, run_cli,
                             start_per_core, train_on_xla_double, xla_double_env)

STEPS, MICRO, GLOBAL = 3, 2, 12


def _per_core(corpus_dir, out, stats, world, *extra_env):
    """`world` processes on the double started as spank_trn's per-core tasks."""
    def env_of(rank, **dist_vars):
        env = xla_double_env(stats, **dist_vars)
        for item in extra_env:
            env.update(item(rank))
        return env

    args = pretrain_args(corpus_dir, out, "--device", "xla", "--dtype", "fp32", steps=STEPS, micro=MICRO,
                         global_batch=GLOBAL)
    return start_per_core(world, args, env_of)


def _counts(stats, ordinal):
    return json.load(open(os.path.join(stats, f"{ordinal}.json")))


@pytest.mark.parametrize("world", [1, 2])
def test_graph_cuts_all_reduces_and_host_syncs_per_step(corpus_dir, tmp_path, world):
    stats = tmp_path / "stats"
    stats.mkdir()
    out = str(tmp_path / "xla")
    for proc, stdout, stderr in _per_core(corpus_dir, out, stats, world):
        assert proc.returncode == 0, stdout[-2000:] + stderr[-2000:]
    accumulation = GLOBAL // (MICRO * world)
    # The final barrier waits on the host (gloo): no graph, cut or collective of its own.
    # xm.rendezvous there would cut, gather the payload sizes (an all-reduce of zero-padded
    # copies, as torch-xla gathers by default) and cut again: a graph compiled at the end of
    # every run.
    for ordinal in range(world):
        counts = _counts(stats, ordinal)
        # A graph per micro-step and one for the reduction + optimizer step (MpDeviceLoader also
        # cuts before the first micro-batch, when nothing is traced: no graph).
        assert counts["graphs"] == STEPS * (accumulation + 1), counts
        assert counts["cuts"] == STEPS * (accumulation + 2), counts
        all_reduces = STEPS if world > 1 else 0
        assert counts["all_reduce_calls"] == all_reduces, counts
        assert counts["mid_graph_syncs"] == 0, counts["sync_sites"]
        # Three graphs per step at any accumulation once the gradients and the optimizer's
        # state exist (first micro-step, the others, the optimizer step); the first step has
        # its own first and last.
        runs = graphs_of_each_step(counts, STEPS, accumulation + 1)
        assert len(set(runs[1])) == 3, runs
        assert counts["distinct_graphs"] == 5, counts["graph_sequence"]
        if world > 1:  # the all-reduce comes after the last micro-step's cut, before the step's
            step = counts["events"][:accumulation + 3]
            assert step == ["cut"] * (accumulation + 1) + ["all_reduce", "cut"], counts["events"][:8]

    # The same run on the CPU path: the same losses (fp32 both; the double computes on the CPU).
    cpu_out = str(tmp_path / "cpu")
    if world == 1:
        result = run_cli(pretrain_args(corpus_dir, cpu_out, "--device", "cpu", steps=STEPS, micro=MICRO,
                                       global_batch=GLOBAL))
        assert result.returncode == 0, result.stderr[-2000:]
        xla_losses = [r["loss"] for r in read_metrics(out)]
        cpu_losses = [r["loss"] for r in read_metrics(cpu_out)]
        assert len(xla_losses) == STEPS
        assert max(abs(a - b) for a, b in zip(xla_losses, cpu_losses)) < 1e-5, (xla_losses, cpu_losses)


@pytest.mark.parametrize("launch", ["per-core", "torchrun"])
def test_a_world_of_8_forms_as_per_core_tasks_and_as_torchrun_workers(corpus_dir, tmp_path, launch):
    """8 BERT ranks on the double, started as spank_trn's per-core tasks (which replicate
    themselves) or as torchrun's workers (whose world torch-xla's xla:// handler makes): one
    world - the losses of one CPU process at the same global batch, one all-reduce a step on
    every rank, the same graphs on every rank."""
    stats = tmp_path / "stats"
    stats.mkdir()
    out = str(tmp_path / "xla")
    args = pretrain_args(corpus_dir, out, "--device", "xla", "--dtype", "fp32", steps=STEPS, micro=1,
                         global_batch=16)
    train_on_xla_double(8, args, stats, launch)
    cpu_out = str(tmp_path / "cpu")
    cpu = run_cli(pretrain_args(corpus_dir, cpu_out, "--device", "cpu", steps=STEPS, micro=1,
                                global_batch=16))
    assert cpu.returncode == 0, cpu.stderr[-2000:]
    xla_losses = [r["loss"] for r in read_metrics(out)]
    cpu_losses = [r["loss"] for r in read_metrics(cpu_out)]
    assert len(xla_losses) == STEPS and max(abs(a - b) for a, b in zip(xla_losses, cpu_losses)) < 1e-5, \
        (xla_losses, cpu_losses)
    digests = set()
    for ordinal in range(8):
        counts = _counts(stats, ordinal)
        assert counts["all_reduce_calls"] == STEPS and counts["mid_graph_syncs"] == 0, counts["sync_sites"]
        runs = graphs_of_each_step(counts, STEPS, 2 + 1)  # accumulation 16 / (1 x 8)
        digests.add(tuple(counts["graph_digests"][graph] for graph in runs[1]))
    assert len(digests) == 1, digests


def test_a_pjrt_world_that_is_not_ours_stops_with_one_line(corpus_dir, tmp_path):
    stats = tmp_path / "stats"
    stats.mkdir()
    swapped = lambda rank: {"NEURON_PJRT_PROCESS_INDEX": str(1 - rank)}  # noqa: E731
    results = _per_core(corpus_dir, str(tmp_path / "out"), stats, 2, swapped)
    for proc, stdout, stderr in results:
        assert proc.returncode == 5, stdout[-1000:] + stderr[-1000:]
        assert "torch-xla sees rank" in stderr and "Traceback" not in stderr, stderr[-1000:]


def test_one_torchrun_worker_per_node_is_one_line_before_the_rendezvous(corpus_dir, tmp_path):
    """torch-xla's xla:// handler replicates a node's only torchrun worker over no device: a world
    of its own. The trainer says so, with the fix, before any rendezvous (no peer is started)."""
    env = xla_double_env(tmp_path, RANK="1", WORLD_SIZE="2", LOCAL_RANK="0", LOCAL_WORLD_SIZE="1",
                         MASTER_ADDR="127.0.0.1", MASTER_PORT="1")
    env["TORCHELASTIC_RUN_ID"] = "t"  # as torchrun sets it for its workers
    args = pretrain_args(corpus_dir, str(tmp_path / "out"), "--device", "xla", "--dtype", "fp32")
    result = subprocess.run([PYTHON, "-m", "trn_trainer"] + args, env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 5, result.stdout[-1000:] + result.stderr[-1000:]
    assert "LOCAL_WORLD_SIZE=1" in result.stderr and "--nproc_per_node" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr, result.stderr[-2000:]


def test_the_double_lacks_what_torch_xla_2_9_removed(tmp_path):
    code = ("import torch_xla.core.xla_model as xm\n"
            "for name in ('xrt_world_size', 'get_ordinal'):  # get_local_ordinal stays in 2.9\n"
            "    assert not hasattr(xm, name), name\n"
            "print('ok')\n")
    env = xla_double_env(tmp_path)
    result = subprocess.run([PYTHON, "-c", code], env=env, capture_output=True, text=True)
    assert result.stdout.strip() == "ok", result.stderr


def test_bf16_recipe_bf16_model_fp32_master_weights_stochastic_rounding(corpus_dir, tmp_path):
    """--dtype bf16 on XLA: the runtime starts with stochastic rounding, the checkpoint holds the
    fp32 master weights (not a bf16 model's), and the losses follow the fp32 CPU run closely."""
    import torch

    stats = tmp_path / "stats"
    stats.mkdir()
    out = str(tmp_path / "bf16")
    args = pretrain_args(corpus_dir, out, "--device", "xla", "--dtype", "bf16", steps=STEPS,
                         micro=MICRO, global_batch=GLOBAL)
    result = subprocess.run([PYTHON, "-m", "trn_trainer"] + args, env=xla_double_env(stats),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert _counts(stats, 0)["stochastic_rounding"] == "1"
    state = torch.load(os.path.join(out, f"ckpt_{STEPS}.pt"))
    weights = [v for k, v in state["model"].items() if v.is_floating_point()]
    assert weights and all(v.dtype == torch.float32 for v in weights)
    # fp32 copies keep updates a bf16 weight would round away: not every value is a bf16 one.
    assert any((v != v.to(torch.bfloat16).float()).any() for v in weights)
    cpu_out = str(tmp_path / "cpu")
    cpu = run_cli(pretrain_args(corpus_dir, cpu_out, "--device", "cpu", steps=STEPS, micro=MICRO,
                                global_batch=GLOBAL))
    assert cpu.returncode == 0, cpu.stderr[-2000:]
    bf16_losses = [r["loss"] for r in read_metrics(out)]
    cpu_losses = [r["loss"] for r in read_metrics(cpu_out)]
    assert max(abs(a - b) / b for a, b in zip(bf16_losses, cpu_losses)) < 0.02, (bf16_losses, cpu_losses)
    # It resumes from the fp32 weights and goes on.
    args[args.index("--steps") + 1] = str(STEPS + 1)
    result = subprocess.run([PYTHON, "-m", "trn_trainer"] + args, env=xla_double_env(stats),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert f"(step {STEPS}," in result.stdout and len(read_metrics(out)) == STEPS + 1, result.stdout


def test_step_values_are_read_every_log_every_steps(corpus_dir, tmp_path):
    """A host read waits for the device: with --log-every 4 over 6 steps the XLA path reads the
    step values twice (steps 4 and 6, the last, which checkpoints), yet writes all 6 rows."""
    stats = tmp_path / "stats"
    stats.mkdir()
    out = str(tmp_path / "xla")
    args = pretrain_args(corpus_dir, out, "--device", "xla", "--dtype", "fp32", steps=6, micro=MICRO,
                         global_batch=GLOBAL)
    args[args.index("--log-every") + 1] = "4"
    result = subprocess.run([PYTHON, "-m", "trn_trainer"] + args, env=xla_double_env(stats),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert _counts(stats, 0)["events"].count("closures") == 2, _counts(stats, 0)["events"]
    rows = read_metrics(out)
    assert [r["step"] for r in rows] == list(range(1, 7))
    assert all(r["step_time_s"] > 0 for r in rows)
