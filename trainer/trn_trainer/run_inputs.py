"""The checked input of a pretrain run: everything that can reject it happens here, before
anything is written (numbers, shards against --seq-len/--max-pred, the model configuration and
the checkpoint a run resumes from)."""

import os
from dataclasses import dataclass
from typing import Optional

from . import checkpoint
from .checkpoint_s3 import S3Tier
from .configs import BertConfig, model_config
from .errors import UsageError
from .load_slots import load_slot
from .optim import DEFAULT_LR
from .setting_checks import check_settings
from .shards import ShardSet, open_shards
from .tokenizer import vocab_size_of

DEFAULT_VOCAB_SIZE = 30522  # BERT's uncased vocabulary, when neither --vocab-size nor vocab.txt says


@dataclass
class RunInputs:
    global_batch: int
    accumulation: int
    shards: ShardSet
    config: BertConfig
    lr: float
    resume_state: Optional[dict]
    resume_path: Optional[str]
    store: Optional[S3Tier] = None  # --checkpoint-uri: the object-store tier


def _check_numbers(args, world):
    for name in ("micro_batch", "steps"):
        if getattr(args, name) < 1:
            raise UsageError(f"--{name.replace('_', '-')} {getattr(args, name)}: must be at least 1")
    per_pass = args.micro_batch * world
    global_batch = args.global_batch if args.global_batch is not None else per_pass
    if global_batch < 1 or global_batch % per_pass:
        lower = max(per_pass, global_batch // per_pass * per_pass)
        raise UsageError(
            f"--global-batch {global_batch} is not divisible by --micro-batch {args.micro_batch} x "
            f"world size {world} = {per_pass}, so gradient accumulation would not be a whole number; "
            f"use a multiple of {per_pass} (e.g. {lower} or {lower + per_pass})")
    if args.checkpoint_every < 0 or args.keep_checkpoints < 0 or args.log_every < 1:
        raise UsageError("--checkpoint-every and --keep-checkpoints must be >= 0, --log-every >= 1")
    return global_batch, global_batch // per_pass


def _check_output(output):
    """--output must be a folder, or a path whose nearest existing part is a folder."""
    existing = os.path.abspath(output)
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        what = "is a file" if existing == os.path.abspath(output) else f"lies under the file {existing}"
        raise UsageError(f"--output {output}: {what}, not a folder; give a folder for checkpoints, "
                         "metrics and results (it is created when missing)")


def _vocab_size(args):
    if args.vocab_size:
        return args.vocab_size
    path = os.path.join(args.data, "vocab.txt")
    return vocab_size_of(path) if os.path.exists(path) else DEFAULT_VOCAB_SIZE


def _open_matching_shards(args):
    shards = open_shards(args.data, args.pattern)
    for flag, have in (("seq_len", shards.seq_len), ("max_pred", shards.max_pred)):
        want = getattr(args, flag)
        if want is not None and want != have:
            raise UsageError(f"--{flag.replace('_', '-')} {want}: the shards in {args.data} have "
                             f"{have}; prepare data with {want} or drop the option")
    return shards


def check_inputs(args, world_size, resume, say, local_rank=0):
    """RunInputs for `args`, or a TrainerError saying what is wrong. resume: look for a
    checkpoint in --output (say reports the ones skipped)."""
    global_batch, accumulation = _check_numbers(args, world_size)
    check_settings(args)
    _check_output(args.output)
    shards = _open_matching_shards(args)
    config = model_config(args.model, _vocab_size(args), args.dropout)
    if shards.seq_len > config.max_position_embeddings:
        raise UsageError(f"shards have sequence length {shards.seq_len}, above the model's "
                         f"{config.max_position_embeddings} positions")
    lr = args.lr if args.lr is not None else DEFAULT_LR.get(args.optimizer, 1e-4)
    if args.keep_checkpoints_uri is not None and args.keep_checkpoints_uri < 0:
        raise UsageError("--keep-checkpoints-uri must be >= 0")
    store = None
    if args.checkpoint_uri:
        keep = args.keep_checkpoints if args.keep_checkpoints_uri is None else args.keep_checkpoints_uri
        store = S3Tier(args.checkpoint_uri, keep, say)
    resume_state, resume_path = None, None
    if resume:
        if store is not None:  # a newer checkpoint in the store comes into --output first
            store.restore_newer(args.output, say)
        with load_slot(local_rank):  # a few loads per node at a time
            resume_state, resume_path = checkpoint.load_newest(args.output, say)
        if resume_state is not None:
            checkpoint.check_compatible(resume_state, resume_path, config, args.optimizer)
    return RunInputs(global_batch, accumulation, shards, config, lr, resume_state, resume_path, store)
