"""`python3 -m trn_trainer convert`: Llama weights between Hugging Face's layout and tensor-parallel
shards, the NxD <-> Hugging Face conversion of seed 001 (docs/llama.md#convert).

- merge: a pretrain-lm run's checkpoint (its newest, or --step), or a tensor-parallel weights
  folder, into one Hugging Face folder (config.json and model.safetensors, or pytorch_model.bin
  with --format bin) that transformers' LlamaForCausalLM.from_pretrained loads;
- split: a Hugging Face folder into a tensor-parallel weights folder (weights/tp_weights.py) for a
  --tensor-parallel degree, which pretrain-lm --init-from starts from.

Every tensor read, whole or one rank's shard, is checked against the config (names and shapes),
so a folder this writes loads without surprises and a damaged input is named, not merged.
"""

import os

import torch

from ..checkpoint import files, llama_state
from ..checkpoint.tiers import Tiers
from ..errors import CheckpointError, UsageError
from ..models.llama_config import llama_config
from ..models.llama_weights import check_state
from ..parallel.llama_shards import merge_states
from ..weights import hf_folder, tp_weights

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def convert(args):
    if not os.path.isdir(args.input):
        raise UsageError(f"--input {args.input}: not a folder")
    if os.path.realpath(args.input) == os.path.realpath(args.output):
        raise UsageError(f"--output {args.output} is the --input folder; write into another one")
    if args.direction == "merge":
        return merge(args)
    return split(args)


def _output_folder(path, force, ours):
    """`path` made, without files of an earlier conversion (removed with `force`)."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise UsageError(f"--output {path}: not a folder")
    os.makedirs(path, exist_ok=True)
    earlier = sorted(name for name in os.listdir(path) if ours(name))
    if earlier and not force:
        raise UsageError(f"--output {path} already holds {', '.join(earlier)}; give an empty folder, or "
                         "--force to replace them")
    for name in earlier:
        os.remove(os.path.join(path, name))


def _run_shards(folder, step):
    """(every tensor-parallel rank's model shard, LlamaConfig) of a pretrain-lm checkpoint."""
    steps = files.committed_steps(folder)
    if not steps:
        raise UsageError(f"--input {folder}: holds no pretrain-lm checkpoint (ckpt_<step>.json) and no "
                         f"{tp_weights.INDEX}; give a pretrain-lm run directory or a convert split folder")
    if step is None:
        step = steps[0]
    elif step not in steps:
        raise UsageError(f"--step {step}: {folder} holds checkpoints of steps "
                         f"{', '.join(map(str, sorted(steps)))}; give one of them")
    tiers = Tiers(folder, keep=0)
    try:
        shards, run = llama_state.model_shards(tiers, step)
        config = llama_config(run["model"], run["vocab_size"])
    except (ValueError, KeyError, TypeError, OSError, RuntimeError) as e:
        raise CheckpointError(f"{tiers.path(step)}: checkpoint {step} cannot be read ({type(e).__name__}: "
                              f"{e}); give an earlier --step") from None
    for rank, shard in enumerate(shards):
        check_state(shard, config, f"{tiers.path(step)} (tensor-parallel rank {rank})",
                    "the checkpoint is damaged: give an earlier --step", len(shards))
    print(f"merging checkpoint {step} of {folder} (tensor parallel {len(shards)})", flush=True)
    return shards, config


def merge(args):
    if os.path.isfile(os.path.join(args.input, tp_weights.INDEX)):
        if args.step is not None:
            raise UsageError(f"--step {args.step}: {args.input} is a tensor-parallel weights folder, which "
                             "has no steps; leave --step out")
        shards, config, base = tp_weights.read_all(args.input, "--input")
    else:
        (shards, config), base = _run_shards(args.input, args.step), None
    state = merge_states(shards)
    if args.dtype != "same":
        state = {name: t.to(DTYPES[args.dtype]) for name, t in state.items()}
    _output_folder(args.output, args.force, hf_folder.is_output_file)
    dtype = next(iter(state.values())).dtype
    hf_folder.write(args.output, state, hf_folder.hf_config(config, dtype, base), args.format)
    print(f"wrote {args.output}: a Hugging Face Llama ({sum(t.numel() for t in state.values()):,} "
          f"parameters, {hf_folder.DTYPE_NAMES.get(dtype, dtype)}) in "
          f"{hf_folder.BIN if args.format == 'bin' else hf_folder.SAFETENSORS}", flush=True)


def split(args):
    config, config_json = hf_folder.read_config(args.input)
    if args.tensor_parallel < 1:
        raise UsageError(f"--tensor-parallel {args.tensor_parallel}: give a degree of at least 1")
    try:
        config.check(args.tensor_parallel)
    except UsageError as e:
        where = os.path.join(args.input, hf_folder.CONFIG)
        raise UsageError(f"--tensor-parallel {args.tensor_parallel} cannot split the model of {where}: {e}") \
            from None
    state = hf_folder.read_weights(args.input)
    check_state(state, config, args.input, "give the weights that go with its config.json")
    _output_folder(args.output, args.force, tp_weights.is_output_file)
    tp_weights.write(args.output, state, config, config_json, args.tensor_parallel, args.input)
    print(f"wrote {args.output}: {args.tensor_parallel} tensor-parallel shards of {args.input}; start "
          f"training from them with pretrain-lm --tensor-parallel {args.tensor_parallel} --init-from "
          f"{args.output}", flush=True)
