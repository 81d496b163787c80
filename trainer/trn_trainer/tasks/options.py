"""Each command's options: the argparse sub-parsers cli.py puts together, in the order its help
lists them. Only argparse and the environment's defaults: parsing and --help need no torch."""

import argparse
import os

from .. import env_names


class DefaultsHelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """argparse's "(default: X)" once per option: not where the help already says the default,
    and not for an option without one (None) or one that must be given."""

    def _get_help_string(self, action):
        text = action.help or ""
        if "default" in text or action.required or action.default in (None, argparse.SUPPRESS):
            return text
        return super()._get_help_string(action)


def _device_args(p):
    p.add_argument("--device", choices=("auto", "cpu", "cuda", "xla", "neuron"), default="auto",
                   help="neuron: TorchNeuron on trn2/trn3 (with --native); xla: torch-xla on trn1")
    p.add_argument("--dtype", choices=("auto", "fp32", "bf16"), default="auto",
                   help="auto: bf16 on CUDA/XLA/neuron, fp32 on CPU")


def _native_args(p):
    p.add_argument("--native", action="store_true",
                   help="native PyTorch: the device torch.accelerator names (neuron, cuda) else the CPU, "
                   "FSDP2 and DTensor over a (dp, tp) device mesh (docs/architecture.md#native-path)")


def _tensorboard_arg(p):
    p.add_argument("--no-tensorboard", action="store_true",
                   help="write no TensorBoard event files (default: OUTPUT/tensorboard)")


def _checkpoint_tier_args(p):
    """Where checkpoints go besides --output, and how (docs/checkpoints.md#tiers)."""
    p.add_argument("--checkpoint-local-dir",
                   default=os.environ.get(env_names.TRN_CHECKPOINT_LOCAL_DIR) or None,
                   help="a node-local folder (NVMe) each rank writes its shard to first, copied to --output "
                   "from there; read first on resume (default: $TRN_CHECKPOINT_LOCAL_DIR, else none)")
    p.add_argument("--keep-checkpoints-local", type=int, default=2,
                   help="newest N kept in --checkpoint-local-dir (0: keep all)")
    p.add_argument("--checkpoint-uri", default=os.environ.get(env_names.TRN_CHECKPOINT_URI) or None,
                   help="s3://bucket/prefix: also keep checkpoints there (uploaded in the background after "
                   "--output's copy) and resume from there when --output has none as new "
                   "(default: $TRN_CHECKPOINT_URI, else none)")
    p.add_argument("--keep-checkpoints-uri", type=int, default=None,
                   help="newest N kept under --checkpoint-uri (0: keep all; default: --keep-checkpoints)")
    p.add_argument("--checkpoint-uri-timeout", type=float, default=60.0, metavar="SECONDS",
                   help="how long the object store may take to answer a request (3 attempts) before "
                   "an upload is given up with a warning")
    p.add_argument("--checkpoint-mode", choices=("async", "sync"), default="async",
                   help="async: the step pays for a copy into host memory, a background thread "
                   "writes it (a save due while one is written is skipped); sync: written in the step")


def add_pretrain(sub):
    p = sub.add_parser("pretrain", help="BERT pre-training (MLM + NSP) on HDF5 shards",
                       formatter_class=DefaultsHelpFormatter)
    p.add_argument("--data", required=True, help="folder holding the *_training_*.hdf5 shards")
    p.add_argument("--output", required=True, help="folder for checkpoints, metrics and results")
    p.add_argument("--model", default="large", help="tiny, mini, base or large")
    p.add_argument("--micro-batch", type=int, default=16, help="sequences per process per micro-step")
    p.add_argument("--global-batch", type=int, default=None,
                   help="sequences per optimizer step over all processes (default: micro-batch x world)")
    p.add_argument("--steps", type=int, required=True, help="total optimizer steps")
    p.add_argument("--optimizer", choices=("adamw", "lamb"), default="adamw")
    p.add_argument("--lr", type=float, default=None,
                   help="peak learning rate (default 4e-4 adamw, 6e-3 lamb)")
    p.add_argument("--seed", type=int, default=12345, help="model init, sample order and dropout")
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--checkpoint-every", type=int, default=0,
                   help="steps between checkpoints (0: only at the end)")
    p.add_argument("--keep-checkpoints", type=int, default=3, help="newest N kept (0: keep all)")
    _checkpoint_tier_args(p)
    p.add_argument("--snapshot-every", default=os.environ.get(env_names.TRN_SNAPSHOT_EVERY) or "auto",
                   metavar="N|auto",
                   help="steps between peer snapshots: each rank's shard kept in its node-local tier and "
                   "in the next node's, so a lost node redoes at most N steps (0: none; auto, the default "
                   "with --checkpoint-local-dir: every step while that costs under 1%% of a step; "
                   "default: $TRN_SNAPSHOT_EVERY)")
    p.add_argument("--init-from", default=None, metavar="RUN_DIR",
                   help="start from the model weights of RUN_DIR's newest checkpoint (fresh optimizer and "
                   "schedule, step 0) when --output has no checkpoint to resume from: phase 2 after phase 1")
    p.add_argument("--warmup", type=float, default=2000 / 28125,
                   help="warm-up steps, or a fraction of --steps when below 1 "
                        "(default: the reference's 2000/28125)")
    p.add_argument("--schedule", choices=("linear", "poly"), default="linear", help="decay after warm-up")
    p.add_argument("--poly-power", type=float, default=0.5, help="exponent of --schedule poly")
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--grad-clip", type=float, default=1.0, help="max global gradient norm (0: off)")
    p.add_argument("--seq-len", type=int, default=None, help="check the shards have this sequence length")
    p.add_argument("--max-pred", type=int, default=None, help="check the shards have this max_pred_len")
    p.add_argument("--pattern", default="*_training_*.hdf5", help="shard file name pattern inside --data")
    p.add_argument("--vocab-size", type=int, default=None,
                   help="default: lines of DATA/vocab.txt, else 30522")
    p.add_argument("--log-every", type=int, default=10, help="progress line every N steps")
    _device_args(p)
    _native_args(p)
    p.add_argument("--data-parallel", choices=("fsdp", "ddp"), default=None,
                   help="with --native: PyTorch's FSDP2 (per encoder layer and the root; the default) or "
                   "DDP reduces the gradients (docs/architecture.md#native-bert)")
    p.add_argument("--compile", action="store_true",
                   help="with --native: torch.compile each encoder layer (backend neuron on Trainium, "
                   "static shapes)")
    p.add_argument("--model-impl", choices=("native", "hf"), default="native",
                   help="hf: Hugging Face transformers' BertForPreTraining")
    p.add_argument("--dropout-rng", choices=("sample", "device"), default="sample",
                   help="sample: masks fixed per global sample (world-size invariant); device: framework RNG "
                   "(on a GPU 2.6x faster for BERT-Large: bench/RESULTS.md)")
    p.add_argument("--peak-tflops", type=float, default=None,
                   help="peak TFLOP/s per process for MFU (default: known accelerators; n/a on CPU)")
    p.add_argument("--no-resume", action="store_true", help="ignore checkpoints in --output")
    _tensorboard_arg(p)
    p.add_argument("--no-plot", action="store_true", help="skip metrics.png")


def add_finetune(sub):
    p = sub.add_parser("finetune", help="BERT fine-tuning for sequence classification (docs/finetune.md)",
                       formatter_class=DefaultsHelpFormatter)
    p.add_argument("--train", required=True, help="CSV (header text,label[,text_b]) or JSON-lines file")
    p.add_argument("--eval", required=True, help="evaluated after every epoch; same format")
    p.add_argument("--vocab", required=True, help="the BERT vocab.txt the model was pre-trained with")
    p.add_argument("--output", required=True, help="folder for metrics.jsonl, results.json and model.pt")
    p.add_argument("--init-from", default=None, metavar="PATH",
                   help="a pretrain run directory or checkpoint, or Hugging Face BERT weights "
                   "(pytorch_model.bin or its folder)")
    p.add_argument("--model", default=None,
                   help="tiny, mini, base or large (default: the --init-from checkpoint's size)")
    p.add_argument("--seq-len", type=int, default=128, help="tokens per example, longer texts are cut")
    p.add_argument("--cased", action="store_true", help="keep case and accents (a cased vocabulary)")
    p.add_argument("--epochs", type=int, default=3, help="passes over --train (0: only evaluate)")
    p.add_argument("--micro-batch", type=int, default=8, help="examples per process per micro-step")
    p.add_argument("--global-batch", type=int, default=None,
                   help="examples per optimizer step over all processes (default: micro-batch x world)")
    p.add_argument("--lr", type=float, default=5e-5, help="peak learning rate (AdamW)")
    p.add_argument("--warmup", type=float, default=0.1,
                   help="warm-up steps, or a fraction of all steps when below 1")
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--grad-clip", type=float, default=1.0, help="max global gradient norm (0: off)")
    p.add_argument("--dropout", type=float, default=0.1,
                   help="masks fixed per sample, so any world size gives the same result")
    p.add_argument("--seed", type=int, default=12345, help="classifier init, sample order and dropout")
    p.add_argument("--log-every", type=int, default=10, help="progress line every N steps")
    _device_args(p)
    _tensorboard_arg(p)


def add_prepare_data(sub):
    p = sub.add_parser("prepare-data", help="text corpus -> BERT HDF5 shards",
                       formatter_class=DefaultsHelpFormatter)
    p.add_argument("--input", nargs="+", required=True, help="UTF-8 text files or folders")
    p.add_argument("--output", required=True, help="folder for the shards and vocab.txt")
    p.add_argument("--vocab", default=None, help="a BERT vocab.txt (default: build one from the corpus)")
    p.add_argument("--vocab-size", type=int, default=8000, help="size of a vocabulary built from the corpus")
    p.add_argument("--cased", action="store_true", help="keep case and accents")
    p.add_argument("--seq-len", type=int, default=128, help="128 (phase 1) or 512 (phase 2)")
    p.add_argument("--max-pred", type=int, default=20, help="max masked tokens per sequence")
    p.add_argument("--masked-lm-prob", type=float, default=0.15)
    p.add_argument("--dupe-factor", type=int, default=5, help="copies of the corpus with different masks")
    p.add_argument("--short-seq-prob", type=float, default=0.1)
    p.add_argument("--num-shards", type=int, default=2, help="training shards")
    p.add_argument("--test-fraction", type=float, default=0.05, help="share of sequences in the test shard")
    p.add_argument("--name", default="corpus", help="shard name prefix: NAME_training_I.hdf5")
    p.add_argument("--seed", type=int, default=12345)
    p.add_argument("--force", action="store_true", help="replace shards already in --output")


def add_pretrain_lm(sub):
    p = sub.add_parser("pretrain-lm", help="Llama causal-LM pre-training: tensor/data parallel, ZeRO-1",
                       formatter_class=DefaultsHelpFormatter)
    p.add_argument("--data", required=True, help="folder holding prepare-lm's *_training_*.hdf5 shards")
    p.add_argument("--output", required=True, help="folder for metrics and results")
    p.add_argument("--model", default="tiny",
                   help="tiny, tiny-mha, 100m, 1b, 7b, 13b, 70b (Llama 2's), llama3-8b or llama3-70b")
    p.add_argument("--tensor-parallel", type=int, default=1, help="ranks that split each layer")
    p.add_argument("--pipeline-parallel", type=int, default=1, help="1: pipeline parallelism is not built")
    p.add_argument("--zero1", action="store_true", help="shard the optimizer state over data parallel")
    p.add_argument("--activation-checkpointing", choices=("none", "selective"), default="none",
                   help="selective: keep the core attention's inputs, not its seq^2 activations, and "
                   "recompute it in the backward (the same losses, less device memory)")
    p.add_argument("--sequence-parallel", action="store_true",
                   help="split the norms' and residuals' activations along the sequence over the "
                   "tensor-parallel group (the same losses, less device memory; the sequence length "
                   "must be a multiple of --tensor-parallel)")
    p.add_argument("--micro-batch", type=int, default=1, help="samples per rank per micro-step")
    p.add_argument("--global-batch", type=int, required=True, help="samples per optimizer step")
    p.add_argument("--steps", type=int, required=True, help="optimizer steps")
    p.add_argument("--lr", type=float, default=3e-4, help="peak learning rate")
    p.add_argument("--warmup", type=float, default=0.1, help="warm-up steps (a fraction of --steps below 1)")
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--grad-clip", type=float, default=1.0, help="max global gradient norm (0: off)")
    p.add_argument("--seed", type=int, default=12345)
    p.add_argument("--vocab-size", type=int, default=32000, help="when the data has no prepare_lm.json")
    p.add_argument("--checkpoint-every", type=int, default=0, help="steps between checkpoints (0: the last)")
    p.add_argument("--keep-checkpoints", type=int, default=3, help="newest N kept (0: keep all)")
    p.add_argument("--no-resume", action="store_true", help="ignore checkpoints in --output")
    p.add_argument("--log-every", type=int, default=10)
    p.add_argument("--init-from", default=None, metavar="DIR",
                   help="weights convert split wrote (tp_weights.json) to start from (fresh optimizer, "
                   "step 0) when --output has no checkpoint to resume from")
    p.add_argument("--compile", action="store_true",
                   help="torch.compile the model's forward and backward (CUDA or CPU; XLA traces its graphs "
                   "itself; with --native each decoder layer, static shapes, backend neuron on Trainium)")
    _device_args(p)
    _native_args(p)
    _checkpoint_tier_args(p)
    _tensorboard_arg(p)


def add_prepare_lm(sub):
    p = sub.add_parser("prepare-lm", help="text corpus -> packed causal-LM samples (Llama)",
                       formatter_class=DefaultsHelpFormatter)
    p.add_argument("--input", nargs="+", required=True, help="UTF-8 text files or folders")
    p.add_argument("--output", required=True, help="folder for the shards and tokenizer.model")
    p.add_argument("--tokenizer", default=None,
                   help="a SentencePiece tokenizer.model, e.g. Llama's (default: train one from the corpus)")
    p.add_argument("--vocab-size", type=int, default=8000, help="size of a tokenizer trained from the corpus")
    p.add_argument("--seq-len", type=int, default=4096, help="tokens per packed sample")
    p.add_argument("--num-shards", type=int, default=2, help="training shards")
    p.add_argument("--test-fraction", type=float, default=0.05, help="share of samples in the test shard")
    p.add_argument("--name", default="corpus", help="shard name prefix: NAME_training_I.hdf5")
    p.add_argument("--force", action="store_true", help="replace shards already in --output")


def add_convert(sub):
    p = sub.add_parser("convert", help="Llama weights: tensor-parallel shards <-> Hugging Face folder")
    directions = p.add_subparsers(dest="direction", required=True)
    merge = directions.add_parser("merge", help="pretrain-lm checkpoint (or split folder) -> Hugging Face",
                                  formatter_class=DefaultsHelpFormatter)
    merge.add_argument("--input", required=True,
                       help="a pretrain-lm run directory, or a folder convert split wrote")
    merge.add_argument("--step", type=int, default=None, help="the checkpoint's step (default: the newest)")
    merge.add_argument("--format", choices=("safetensors", "bin"), default="safetensors",
                       help="model.safetensors, or pytorch_model.bin (a torch.save'd state_dict)")
    merge.add_argument("--dtype", choices=("same", "fp32", "bf16", "fp16"), default="same",
                       help="the weights' type in the output (same: as trained)")
    split = directions.add_parser("split", help="Hugging Face folder -> shards for pretrain-lm --init-from",
                                  formatter_class=DefaultsHelpFormatter)
    split.add_argument("--input", required=True, help="a Hugging Face Llama folder (config.json and weights)")
    split.add_argument("--tensor-parallel", type=int, required=True, help="the degree of the run to start")
    for q in (merge, split):
        q.add_argument("--output", required=True, help="folder to write")
        q.add_argument("--force", action="store_true", help="replace an earlier conversion in --output")


def add_plots(sub):
    p = sub.add_parser("plot", help="PNG of loss and throughput from a metrics.jsonl")
    p.add_argument("metrics", help="metrics.jsonl written by pretrain")
    p.add_argument("-o", "--output", required=True, help="PNG file to write")
    p = sub.add_parser("plot-sweep", help="PNG of efficiency and cost from trn-run's --sweep JSON")
    p.add_argument("--input", required=True, help="the sweep's JSON (trn-run --plan --sweep --json)")
    p.add_argument("--output", required=True, help="PNG file to write")
