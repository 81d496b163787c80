"""Range checks of pretrain's numeric settings, so that NaN, infinity or a negative value is one
clear error before anything is written instead of a traceback (or a silently odd run) later."""

import math

from ..errors import UsageError

SEED_LIMIT = 2**63  # the seed feeds torch's and numpy's generators and the int64 dropout hash


def _flag(name):
    return "--" + name.replace("_", "-")


def _check_finite(args):
    for name in ("lr", "dropout", "weight_decay", "warmup", "poly_power", "grad_clip", "peak_tflops"):
        value = getattr(args, name)
        if value is not None and not math.isfinite(value):
            raise UsageError(f"{_flag(name)} {value}: must be a finite number")


def check_settings(args):
    """UsageError naming the first pretrain setting that is out of range."""
    _check_finite(args)
    if not 0.0 <= args.dropout < 1.0:
        raise UsageError(f"--dropout {args.dropout}: must be in [0, 1)")
    if args.lr is not None and args.lr <= 0:
        raise UsageError(f"--lr {args.lr}: must be positive")
    if not 0 <= args.seed < SEED_LIMIT:
        raise UsageError(f"--seed {args.seed}: must be a whole number from 0 to {SEED_LIMIT - 1}")
    # (A negative --warmup is refused by optim.warmup_steps, which reads it.)
    for name, meaning in (("weight_decay", "0: off"), ("poly_power", "1: linear"), ("grad_clip", "0: off")):
        if getattr(args, name) < 0:
            raise UsageError(f"{_flag(name)} {getattr(args, name)}: must be >= 0 ({meaning})")
    if args.peak_tflops is not None and args.peak_tflops <= 0:
        raise UsageError(f"--peak-tflops {args.peak_tflops}: must be positive (TFLOP/s per process), "
                         "or leave it out")


def native_path(args):
    """Whether pretrain or pretrain-lm runs the native path: --native, or --device neuron
    (TorchNeuron serves that path only)."""
    return args.native or args.device == "neuron"


def check_native_options(args):
    """--data-parallel and --compile belong to the native path (pretrain --native)."""
    for shown in (f"--data-parallel {args.data_parallel}" if args.data_parallel else None,
                  "--compile" if args.compile else None):
        if shown and not native_path(args):
            raise UsageError(f"{shown}: an option of the native path (PyTorch's FSDP2 or DDP, "
                             "torch.compile); add --native, or drop it for the own path, which "
                             "all-reduces the gradients itself")
    if native_path(args) and args.model_impl == "hf":
        raise UsageError("--model-impl hf with --native: the native path shards and compiles the "
                         "trainer's own BERT layer by layer; use --model-impl native (Hugging Face's "
                         "parameter names, so their weights load as they are)")
