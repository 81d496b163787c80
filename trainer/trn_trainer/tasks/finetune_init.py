"""Where fine-tuning starts (docs/finetune.md#init): `--init-from` a pretrain run directory (its
newest checkpoint), one of its checkpoints (`ckpt_<step>.pt`), or Hugging Face BERT weights
(of BertForPreTraining, BertForSequenceClassification or BertModel): a model folder as
transformers saves one (read by hf_folder: model.safetensors, pytorch_model.bin, sharded or
not), or one weight file (.safetensors, or a torch.save'd state dict). Only the encoder
(`bert.*`, pooler included where the source has one) is taken; the classifier is always new.

The model size is the checkpoint's own configuration; a Hugging Face state dict's is read from
its tensors' shapes, the attention heads from config.json beside it, else a named size with
that shape (bert_config.MODEL_SIZES), else BERT's 64 dimensions per head.
"""

import dataclasses
import os
import re

from ..checkpoint import files, torch_archive
from ..checkpoint.restore import load_newest, load_step
from ..checkpoint.tiers import Tiers
from ..errors import CheckpointError, UsageError
from ..models.bert_config import MODEL_SIZES, BertConfig
from ..weights import hf_folder, safetensors_file

HF_WEIGHTS = (hf_folder.SAFETENSORS, hf_folder.BIN)  # either, or its sharded form's index
_CKPT_FILE = re.compile(r"^ckpt_(\d+)\.pt$")
_BUFFERS = ("bert.embeddings.position_ids", "bert.embeddings.token_type_ids")  # not weights


@dataclasses.dataclass
class InitSource:
    weights: dict  # bert.* name -> tensor
    config: BertConfig
    described: str  # the file and what it is, for the log


def _load_file(path):
    try:
        return torch_archive.load(path, path)
    except Exception as e:  # noqa: BLE001 - pickle, zip or I/O: the file is not usable
        raise CheckpointError(f"--init-from {path}: cannot be read ({type(e).__name__}: {e}); give a "
                              "pretrain checkpoint or a PyTorch state dict of BERT weights") from None


def _run_checkpoint(path, say):
    """(state, where) of a pretrain checkpoint: a run directory's newest, or the file given."""
    if os.path.isdir(path):
        state, step, _ = load_newest(Tiers(path, keep=0), say)
        return state, f"{files.shard_name(step, 0)} of the run {path}"
    directory, name = os.path.split(os.path.abspath(path))
    step = int(_CKPT_FILE.match(name).group(1))
    if step not in files.committed_steps(directory):
        if any(files.step_of_file(n) == step and ".shard" in n for n in os.listdir(directory)):
            raise CheckpointError(f"--init-from {path}: one rank's share of a save of step {step} that "
                                  "was cut off before its manifest; give a committed checkpoint (with "
                                  f"its ckpt_<step>.json) or the run directory {directory}")
        # A lone whole-state file named explicitly (a trn_trainer from before manifests).
        return files.check_loaded(_load_file(path)), f"pretrain checkpoint {path}"
    try:
        state, _ = load_step(Tiers(directory, keep=0), step)
    except ValueError as e:
        raise CheckpointError(f"--init-from {path}: {e}; give another checkpoint of the run") from None
    return state, f"pretrain checkpoint {path}"


def _bert_weights(state, path):
    """The bert.* tensors of a state dict in any of Hugging Face's BERT layouts."""
    if not isinstance(state, dict) or not state or not all(hasattr(v, "shape") for v in state.values()):
        raise CheckpointError(f"--init-from {path}: neither a pretrain checkpoint nor a state dict of BERT "
                              "weights (name -> tensor)")
    out = {}
    for name, tensor in state.items():
        name = name[len("module."):] if name.startswith("module.") else name
        name = re.sub(r"LayerNorm\.gamma$", "LayerNorm.weight", name)  # TF-converted checkpoints
        name = re.sub(r"LayerNorm\.beta$", "LayerNorm.bias", name)
        if name.startswith(("embeddings.", "encoder.", "pooler.")):  # a bare BertModel
            name = "bert." + name
        if name.startswith("bert.") and name not in _BUFFERS:
            out[name] = tensor
    if "bert.embeddings.word_embeddings.weight" not in out:
        raise CheckpointError(f"--init-from {path}: holds no BERT encoder weights (no "
                              "bert.embeddings.word_embeddings.weight); give BERT weights")
    return out


def _shape_config(weights, path):
    """The BertConfig of Hugging Face weights: shapes, then config.json in (or beside) `path`."""
    vocab, hidden = weights["bert.embeddings.word_embeddings.weight"].shape
    layers = 1 + max((int(m.group(1)) for k in weights
                      for m in [re.match(r"bert\.encoder\.layer\.(\d+)\.", k)] if m), default=-1)
    try:
        inter = weights["bert.encoder.layer.0.intermediate.dense.weight"].shape[0]
        positions = weights["bert.embeddings.position_embeddings.weight"].shape[0]
        types = weights["bert.embeddings.token_type_embeddings.weight"].shape[0]
    except KeyError as e:
        raise CheckpointError(f"--init-from {path}: BERT weights without {e.args[0]}; give a whole BERT "
                              "state dict") from None
    extra = {}
    folder = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    config_json = os.path.join(folder, hf_folder.CONFIG)
    if os.path.exists(config_json):
        extra = hf_folder.read_json(config_json, hf_folder.not_json)
    named = [heads for (l, h, heads, i) in MODEL_SIZES.values() if (l, h, i) == (layers, hidden, inter)]
    heads = extra.get("num_attention_heads") or (named[0] if named else max(1, hidden // 64))
    return BertConfig(vocab_size=vocab, hidden_size=hidden, num_hidden_layers=layers,
                      num_attention_heads=heads, intermediate_size=inter, max_position_embeddings=positions,
                      type_vocab_size=types, layer_norm_eps=extra.get("layer_norm_eps", 1e-12))


def load_init(path, say):
    """InitSource of --init-from `path`."""
    if not os.path.exists(path):
        raise UsageError(f"--init-from {path}: no such file or folder; give a pretrain run directory, "
                         "a checkpoint ckpt_<step>.pt, or Hugging Face BERT weights (a model folder or "
                         "its weight file)")
    if os.path.isdir(path) and any(os.path.isfile(os.path.join(path, name + suffix))
                                   for name in HF_WEIGHTS for suffix in ("", ".index.json")):
        state, described = hf_folder.read_weights(path), f"the model folder {path}"
    elif os.path.isdir(path) or _CKPT_FILE.match(os.path.basename(path)):
        state, described = _run_checkpoint(path, say)
        if state is None:
            raise UsageError(f"--init-from {path}: holds neither a checkpoint (ckpt_<step>.json with its "
                             f"shards) nor {' or '.join(HF_WEIGHTS)}; give the run directory of a pretrain "
                             "run or a Hugging Face model folder")
    elif path.endswith(".safetensors"):
        state, described = safetensors_file.load(path), path
    else:
        state, described = _load_file(path), path
    if isinstance(state, dict) and isinstance(state.get("model_config"), dict) and "model" in state:
        fields = {f.name for f in dataclasses.fields(BertConfig)}
        config = BertConfig(**{k: v for k, v in state["model_config"].items() if k in fields})
        return InitSource(_bert_weights(state["model"], path), config, described)
    weights = _bert_weights(state, path)
    return InitSource(weights, _shape_config(weights, path), f"Hugging Face BERT weights {described}")


def load_weights(model, weights, path):
    """The encoder weights into `model` (BertForSequenceClassification); a name or shape the
    model does not have is a CheckpointError. Returns the names left as initialised."""
    own = model.state_dict()
    for name, tensor in weights.items():
        if name not in own:
            raise CheckpointError(f"--init-from {path}: {name} is not a weight of this BERT model; give "
                                  "the weights of a BERT (encoder) model")
        if tuple(own[name].shape) != tuple(tensor.shape):
            raise CheckpointError(f"--init-from {path}: {name} has shape {tuple(tensor.shape)}, the model "
                                  f"{tuple(own[name].shape)}; drop --model, or give the matching size")
    missing = sorted(k for k in own if k.startswith("bert.") and k not in weights)
    if any(not k.startswith("bert.pooler.") for k in missing):
        raise CheckpointError(f"--init-from {path}: lacks {', '.join(missing[:3])}"
                              f"{' ...' if len(missing) > 3 else ''}; give a whole BERT state dict")
    model.load_state_dict(weights, strict=False)
    return missing
