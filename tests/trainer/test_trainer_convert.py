"""trn_trainer convert (docs/llama.md#convert): a safetensors file written byte by byte from the
format's specification reads back, BF16 included; Hugging Face -> tensor-parallel shards ->
Hugging Face is exact; a real tp 2 pretrain-lm checkpoint merges into a single-process model
that computes the loss the run reported; pretrain-lm --init-from starts from split weights and
refuses those of another degree or model; bad input is one error naming the file and the fix."""

import json
import os
import re
import struct

import pytest
import torch

from trainer_testlib import read_metrics, run_cli, run_ranks
from trn_trainer.weights import safetensors_file
from trn_trainer.cli import main
from trn_trainer.errors import CheckpointError, DataError, UsageError
from trn_trainer.models.llama import LlamaForCausalLM
from trn_trainer.models.llama_config import llama_config
from trn_trainer.models.llama_weights import parameter_shapes
from trn_trainer.data.lm_samples import LmData
from trn_trainer.parallel.tensor_parallel import TensorParallel
from trn_trainer.weights.tp_weights import read_rank

TINY = llama_config("tiny", vocab_size=96)  # 8 heads, 4 key/value heads: tp 2 and 4 divide it
HF_CONFIG = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_act": "silu",
             "bos_token_id": 1, "eos_token_id": 2, "pretraining_tp": 1, "rope_scaling": None,
             "torch_dtype": "bfloat16", "transformers_version": "4.31.0", "use_cache": True, **TINY.to_dict()}


def spec_file(path, entries, pad=0):
    """A safetensors file from the specification, by hand: [(name, dtype, shape, raw bytes)]."""
    header, body = {"__metadata__": {"format": "pt"}}, b""
    for name, dtype, shape, raw in entries:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(body), len(body) + len(raw)]}
        body += raw
    text = json.dumps(header).encode() + b" " * pad
    path.write_bytes(struct.pack("<Q", len(text)) + text + body)


def bf16_bytes(values):
    """BF16 is the upper half of the float32 bit pattern (exact for these values)."""
    return b"".join(struct.pack("<H", struct.unpack("<I", struct.pack("<f", v))[0] >> 16) for v in values)


def spec_bytes(tensor):
    """A tensor's data as the specification lays it out, little-endian and row-major."""
    values = tensor.flatten().tolist()
    if tensor.dtype == torch.bfloat16:
        return bf16_bytes(values)
    return struct.pack("<" + {torch.float32: "f", torch.float16: "e", torch.int64: "q"}[tensor.dtype] *
                       len(values), *values)


def hf_folder(path, state, config=HF_CONFIG, sharded=True):
    """A Hugging Face folder: config.json and the weights, in two safetensors shards with their index
    as save_pretrained writes large models."""
    path.mkdir()
    (path / "config.json").write_text(json.dumps(config))
    names = list(state)
    files = {"model-00001-of-00002.safetensors": names[:5], "model-00002-of-00002.safetensors": names[5:]}
    if not sharded:
        files = {"model.safetensors": names}
    for file, part in files.items():
        spec_file(path / file, [(n, "BF16", list(state[n].shape), spec_bytes(state[n])) for n in part])
    if sharded:
        (path / "model.safetensors.index.json").write_text(json.dumps(
            {"metadata": {}, "weight_map": {n: f for f, part in files.items() for n in part}}))
    return path


def bf16_state(seed=0):
    generator = torch.Generator().manual_seed(seed)
    return {name: torch.randn(shape, generator=generator).to(torch.bfloat16)
            for name, shape in parameter_shapes(TINY).items()}


def convert(*args):
    return main(["convert", *map(str, args)])


def test_a_safetensors_file_built_from_the_specification_reads_back(tmp_path):
    expected = {"f32": torch.arange(6, dtype=torch.float32).reshape(2, 3) / 2,  # row-major: [1, 0] is 1.5
                "bf16": torch.tensor([[1.5, -2.0], [0.15625, 256.0]], dtype=torch.bfloat16),
                "f16": torch.tensor([0.5, -1.25, 65504.0], dtype=torch.float16),
                "i64": torch.tensor([-3, 2 ** 40], dtype=torch.int64),
                "empty": torch.zeros(0, 4)}
    spec_file(tmp_path / "a.safetensors", [("f16", "F16", [3], spec_bytes(expected["f16"])),
                                           ("bf16", "BF16", [2, 2], bf16_bytes([1.5, -2.0, 0.15625, 256.0])),
                                           ("f32", "F32", [2, 3], spec_bytes(expected["f32"])),
                                           ("empty", "F32", [0, 4], b""),
                                           ("i64", "I64", [2], spec_bytes(expected["i64"]))], pad=5)
    read = safetensors_file.load(tmp_path / "a.safetensors")
    assert sorted(read) == sorted(expected)
    for name, tensor in expected.items():
        assert read[name].dtype == tensor.dtype and torch.equal(read[name], tensor), name
    assert read["f32"][1, 0].item() == 1.5

    # save lays the bytes out as the specification says, read here without the library.
    safetensors_file.save(read, tmp_path / "b.safetensors")
    raw = (tmp_path / "b.safetensors").read_bytes()
    (length,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + length])
    assert header.pop("__metadata__") == {"format": "pt"}
    for name, tensor in expected.items():
        begin, end = header[name]["data_offsets"]
        assert header[name]["shape"] == list(tensor.shape)
        assert raw[8 + length + begin:8 + length + end] == spec_bytes(tensor), name
    assert header["bf16"]["dtype"] == "BF16" and len(raw) == 8 + length + max(
        e["data_offsets"][1] for e in header.values())


def test_parameter_shapes_are_the_models():
    model = LlamaForCausalLM(TINY)
    assert {n: tuple(t.shape) for n, t in model.state_dict().items()} == parameter_shapes(TINY)
    assert parameter_shapes(TINY, 4)["model.layers.1.self_attn.o_proj.weight"] == (64, 16)


def test_hugging_face_to_shards_and_back_is_exact(tmp_path):
    state = bf16_state()
    source = hf_folder(tmp_path / "hf", state)
    assert convert("split", "--input", source, "--output", tmp_path / "tp2", "--tensor-parallel", 2) == 0
    index = json.loads((tmp_path / "tp2" / "tp_weights.json").read_text())
    assert index["tensor_parallel"] == 2 and index["model"] == "tiny"
    rank1 = safetensors_file.load(tmp_path / "tp2" / "model.tp1.safetensors")
    assert torch.equal(rank1["model.layers.0.mlp.down_proj.weight"],
                       state["model.layers.0.mlp.down_proj.weight"][:, 64:])  # row-parallel: input half

    assert convert("merge", "--input", tmp_path / "tp2", "--output", tmp_path / "merged") == 0
    merged = safetensors_file.load(tmp_path / "merged" / "model.safetensors")
    assert sorted(merged) == sorted(state)
    assert all(merged[n].dtype == torch.bfloat16 and torch.equal(merged[n], state[n]) for n in state)
    assert json.loads((tmp_path / "merged" / "config.json").read_text()) == HF_CONFIG

    # pytorch_model.bin both ways: written as a plain state_dict, read back by split.
    assert convert("merge", "--input", tmp_path / "tp2", "--output", tmp_path / "bin", "--format", "bin",
                   "--dtype", "fp32") == 0
    as_bin = torch.load(tmp_path / "bin" / "pytorch_model.bin")
    assert all(torch.equal(as_bin[n], state[n].float()) for n in state)
    assert json.loads((tmp_path / "bin" / "config.json").read_text())["torch_dtype"] == "float32"
    assert convert("split", "--input", tmp_path / "bin", "--output", tmp_path / "tp4",
                   "--tensor-parallel", 4) == 0
    assert convert("merge", "--input", tmp_path / "tp4", "--output", tmp_path / "again") == 0
    again = safetensors_file.load(tmp_path / "again" / "model.safetensors")
    assert all(torch.equal(again[n], state[n].float()) for n in state)


def pretrain_lm(data, output, *extra, steps):
    done = run_ranks(2, ["pretrain-lm", "--data", str(data), "--output", str(output), "--model", "tiny",
                         "--tensor-parallel", "2", "--global-batch", "4", "--steps", str(steps),
                         "--lr", "1e-2", "--warmup", "0", "--checkpoint-mode", "sync", *extra], timeout=240)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return [m["loss"] for m in read_metrics(output)]


def step_loss(model, data, consumed):
    """The loss pretrain-lm reports for the step at stream position `consumed` (global batch 4,
    micro-batch 1, one data-parallel rank), computed by one process."""
    batches = LmData(str(data), 12345).micro_batches(consumed, 4, 1, 1, 0)
    with torch.no_grad():
        return sum(model(ids, ids).item() for ids in batches) / len(batches)


def merged_model(folder, vocab_size=400):
    model = LlamaForCausalLM(llama_config("tiny", vocab_size))
    model.load_state_dict(safetensors_file.load(os.path.join(folder, "model.safetensors")))
    return model


@pytest.fixture(scope="module")
def tp2_run(lm_data, tmp_path_factory):
    """Two steps at tensor parallel 2 with a checkpoint after each, merged at step 1."""
    run = tmp_path_factory.mktemp("tp2_run")
    losses = pretrain_lm(lm_data, run, "--checkpoint-every", "1", "--keep-checkpoints", "0", steps=2)
    merged = run.parent / "tp2_run_step1"
    assert convert("merge", "--input", run, "--output", merged, "--step", 1) == 0
    return run, losses, merged


def test_a_merged_tensor_parallel_checkpoint_computes_the_runs_loss(lm_data, tp2_run, tmp_path, capsys):
    run, losses, merged = tp2_run
    config = json.loads((merged / "config.json").read_text())
    assert config["architectures"] == ["LlamaForCausalLM"] and config["vocab_size"] == 400
    assert config["torch_dtype"] == "float32" and config["num_key_value_heads"] == 4
    # The weights after step 1 give the loss the run reported at step 2 (samples 4-7).
    assert step_loss(merged_model(merged), lm_data, 4) == pytest.approx(losses[1], abs=1e-5)
    assert convert("merge", "--input", run, "--output", tmp_path / "newest") == 0
    assert "merging checkpoint 2 of" in capsys.readouterr().out


def test_pretrain_lm_starts_from_split_weights(lm_data, tp2_run, tmp_path):
    run, losses, merged = tp2_run
    assert convert("split", "--input", merged, "--output", tmp_path / "tp2", "--tensor-parallel", 2) == 0
    started = pretrain_lm(lm_data, tmp_path / "init", "--init-from", tmp_path / "tp2", steps=1)
    expected = step_loss(merged_model(merged), lm_data, 0)
    assert started[0] == pytest.approx(expected, abs=1e-5)
    assert abs(started[0] - losses[0]) > 1e-3  # not the run's own freshly initialized model
    done = run_cli(["pretrain-lm", "--data", str(lm_data), "--output", str(tmp_path / "tp1"),
                    "--global-batch", "4", "--steps", "1", "--init-from", str(tmp_path / "tp2")])
    assert done.returncode == 4, done.stderr
    assert "weights split for tensor parallel 2, this run has 1" in done.stderr
    assert "convert split --tensor-parallel 1" in done.stderr


def _broken(tmp_path, what):
    """A Hugging Face folder with one defect."""
    state = bf16_state()
    if what == "missing tensor":
        del state["lm_head.weight"]
    if what == "wrong shape":
        state["model.norm.weight"] = torch.ones(32, dtype=torch.bfloat16)
    config = {**HF_CONFIG, "tie_word_embeddings": True} if what == "tied" else HF_CONFIG
    folder = hf_folder(tmp_path / "hf", state, config, sharded=False)
    if what == "config not json":
        (folder / "config.json").write_text("{not json")
    if what == "header length":
        (folder / "model.safetensors").write_bytes(struct.pack("<Q", 1 << 40) + b"{}")
    if what == "no weights":
        os.remove(folder / "model.safetensors")
    return folder


@pytest.mark.parametrize("what, extra, status, message", [
    ("tensor parallel", ["--tensor-parallel", "3"], 2,
     "--tensor-parallel 3 cannot split the model of"),
    ("no weights", [], 2, "no weights (model.safetensors, pytorch_model.bin"),
    ("config not json", [], 3, "config.json: not a JSON file"),
    ("header length", [], 3,
     "model.safetensors: not a safetensors file (SafetensorError: Error while deserializing header"),
    ("missing tensor", [], 4, "missing lm_head.weight; give the weights that go with its config.json"),
    ("wrong shape", [], 4, "model.norm.weight is (32,), not (64,)"),
    ("tied", [], 4, "config.json: tie_word_embeddings True: this trainer's Llama has tie_word_embeddings"),
])
def test_bad_hugging_face_input_is_one_error(tmp_path, capsys, what, extra, status, message):
    folder = _broken(tmp_path, what)
    args = ["split", "--input", folder, "--output", tmp_path / "out", *(extra or ["--tensor-parallel", "2"])]
    assert convert(*args) == status
    err = capsys.readouterr().err
    assert message in err and str(folder) in err, err


def test_output_and_step_mistakes_are_usage_errors(tmp_path, capsys):
    folder = hf_folder(tmp_path / "hf", bf16_state(), sharded=False)
    out = tmp_path / "out"
    assert convert("split", "--input", folder, "--output", out, "--tensor-parallel", 2) == 0
    assert convert("split", "--input", folder, "--output", out, "--tensor-parallel", 2) == 2
    assert f"--output {out} already holds model.tp0.safetensors" in capsys.readouterr().err
    assert convert("split", "--input", folder, "--output", out, "--tensor-parallel", 4, "--force") == 0
    assert sorted(os.listdir(out)) == [f"model.tp{r}.safetensors" for r in range(4)] + ["tp_weights.json"]
    assert convert("merge", "--input", out, "--output", tmp_path / "m", "--step", 3) == 2
    assert "--step 3: " in capsys.readouterr().err
    assert convert("merge", "--input", tmp_path / "hf", "--output", tmp_path / "m") == 2
    assert "holds no pretrain-lm checkpoint (ckpt_<step>.json) and no tp_weights.json" in \
        capsys.readouterr().err
    os.remove(out / "model.tp3.safetensors")
    assert convert("merge", "--input", out, "--output", tmp_path / "m") == 4
    assert "model.tp3.safetensors: missing, though tp_weights.json lists it" in capsys.readouterr().err


def test_init_from_refuses_weights_of_another_model(tmp_path):
    folder = hf_folder(tmp_path / "hf", bf16_state(), sharded=False)
    assert convert("split", "--input", folder, "--output", tmp_path / "tp2", "--tensor-parallel", 2) == 0
    mine = read_rank(tmp_path / "tp2", TensorParallel(2, 1, None), TINY)
    assert torch.equal(mine["lm_head.weight"], bf16_state()["lm_head.weight"][48:])
    with pytest.raises(CheckpointError, match=r"of another model: vocab_size 96 \(this run: 400\); give the "
                                              r"--model \(these are size tiny"):
        read_rank(tmp_path / "tp2", TensorParallel(2, 0, None), llama_config("tiny", 400))
    with pytest.raises(UsageError, match="no tp_weights.json; make the folder with python3 -m trn_trainer"):
        read_rank(folder, TensorParallel(2, 0, None), TINY)


@pytest.mark.parametrize("change, message", [
    ({"rope_theta": "1e4"}, "rope_theta '1e4' is not a number > 0"),
    ({"rms_norm_eps": 0}, "rms_norm_eps 0 is not a number > 0"),
    ({"initializer_range": None}, "initializer_range None is not a number >= 0"),
])
def test_a_config_whose_real_numbers_are_not_is_one_data_error(tmp_path, change, message):
    from trn_trainer.weights import hf_folder
    config = hf_folder.hf_config(llama_config("tiny", 64), torch.float32)
    (tmp_path / "config.json").write_text(json.dumps({**config, **change}))
    with pytest.raises(DataError, match=re.escape(message)):
        hf_folder.read_config(str(tmp_path))
    (tmp_path / "config.json").write_text("[" * 3000)
    with pytest.raises(DataError, match=re.escape("config.json: not a JSON file (nested too deeply)")):
        hf_folder.read_config(str(tmp_path))


@pytest.mark.parametrize("index, message", [
    ('{"tensor_parallel": Infinity, "shards": []}', "lists 0 files for tensor parallel inf"),
    ('{"tensor_parallel": "2", "shards": ["a", "b"]}', "lists 2 files for tensor parallel '2'"),
    ('{"tensor_parallel": 2, "shards": ["../x", "b"]}',
     "names '../x', which is not a file inside its folder"),
])
def test_a_tensor_parallel_index_convert_did_not_write_is_one_data_error(tmp_path, index, message):
    from trn_trainer.weights.tp_weights import read_index
    (tmp_path / "tp_weights.json").write_text(index)
    with pytest.raises(DataError, match=re.escape(message)):
        read_index(str(tmp_path), "--init-from")
