"""pretrain-lm's native path (docs/architecture.md#native-path): DTensor tensor parallel and FSDP2
over a ("dp", "tp") DeviceMesh give one process's losses (fp32, CPU, gloo); compiled, the steps
after the first make no new graph; bad input is one line, exit 2."""

import glob
import os
import shutil
import types

import pytest
import torch
import torch.distributed as dist

from trainer_testlib import read_metrics, run_cli, run_ranks
from trn_trainer.errors import UsageError
from trn_trainer.models.llama_config import llama_config, llama_parameter_count
from trn_trainer.models.llama_native import NativeLlamaForCausalLM, causal_lm_loss, next_token_labels
from trn_trainer.parallel.native_llama import native_mesh, parallelize
from trn_trainer.tasks.pretrain_lm_checks import check_sequence_splits


def train(nproc, data, output, *extra, steps=4, **env):
    args = ["pretrain-lm", "--native", "--data", str(data), "--output", str(output), "--model", "tiny",
            "--global-batch", "8", "--steps", str(steps), "--lr", "1e-3", *extra]
    done = run_ranks(nproc, args, timeout=400, **env) if nproc > 1 else run_cli(args, timeout=400, **env)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return read_metrics(output)


def losses(rows):
    return [row["loss"] for row in rows]


def test_tensor_parallel_and_fsdp2_give_one_processs_losses(lm_data, tmp_path):
    """The gradient norms too: AdamW's step hardly changes when every gradient is scaled alike (a
    sum over dp for a mean), the norm does."""
    one = train(1, lm_data, tmp_path / "one")
    assert len(one) == 4 and one[-1]["loss"] < one[0]["loss"]
    for name, extra in {"tp2dp2": ["--tensor-parallel", "2"], "dp4": []}.items():
        split = train(4, lm_data, tmp_path / name, *extra)
        assert len(split) == 4, (name, split)
        for key in ("loss", "grad_norm"):
            worst = max(abs(a[key] - b[key]) for a, b in zip(one, split))
            assert worst < 1e-5, (name, key, one, split)


def test_compiled_steps_after_the_first_make_no_new_graph(lm_data, tmp_path):
    """Seen failing with a sequence length that changes between steps: 1, 2, 2, 2 graphs."""
    rows = train(1, lm_data, tmp_path / "compiled", "--compile")
    graphs = [row["compiled_graphs"] for row in rows]
    assert graphs[0] >= 1 and all(g == graphs[0] for g in graphs[1:]), graphs
    eager = losses(train(1, lm_data, tmp_path / "eager"))
    assert max(abs(a - b) for a, b in zip(eager, losses(rows))) < 1e-5, (eager, losses(rows))


def test_trn_runs_warm_up_takes_the_steps_and_writes_nothing(lm_data, tmp_path):
    """trn-run's warm-up step on the native path (TRN_COMPILE_WARMUP=1) fills the compile cache:
    no checkpoint, metrics or results, so the training run after it starts from step 0."""
    output = tmp_path / "run"
    args = ["pretrain-lm", "--native", "--data", str(lm_data), "--output", str(output), "--model", "tiny",
            "--global-batch", "8", "--steps", "2", "--lr", "1e-3", "--checkpoint-every", "1"]
    done = run_cli(args, timeout=400, TRN_COMPILE_WARMUP="1")
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert "writing nothing" in done.stdout, done.stdout
    assert not output.exists() or not os.listdir(output), os.listdir(output)
    rows = train(1, lm_data, output, steps=2)
    assert [row["step"] for row in rows] == [1, 2], rows


@pytest.mark.parametrize("extra, env, problem", [
    (["--zero1"], {}, "--zero1 with --native: FSDP2 already shards"),
    (["--sequence-parallel"], {}, "--sequence-parallel with --native"),
    (["--compile"], {"TORCH_COMPILE_DYNAMIC_SOURCES": ".*"},
     "--compile: TORCH_COMPILE_DYNAMIC_SOURCES=.* makes torch.compile's shapes dynamic"),
])
def test_bad_input_is_one_line(lm_data, tmp_path, extra, env, problem):
    done = run_cli(["pretrain-lm", "--native", "--data", str(lm_data), "--output", str(tmp_path / "out"),
                    "--model", "tiny", "--global-batch", "8", "--steps", "2", *extra], timeout=300, **env)
    assert done.returncode == 2, done.stderr[-2000:]
    assert problem in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_sequence_that_does_not_split_over_tensor_parallel_is_one_line():
    with pytest.raises(UsageError, match="sequence length 30 of --data d does not split over it") as raised:
        check_sequence_splits(30, 4, "d", native=True)
    assert "\n" not in str(raised.value)
    assert str(raised.value).startswith("--native --tensor-parallel 4: "), raised.value
    with pytest.raises(UsageError, match="sequence length 30 of --data d does not split over it") as raised:
        check_sequence_splits(30, 4, "d", native=False)
    assert "\n" not in str(raised.value)
    assert str(raised.value).startswith("--sequence-parallel: "), raised.value
    assert str(raised.value).endswith(", or leave --sequence-parallel out"), raised.value
    for native in (True, False):
        check_sequence_splits(32, 4, "d", native=native)
        check_sequence_splits(30, 1, "d", native=native)


def test_llama3_sizes_are_metas():
    """config.json of meta-llama/Meta-Llama-3-8B and -70B; the parameter counts are their
    model.safetensors.index.json's total_size in bf16 (2 bytes a parameter)."""
    for name, (layers, hidden, heads, inter, total_size) in {
            "llama3-8b": (32, 4096, 32, 14336, 16_060_522_496),
            "llama3-70b": (80, 8192, 64, 28672, 141_107_412_992)}.items():
        c = llama_config(name, 400)  # the data's vocabulary does not change Meta's
        assert (c.num_hidden_layers, c.hidden_size, c.num_attention_heads, c.intermediate_size) == \
            (layers, hidden, heads, inter)
        assert (c.num_key_value_heads, c.vocab_size, c.rope_theta, c.rms_norm_eps,
                c.max_position_embeddings) == (8, 128256, 500000.0, 1e-5, 8192)
        assert 2 * llama_parameter_count(c) == total_size


@pytest.mark.parametrize("native, what, fix", [
    (["--native"], "--native --model llama3-70b on cpu (1 process(es) here, world 1)",
     "choose a smaller --model, more processes over more nodes, or train it on Trainium or GPUs"),
    ([], "--model llama3-70b on CPU (1 process(es) here, tensor parallel 1)",
     "choose a smaller --model, or train it on Trainium or GPUs"),
])
def test_a_model_the_host_cannot_build_is_one_line(native, what, fix, lm_data, tmp_path):
    """The native and the own path's one check of the host's memory (pretrain_lm_checks.check_host_memory)."""
    done = run_cli(["pretrain-lm", *native, "--data", str(lm_data), "--output", str(tmp_path / "out"),
                    "--model", "llama3-70b", "--global-batch", "8", "--steps", "1"], timeout=300)
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"{what} needs about" in done.stderr
    assert done.stderr.strip().endswith(f"available: {fix}"), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_checkpoint_resumes_at_another_layout_with_the_same_losses(lm_data, tmp_path):
    """Through the checkpoint engine's DCP: tp 2 x dp 2 writes checkpoints 2, 4 and 6; from its
    checkpoint 2, FSDP2 at dp 4 trains steps 3 to 6, and from dp 4's checkpoint 4 one process
    trains steps 5 and 6, each with the unbroken run's losses."""
    # Written in the step: a background save still in flight when the next is due is skipped,
    # which on a loaded machine would leave a checkpoint out.
    every = ["--checkpoint-every", "2", "--checkpoint-mode", "sync"]
    whole = losses(train(4, lm_data, tmp_path / "tp2dp2", "--tensor-parallel", "2", *every, steps=6))
    assert len(whole) == 6
    keep(tmp_path / "tp2dp2", 2, tmp_path / "dp4")
    dp4 = losses(train(4, lm_data, tmp_path / "dp4", *every, steps=6))
    keep(tmp_path / "dp4", 4, tmp_path / "one")
    one = losses(train(1, lm_data, tmp_path / "one", *every, steps=6))
    assert len(dp4) == 4 and len(one) == 2, (dp4, one)
    worst = max(abs(a - b) for a, b in zip(whole[2:], dp4))
    assert worst < 1e-5, (whole, dp4)
    worst = max(abs(a - b) for a, b in zip(whole[4:], one))
    assert worst < 1e-5, (whole, one)


def keep(run, step, into):
    """A folder holding `run`'s checkpoint `step` alone: its metrics are then the resumed steps'."""
    os.makedirs(into)
    for path in glob.glob(str(run / f"ckpt_{step}.*")):
        shutil.copy(path, into)


def test_bf16_computes_in_bf16_over_fp32_master_weights_and_gradients():
    """FSDP2's MixedPrecisionPolicy as parallelize sets it for --dtype bf16 (here on the CPU, in one
    process): the layers compute in bf16, the parameters AdamW steps and their gradients are fp32.
    Seen failing with the policy left out (the layers computed in fp32)."""
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        device = types.SimpleNamespace(kind="cpu", dtype="bf16", torch_device=torch.device("cpu"))
        with torch.device("meta"):
            model = NativeLlamaForCausalLM(llama_config("tiny", 64))
        model = parallelize(model, native_mesh(device, 1, 1), device, seed=0)
        seen = []
        model.model.layers[0].mlp.register_forward_pre_hook(
            lambda module, inputs: seen.append((inputs[0].dtype, module.up_proj.weight.dtype)))
        ids = torch.randint(0, 64, (2, 16), generator=torch.Generator().manual_seed(0))
        loss = causal_lm_loss(model(ids), next_token_labels(ids))
        loss.backward()
        assert seen == [(torch.bfloat16, torch.bfloat16)] and loss.dtype == torch.float32
        assert all(p.dtype == torch.float32 and p.grad.dtype == torch.float32 for p in model.parameters())
    finally:
        dist.destroy_process_group()
