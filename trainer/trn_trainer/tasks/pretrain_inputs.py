"""The checked input of a pretrain run: everything that can reject it happens here, before
anything is written (numbers, shards against --seq-len/--max-pred, the model configuration and
the checkpoint a run resumes from)."""

import os
import time
from dataclasses import dataclass
from functools import partial
from typing import Callable, Optional

from ..checkpoint import files
from ..checkpoint.load_slots import load_slot
from ..checkpoint.restore import every_rank_says, load_newest
from ..checkpoint.s3 import S3Tier
from ..checkpoint.tiers import Tiers
from ..data.bert_shards import ShardSet, open_shards
from ..data.wordpiece import vocab_size_of
from ..errors import UsageError
from ..models.bert_config import BertConfig, model_config
from ..outside_files import output_folder_problem
from ..training.optim import DEFAULT_LR
from ..training.setting_checks import check_native_options, check_settings

DEFAULT_VOCAB_SIZE = 30522  # BERT's uncased vocabulary, when neither --vocab-size nor vocab.txt says


@dataclass
class RunInputs:
    global_batch: int
    accumulation: int
    shards: ShardSet
    config: BertConfig
    lr: float
    tiers: Tiers  # where checkpoints go and come from
    resume_enabled: bool  # look for a checkpoint to resume from (the same on every rank)
    resume_state: Optional[dict] = None  # the newest checkpoint this rank could read
    resume_step: int = -1
    resume_path: Optional[str] = None
    resume_note: str = ""
    # Set instead of resume_state when the nodes' snapshots may be newer than any checkpoint:
    # reads the newest checkpoint, if TrainingRun finds no newer snapshot (checkpoint/peers.py).
    load_checkpoint: Optional[Callable[[], None]] = None
    from_snapshot: bool = False  # resume_state is the nodes' peer snapshot
    read_seconds: float = 0.0  # spent reading the checkpoint before the ranks talk
    init_state: Optional[dict] = None  # --init-from: another run's checkpoint (its weights)
    init_path: Optional[str] = None
    snapshot_every: Optional[int] = 0  # steps between peer snapshots (None: adapt to their cost)


def _check_numbers(args, world):
    for name in ("micro_batch", "steps"):
        if getattr(args, name) < 1:
            raise UsageError(f"--{name.replace('_', '-')} {getattr(args, name)}: must be at least 1")
    per_pass = args.micro_batch * world
    global_batch = args.global_batch if args.global_batch is not None else per_pass
    if global_batch < 1:
        raise UsageError(f"--global-batch {global_batch}: must be at least 1 (a multiple of --micro-batch "
                         f"{args.micro_batch} x world size {world} = {per_pass})")
    if global_batch % per_pass:
        lower = max(per_pass, global_batch // per_pass * per_pass)
        raise UsageError(
            f"--global-batch {global_batch} is not divisible by --micro-batch {args.micro_batch} x "
            f"world size {world} = {per_pass}, so gradient accumulation would not be a whole number; "
            f"use a multiple of {per_pass} (e.g. {lower} or {lower + per_pass})")
    if min(args.checkpoint_every, args.keep_checkpoints, args.keep_checkpoints_local) < 0 or \
            args.log_every < 1:
        raise UsageError("--checkpoint-every, --keep-checkpoints and --keep-checkpoints-local must be "
                         ">= 0, --log-every >= 1")
    return global_batch, global_batch // per_pass


def _check_output(output, flag="--output"):
    """`flag`'s folder must be a folder, or a path whose nearest existing part is a folder."""
    what = output_folder_problem(output)
    if what:
        holds = "checkpoints, metrics and results" if flag == "--output" else "checkpoints"
        raise UsageError(f"{flag} {output}: {what}, not a folder; give a folder for {holds} (it is "
                         "created when missing)")


def _vocab_size(args, say):
    if args.vocab_size:
        return args.vocab_size
    path = os.path.join(args.data, "vocab.txt")
    if os.path.exists(path):
        return vocab_size_of(path)
    say(f"warning: {args.data} has no vocab.txt: the model gets BERT's {DEFAULT_VOCAB_SIZE:,}-word "
        "vocabulary; give --vocab-size, or prepare the data with prepare-data (it writes vocab.txt)")
    return DEFAULT_VOCAB_SIZE


def _open_matching_shards(args):
    shards = open_shards(args.data, args.pattern)
    for flag, have in (("seq_len", shards.seq_len), ("max_pred", shards.max_pred)):
        want = getattr(args, flag)
        if want is not None and want != have:
            raise UsageError(f"--{flag.replace('_', '-')} {want}: the shards in {args.data} have "
                             f"{have}; prepare data with {want} or drop the option")
    return shards


def check_inputs(args, world_size, resume, say, local_rank=0, init=True):
    """RunInputs for `args`, or a TrainerError saying what is wrong. resume: look for a
    checkpoint in --output (say reports the ones skipped); init: read --init-from's when there
    is none (graph extraction reads nothing)."""
    global_batch, accumulation = _check_numbers(args, world_size)
    check_settings(args)
    check_native_options(args)
    _check_output(args.output)
    shards = _open_matching_shards(args)
    config = model_config(args.model, _vocab_size(args, say), args.dropout)
    if shards.seq_len > config.max_position_embeddings:
        raise UsageError(f"shards have sequence length {shards.seq_len}, above the model's "
                         f"{config.max_position_embeddings} positions")
    lr = args.lr if args.lr is not None else DEFAULT_LR.get(args.optimizer, 1e-4)
    if args.keep_checkpoints_uri is not None and args.keep_checkpoints_uri < 0:
        raise UsageError("--keep-checkpoints-uri must be >= 0")
    if not 0 < args.checkpoint_uri_timeout <= 3600:
        raise UsageError(f"--checkpoint-uri-timeout {args.checkpoint_uri_timeout}: give seconds "
                         "between 0 and 3600")
    inputs = RunInputs(global_batch, accumulation, shards, config, lr, checkpoint_tiers(args, say), resume)
    inputs.snapshot_every = _snapshot_every(args.snapshot_every, inputs.tiers.local)
    if resume:
        _find_resume(inputs, args, say, local_rank)
    if init and args.init_from and inputs.resume_state is None:
        _find_init(inputs, args, say, local_rank)
    return inputs


def _snapshot_every(text, local):
    """--snapshot-every: steps, 0 for none, None for auto (needs the node-local tier)."""
    if str(text).strip().lower() == "auto":
        return None if local else 0
    try:
        every = int(text)
    except ValueError:
        every = -1
    if every < 0:
        raise UsageError(f"--snapshot-every {text}: give a whole number of steps >= 0 (0: no "
                         "snapshots), or auto")
    if every and not local:
        raise UsageError(f"--snapshot-every {text}: snapshots are kept in the node-local tier, and this "
                         "run has none; give --checkpoint-local-dir (a tmpfs such as /dev/shm/... keeps "
                         "them in memory), or --snapshot-every 0")
    return every


def checkpoint_tiers(args, say):
    """The tiers --output, --checkpoint-local-dir and --checkpoint-uri name (checkpoint/tiers.py)."""
    store = None
    if args.checkpoint_uri:
        keep = args.keep_checkpoints if args.keep_checkpoints_uri is None else args.keep_checkpoints_uri
        store = S3Tier(args.checkpoint_uri, keep, say, timeout=args.checkpoint_uri_timeout)
    local = args.checkpoint_local_dir
    if local:
        _check_output(local, "--checkpoint-local-dir")
    return Tiers(args.output, args.keep_checkpoints, local, args.keep_checkpoints_local, store)


def _find_resume(inputs, args, say, local_rank):
    tiers = inputs.tiers
    if tiers.store is not None:  # a newer checkpoint in the store comes into --output first
        tiers.store.restore_newer(args.output, say)
    load = partial(_load_newest_checkpoint, inputs, args.optimizer, say, local_rank)
    if tiers.snapshots:  # looked at first, once the ranks can talk: no checkpoint read for nothing
        inputs.load_checkpoint = load
    else:
        load()


def _load_newest_checkpoint(inputs, optimizer, say, local_rank):
    tiers = inputs.tiers
    started = time.perf_counter()
    with load_slot(local_rank):  # a few loads per node at a time
        state, step, sources = load_newest(tiers, every_rank_says)
    inputs.read_seconds += time.perf_counter() - started
    if state is not None:
        files.check_compatible(state, tiers.path(step), inputs.config, optimizer)
        inputs.resume_state, inputs.resume_step, inputs.resume_path = state, step, tiers.path(step)
        if "node-local" in sources:
            inputs.resume_note = f", shards read from the node-local tier {tiers.local} where there"


def _find_init(inputs, args, say, local_rank):
    """--init-from RUN_DIR: that run's newest checkpoint, for its weights."""
    if not os.path.isdir(args.init_from):
        raise UsageError(f"--init-from {args.init_from}: not a folder; give the run directory of the "
                         "run whose final weights this one starts from")
    source = Tiers(args.init_from, keep=0)
    with load_slot(local_rank):
        state, step, _ = load_newest(source, say)
    if state is None:
        raise UsageError(f"--init-from {args.init_from}: holds no checkpoint (ckpt_<step>.json with "
                         "its shards); give a run directory whose run wrote one (a run writes one at "
                         "its end)")
    files.check_compatible(state, source.path(step), inputs.config, None)
    inputs.init_state, inputs.init_path = state, source.path(step)
