"""What pretrain-lm checks of its input before it trains, on the own and the native path: the
options (check_args), that the sequence splits where the path splits it (check_sequence_splits) and
that a CPU host holds what its processes build (check_host_memory). Each bad input is one
UsageError naming the option and the fix."""

import math

from ..errors import UsageError
from ..models.llama_config import llama_parameter_count
from ..training.host_memory import check_fits


def check_args(args, world_size):
    if args.pipeline_parallel != 1:
        raise UsageError(f"--pipeline-parallel {args.pipeline_parallel}: the bundled trainer has no pipeline "
                         "schedule (docs/llama.md#status); use tensor_parallel and data parallelism, or a "
                         "profile running your own neuronx-distributed script (llama2_7b_nxd)")
    if args.steps < 1:
        raise UsageError(f"--steps {args.steps}: must be at least 1")
    if args.tensor_parallel < 1:
        raise UsageError(f"--tensor-parallel {args.tensor_parallel}: give a degree of at least 1")
    if not (math.isfinite(args.lr) and args.lr > 0):
        raise UsageError(f"--lr {args.lr}: must be a finite number above 0")
    if not math.isfinite(args.warmup):
        raise UsageError(f"--warmup {args.warmup}: must be a finite number")
    if args.global_batch < 1:
        raise UsageError(f"--global-batch {args.global_batch}: must be at least 1")
    if world_size % args.tensor_parallel:
        raise UsageError(f"--tensor-parallel {args.tensor_parallel} does not divide the world of "
                         f"{world_size} processes")
    dp = world_size // args.tensor_parallel
    if args.micro_batch < 1 or args.global_batch % (args.micro_batch * dp):
        raise UsageError(f"--global-batch {args.global_batch} is not a whole number of micro-batches "
                         f"{args.micro_batch} x data-parallel {dp}: make it a multiple of "
                         f"{args.micro_batch * dp}")
    return dp


def check_host_memory(args, env, device, config, splits, native):
    """On the CPU each process trains there: fp32 weights, gradients and AdamW's two moments, 16
    bytes a parameter, split `splits` ways (tensor parallel; on the native path FSDP2 shards over
    dp too: the whole world). The native path's processes also draw the initial weights one whole
    tensor at a time on the host (the largest, the embedding or the head, 4 bytes an element), on
    every device."""
    per_process = 4 * config.vocab_size * config.hidden_size if native else 0
    if device.kind == "cpu":
        per_process += 16 * llama_parameter_count(config) // splits
    if not per_process:
        return
    here = f"{env.local_world_size} process(es) here"
    if native:
        what = f"--native --model {args.model} on {device.kind} ({here}, world {env.world_size})"
        fix = "choose a smaller --model, more processes over more nodes, or train it on Trainium or GPUs"
    else:
        what = f"--model {args.model} on CPU ({here}, tensor parallel {args.tensor_parallel})"
        fix = "choose a smaller --model, or train it on Trainium or GPUs"
    check_fits(per_process * env.local_world_size, what, fix)


def check_sequence_splits(seq_len, tp_size, data, native):
    """Where the residual stream is split along the sequence over --tensor-parallel (--sequence-parallel
    on the own path; always on the native path, whose norms are SequenceParallel), equal slices
    keep every rank's shapes the same (and static for torch.compile)."""
    if tp_size > 1 and seq_len % tp_size:
        if native:
            option, why, instead = f"--native --tensor-parallel {tp_size}", "the native path", ""
        else:
            option, why, instead = "--sequence-parallel", f"--tensor-parallel {tp_size}", \
                ", or leave --sequence-parallel out"
        raise UsageError(f"{option}: the sequence length {seq_len} of --data {data} does not split over it "
                         f"({why} splits the norms along the sequence); prepare the data with a multiple "
                         f"of it (prepare-lm --seq-len){instead}")
