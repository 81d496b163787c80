"""The checked input of a finetune run (docs/finetune.md): settings, examples and the model to
start from. Everything that can reject the run happens here, before anything is written."""

import dataclasses
import math
import os
from typing import Optional

from ..checkpoint.load_slots import load_slot
from ..data.finetune_examples import encode, label_list, read_examples
from ..data.wordpiece import WordPieceTokenizer, load_vocab
from ..errors import CheckpointError, UsageError
from ..models.bert_config import MODEL_SIZES, BertConfig, model_config
from ..training.setting_checks import SEED_LIMIT
from .finetune_init import InitSource, load_init

MIN_SEQ_LEN = 8  # [CLS], [SEP] and a few tokens (sentence pairs need room for both)


@dataclasses.dataclass
class FinetuneInputs:
    global_batch: int
    accumulation: int
    labels: list  # label id i is labels[i]
    train: dict  # tensors: input_ids, segment_ids, input_mask [N, seq_len], labels [N]
    eval: dict
    truncated: dict  # examples cut to --seq-len, per file
    config: BertConfig
    source: Optional[InitSource]


def _flag(name):
    return "--" + name.replace("_", "-")


def check_numbers(args, world):
    """(global batch, accumulation), or a UsageError naming the setting."""
    for name, low in (("epochs", 0), ("micro_batch", 1), ("log_every", 1)):
        if getattr(args, name) < low:
            raise UsageError(f"{_flag(name)} {getattr(args, name)}: must be at least {low}")
    for name in ("lr", "warmup", "weight_decay", "grad_clip", "dropout"):
        if not math.isfinite(getattr(args, name)) or getattr(args, name) < 0:
            raise UsageError(f"{_flag(name)} {getattr(args, name)}: must be a finite number >= 0")
    if args.lr == 0 or args.dropout >= 1:
        raise UsageError("--lr must be positive and --dropout below 1")
    if not 0 <= args.seed < SEED_LIMIT:
        raise UsageError(f"--seed {args.seed}: must be a whole number from 0 to {SEED_LIMIT - 1}")
    if args.seq_len < MIN_SEQ_LEN:
        raise UsageError(f"--seq-len {args.seq_len}: too short; give at least {MIN_SEQ_LEN} tokens "
                         "(128 is usual; at most the model's positions, 512 for BERT)")
    if os.path.isfile(args.output):
        raise UsageError(f"--output {args.output}: is a file, not a folder; give a folder for the results")
    per_pass = args.micro_batch * world
    global_batch = args.global_batch if args.global_batch is not None else per_pass
    if global_batch < 1 or global_batch % per_pass:
        lower = max(per_pass, global_batch // per_pass * per_pass)
        raise UsageError(f"--global-batch {global_batch} is not divisible by --micro-batch "
                         f"{args.micro_batch} x world size {world} = {per_pass}; use a multiple of "
                         f"{per_pass} (e.g. {lower} or {lower + per_pass})")
    return global_batch, global_batch // per_pass


def model_setup(args, vocab_size, say):
    """(BertConfig, InitSource or None): the checkpoint's size, or --model's."""
    source = load_init(args.init_from, say) if args.init_from else None
    if source is None and not args.model:
        raise UsageError("give --init-from (a pretrain run, checkpoint or Hugging Face BERT weights) or, "
                         f"to start from random weights, --model ({', '.join(MODEL_SIZES)})")
    config = source.config if source else model_config(args.model, vocab_size, args.dropout)
    if source and args.model:
        have = config.architecture()
        wanted = model_config(args.model, config.vocab_size, args.dropout).architecture()
        diff = ", ".join(f"{k}: checkpoint {have[k]} vs --model {v}"
                         for k, v in wanted.items() if have[k] != v)
        if diff:
            shape = (config.num_hidden_layers, config.hidden_size, config.num_attention_heads,
                     config.intermediate_size)
            named = [name for name, size in MODEL_SIZES.items() if size == shape]
            raise CheckpointError(f"--init-from {args.init_from} holds another model than --model "
                                  f"{args.model} ({diff}); drop --model to take the checkpoint's size"
                                  f"{f', or give --model {named[0]}' if named else ''}")
    config = dataclasses.replace(config, hidden_dropout_prob=args.dropout,
                                 attention_probs_dropout_prob=args.dropout)
    if vocab_size > config.vocab_size:
        raise UsageError(f"--vocab {args.vocab} has {vocab_size} tokens, the model {config.vocab_size}; "
                         "give the vocab.txt the model was pre-trained with")
    if args.seq_len > config.max_position_embeddings:
        raise UsageError(f"--seq-len {args.seq_len}: the model has {config.max_position_embeddings} "
                         f"positions; give at most {config.max_position_embeddings}")
    return config, source


def check_inputs(args, world, local_rank, say):
    """FinetuneInputs of `args`, or a TrainerError saying what is wrong."""
    global_batch, accumulation = check_numbers(args, world)
    vocab = load_vocab(args.vocab)
    tokenizer = WordPieceTokenizer(vocab, lower_case=not args.cased)
    train = read_examples(args.train, "--train")
    evaluation = read_examples(args.eval, "--eval")
    labels = label_list(train, args.train)
    if args.epochs and len(train) < global_batch:
        raise UsageError(f"--global-batch {global_batch} is more than the {len(train)} examples of --train "
                         f"{args.train}; give a smaller --global-batch")
    encoded, truncated = {}, {}
    for name, path, examples in (("train", args.train, train), ("eval", args.eval, evaluation)):
        encoded[name], truncated[name] = encode(examples, labels, tokenizer, args.seq_len, path,
                                                f"--{name}", args.train)
    with load_slot(local_rank):  # a few checkpoint reads per node at a time
        config, source = model_setup(args, max(vocab.values()) + 1, say)
    return FinetuneInputs(global_batch, accumulation, labels, encoded["train"], encoded["eval"], truncated,
                          config, source)
