"""A tensor-parallel weights folder: a Llama's weights cut for one tensor-parallel degree, what
`convert split` writes and `pretrain-lm --init-from` starts from (docs/llama.md#convert).

Rank r's slices (parallel/llama_shards.py, Hugging Face's names) are in `model.tp<r>.safetensors`, so a
rank reads only its own file. `tp_weights.json` holds the degree, the files and the model's
config.json, and is written last: a folder that has it is whole.
"""

import json
import os
import re

from ..checkpoint.files import write_atomically
from ..errors import CheckpointError, DataError, UsageError
from ..models.llama_config import LLAMA_SIZES, llama_config
from ..models.llama_weights import check_state
from ..outside_files import UnreadableFile, plain_name
from ..parallel.llama_shards import shard_state
from . import safetensors_file
from .hf_folder import config_from_hf, read_json

INDEX = "tp_weights.json"
_SHARD = re.compile(r"^model\.tp\d+\.safetensors$")
# The fields that decide what a model computes; initializer_range and the position limit do not.
_FUNCTION = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
             "num_key_value_heads", "rms_norm_eps", "rope_theta", "tie_word_embeddings")


def shard_file(tp_rank):
    return f"model.tp{tp_rank}.safetensors"


def is_output_file(name):
    """A file `write` may leave in a folder (replaced with --force)."""
    return name == INDEX or bool(_SHARD.match(name))


def _differences(have, want):
    return [f"{key} {getattr(have, key)} (this run: {getattr(want, key)})" for key in _FUNCTION
            if getattr(have, key) != getattr(want, key)]


def size_name(config):
    """The --model name of `config` (models/llama_config.py's sizes), or None for another shape."""
    return next((name for name in LLAMA_SIZES
                 if not _differences(config, llama_config(name, config.vocab_size))), None)


def write(folder, state, config, config_json, tp_size, source):
    """Every rank's file of the whole `state`, then the index."""
    files = [shard_file(r) for r in range(tp_size)]
    for rank, name in enumerate(files):
        safetensors_file.save(shard_state(state, tp_size, rank), os.path.join(folder, name))
    index = {"tensor_parallel": tp_size, "shards": files, "model": size_name(config),
             "source": os.path.abspath(source), "config": config_json}
    text = json.dumps(index, indent=2) + "\n"
    write_atomically(os.path.join(folder, INDEX), lambda f: f.write(text.encode("utf-8")))


def read_index(folder, option):
    """(index, LlamaConfig) of a folder `write` wrote; `option` names where the user gave it."""
    path = os.path.join(folder, INDEX)
    if not os.path.isfile(path):
        raise UsageError(f"{option} {folder}: no {INDEX}; make the folder with python3 -m trn_trainer "
                         "convert split --input HF_MODEL_DIR --output DIR --tensor-parallel N")
    index = read_json(path, lambda e: f"not a tensor-parallel weights index ({type(e).__name__}: {e}); "
                      "split the model again")
    tp_size = index.get("tensor_parallel") if isinstance(index, dict) else None
    files = index.get("shards") if isinstance(index, dict) else None
    # read_all and read_rank take both as they are: a whole degree, and that many names.
    if (isinstance(tp_size, bool) or not isinstance(tp_size, int) or tp_size < 1
            or not isinstance(files, list) or len(files) != tp_size):
        raise DataError(f"{path}: lists {len(files) if isinstance(files, list) else 'no'} files for tensor "
                        f"parallel {tp_size!r}; split the model again")
    for name in files:
        try:
            plain_name(name, path)
        except UnreadableFile as e:
            raise DataError(f"{e}; split the model again") from None
    return index, config_from_hf(index.get("config"), path)


def _read_shard(folder, index, config, tp_rank):
    path = os.path.join(folder, index["shards"][tp_rank])
    if not os.path.isfile(path):
        raise CheckpointError(f"{path}: missing, though {INDEX} lists it; split the model again")
    state = safetensors_file.load(path)
    check_state(state, config, path, "split the model again", index["tensor_parallel"])
    return state


def read_all(folder, option):
    """(every rank's state in rank order, LlamaConfig, config.json content) of the folder."""
    index, config = read_index(folder, option)
    shards = [_read_shard(folder, index, config, r) for r in range(index["tensor_parallel"])]
    return shards, config, index["config"]


def read_rank(folder, tp, config):
    """Tensor-parallel rank tp.rank's state, checked to be `config`'s model split tp.size ways
    (pretrain-lm --init-from)."""
    index, have = read_index(folder, "--init-from")
    if index["tensor_parallel"] != tp.size:
        raise CheckpointError(f"--init-from {folder}: weights split for tensor parallel "
                              f"{index['tensor_parallel']}, this run has {tp.size}: split them again with "
                              "python3 -m trn_trainer convert "
                              f"split --tensor-parallel {tp.size} (from the Hugging Face folder, or one that "
                              "convert merge makes of this one)")
    differences = _differences(have, config)
    if differences:
        raise CheckpointError(f"--init-from {folder}: the weights are of another model: "
                              f"{'; '.join(differences)}; give the --model (these are size "
                              f"{index.get('model') or 'none'} of trn_trainer/models/llama_config.py) "
                              "and data (its vocabulary) the weights were made for")
    return _read_shard(folder, index, have, tp.rank)
