"""A Hugging Face model folder of a Llama, as `LlamaForCausalLM.save_pretrained` writes it and
`from_pretrained` reads it: `config.json` (LlamaConfig's keys) and the weights, in
`model.safetensors`, in shards `model-0000I-of-0000N.safetensors` listed by
`model.safetensors.index.json`, or in `pytorch_model.bin` (a torch.save'd state_dict; sharded
likewise with `pytorch_model.bin.index.json`).
"""

import dataclasses
import json
import math
import os

import torch

from ..checkpoint.files import write_atomically
from ..errors import CheckpointError, DataError, UsageError
from ..models.llama_config import LlamaConfig
from ..outside_files import json_loads
from . import safetensors_file

CONFIG = "config.json"
SAFETENSORS, BIN = "model.safetensors", "pytorch_model.bin"
_INDEX = ".index.json"
# Hugging Face's defaults for keys a config.json may leave out (transformers' LlamaConfig).
_DEFAULTS = {"num_key_value_heads": None, "max_position_embeddings": 2048, "rms_norm_eps": 1e-6,
             "rope_theta": 10000.0, "initializer_range": 0.02, "tie_word_embeddings": False}
_REQUIRED = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads")
# Real-valued keys, which LlamaConfig.check leaves alone; the model divides by these two.
_POSITIVE_REALS = ("rms_norm_eps", "rope_theta")
# What this trainer's Llama does, where a config.json can ask for something else.
_SAME_AS_OURS = {"model_type": "llama", "hidden_act": "silu", "rope_scaling": None, "attention_bias": False,
                 "mlp_bias": False, "tie_word_embeddings": False}
DTYPE_NAMES = {torch.float32: "float32", torch.bfloat16: "bfloat16", torch.float16: "float16"}


def read_json(path, bad, parse=lambda content: content):
    """parse(the content of the JSON file `path`); a DataError `path: bad(e)` when the file cannot
    be read, is not JSON, or does not hold what parse takes from it (a key, a type)."""
    try:
        with open(path, "rb") as f:
            return parse(json_loads(f.read()))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise DataError(f"{path}: {bad(e)}") from None


def not_json(error):
    return f"not a JSON file ({error}); download it again"


def hf_config(config, dtype, base=None):
    """config.json's content for `config` with weights of `dtype`: `base` (the config.json a
    checkpoint came with, kept for its other keys such as the token ids) updated."""
    return {**(base or {"bos_token_id": 1, "eos_token_id": 2}), "architectures": ["LlamaForCausalLM"],
            "model_type": "llama", "hidden_act": "silu", **config.to_dict(),
            "torch_dtype": DTYPE_NAMES.get(dtype, str(dtype).replace("torch.", ""))}


def read_config(folder):
    """(LlamaConfig, the config.json's content) of a Hugging Face folder."""
    path = os.path.join(folder, CONFIG)
    if not os.path.isfile(path):
        raise UsageError(f"--input {folder}: no {CONFIG}; give a Hugging Face model folder (config.json "
                         "and model.safetensors or pytorch_model.bin)")
    raw = read_json(path, not_json)
    return config_from_hf(raw, path), raw


def config_from_hf(raw, path):
    """The LlamaConfig of a config.json's content; an error for a model this trainer's Llama
    does not compute (another architecture, tied embeddings, scaled rotary, biases)."""
    if not isinstance(raw, dict) or any(key not in raw for key in _REQUIRED):
        raise DataError(f"{path}: not a Llama config.json: it needs the keys {', '.join(_REQUIRED)}")
    for key, ours in _SAME_AS_OURS.items():
        if raw.get(key, ours) != ours:
            raise CheckpointError(f"{path}: {key} {raw[key]!r}: this trainer's Llama has {key} {ours!r} "
                                  "only (docs/llama.md#model); convert a Llama checkpoint")
    values = {**_DEFAULTS, **{f.name: raw[f.name] for f in dataclasses.fields(LlamaConfig) if f.name in raw}}
    if values["num_key_value_heads"] is None:
        values["num_key_value_heads"] = values["num_attention_heads"]
    for key in _REQUIRED + ("num_key_value_heads", "max_position_embeddings"):
        if type(values[key]) is not int or values[key] < 1:
            raise DataError(f"{path}: {key} {values[key]!r} is not a whole number >= 1")
    for key in _POSITIVE_REALS + ("initializer_range",):
        value, positive = values[key], key in _POSITIVE_REALS
        if (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)
                or value < 0 or (positive and value == 0)):
            raise DataError(f"{path}: {key} {value!r} is not a number {'> 0' if positive else '>= 0'}")
    try:
        config = LlamaConfig(**values).check()
    except UsageError as e:
        raise DataError(f"{path}: {e}") from None
    if raw.get("head_dim", config.head_dim) != config.head_dim:
        raise CheckpointError(f"{path}: head_dim {raw['head_dim']} is not hidden_size / num_attention_heads "
                              f"{config.head_dim}, the only head size this trainer's Llama has")
    return config


def _index_files(folder, index):
    path = os.path.join(folder, index)
    files = read_json(path, lambda e: f"not a Hugging Face weight index ({type(e).__name__}: {e})",
                      lambda content: sorted(set(content["weight_map"].values())))
    for name in files:
        if not os.path.isfile(os.path.join(folder, name)):
            raise DataError(f"{path} lists {name}, which {folder} does not hold; download it")
    return files


def weight_files(folder):
    """The weight files of a Hugging Face folder, safetensors first as transformers reads them."""
    for single in (SAFETENSORS, BIN):
        if os.path.isfile(os.path.join(folder, single + _INDEX)):
            return [os.path.join(folder, name) for name in _index_files(folder, single + _INDEX)]
        if os.path.isfile(os.path.join(folder, single)):
            return [os.path.join(folder, single)]
    raise UsageError(f"--input {folder}: no weights ({SAFETENSORS}, {BIN}, or their sharded form with "
                     f"{SAFETENSORS}{_INDEX}); give the folder that holds them")


def _load_bin(path):
    try:  # weights_only: a downloaded pickle must not run code
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - pickle and zip errors have no common base
        raise DataError(f"{path}: not a PyTorch state_dict ({type(e).__name__}: {e}); download it again") \
            from None


def read_weights(folder):
    """{name: tensor} of every weight file, without the rotary frequencies that older
    transformers saved as a buffer (our model computes them from rope_theta)."""
    state = {}
    for path in weight_files(folder):
        part = safetensors_file.load(path) if path.endswith(".safetensors") else _load_bin(path)
        if not isinstance(part, dict):
            raise DataError(f"{path}: holds a {type(part).__name__}, not a state_dict")
        state.update(part)
    return {name: t for name, t in state.items() if not name.endswith("rotary_emb.inv_freq")}


def is_output_file(name):
    """A file `write` may leave in a folder (replaced with --force)."""
    return (name in (CONFIG, SAFETENSORS, BIN, SAFETENSORS + _INDEX, BIN + _INDEX)
            or (name.startswith(("model-", "pytorch_model-")) and name.endswith((".safetensors", ".bin"))))


def write(folder, state, config_json, weights_format):
    """The weights (safetensors or bin), then config.json, so that a folder with a config.json
    is whole; every file renamed into place."""
    if weights_format == "bin":
        write_atomically(os.path.join(folder, BIN), lambda f: torch.save(state, f))
    else:
        safetensors_file.save(state, os.path.join(folder, SAFETENSORS))
    text = json.dumps(config_json, indent=2, sort_keys=True) + "\n"
    write_atomically(os.path.join(folder, CONFIG), lambda f: f.write(text.encode("utf-8")))
